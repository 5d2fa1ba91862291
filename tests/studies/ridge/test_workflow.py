"""The ridge study through snakemake (tiny config): its tables and best-constant verdicts in
the tiny run, job log lines, a failing job and its retry, rerun granularity (a ridge parameter
reruns only the ridge jobs), and its config refused before any job. The helpers and the tiny
run: tests/workflow/test_workflow.py and tests/conftest.py."""

from __future__ import annotations

import copy
import json
import math
import re

import pandas as pd
import pytest

from krepro.studies.verdicts import KINDS, detail_disagreements
from tests.studies.ridge.expected import n_ridge_fits
from tests.workflow.test_workflow import (
    TINY_CONFIG,
    VERDICTS,
    assert_rejected_before_any_job,
    console_file,
    fail_once,
    job_stats,
    load_yaml,
    markdown_tables,
    ok,
    snakemake,
    study_rules,
    write_yaml,
)

pytestmark = pytest.mark.workflow

RIDGE_RULES = study_rules("ridge")


@pytest.mark.slow
def test_tiny_run_ridge_table(tiny_run, tiny):
    ridge = tiny["ridge"]
    table = pd.read_csv(tiny_run / "results/tables/ridge.csv")
    required = {"variant", "experiment", "gamma", "method", "mse_mean", "mse_sd", "n_reps"}
    assert required <= set(table.columns), table.columns
    assert set(table["method"]) == {"KRR", "ORR", "M-ORR"}
    assert set(table["variant"]) == set(ridge["variants"])
    assert set(table["experiment"]) == set(ridge["experiments"])
    assert sorted(set(table["gamma"])) == pytest.approx(sorted(ridge["gammas"]))
    keys = ["variant", "experiment", "gamma", "method"]
    assert not table.duplicated(keys).any()
    assert len(table) == len(ridge["variants"]) * len(ridge["experiments"]) * len(
        ridge["gammas"]
    ) * len({"KRR", "ORR", "M-ORR"})
    assert (table["n_reps"] == ridge["n_repetitions"]).all()
    assert all(math.isfinite(v) and v > 0 for v in table["mse_mean"])
    assert (table["mse_sd"] >= 0).all()

    # The aggregate is the mean over the tidy per-repetition table.
    runs = pd.read_csv(tiny_run / "results/ridge/ridge.csv")
    assert {*keys, "repetition", "test_mse"} <= set(runs.columns), runs.columns
    per_setting = runs.groupby(keys)["test_mse"].agg(["mean", "size"]).reset_index()
    merged = table.merge(per_setting, on=keys, validate="one_to_one")
    assert len(merged) == len(table)
    assert (merged["size"] == ridge["n_repetitions"]).all()
    assert merged["mse_mean"].to_numpy() == pytest.approx(merged["mean"].to_numpy(), rel=1e-9)


@pytest.mark.slow
def test_tiny_run_report_verdicts_on_best_constant(tiny_run, tiny):
    """report.md compares the best S-independent MSE with the paper's 56.2 and 224.8.

    The reproduced value is a closed form, Var(S²)·c² + Var ε for S ~ U[low, high] (c = 1
    in experiment 1, 2 in experiment 2), so the verdict does not depend on the tiny sizes.
    """
    ridge = tiny["ridge"]
    report = (tiny_run / "results/report.md").read_text(encoding="utf-8")
    assert "Ridge" in report and "Illustration" in report
    paper = {1: 56.2, 2: 224.8}
    low, high = ridge["partition"]["low"], ridge["partition"]["high"]
    var_s2 = (high**5 - low**5) / (5 * (high - low)) - (
        (high**3 - low**3) / (3 * (high - low))
    ) ** 2

    rows = [
        row
        for table in markdown_tables(report)
        for row in table
        if {"experiment", "variant", "paper", "tolerance"} <= set(row)
    ]
    assert rows, f"no best-constant table (experiment | variant | paper | … ):\n{report}"
    seen = set()
    for row in rows:
        experiment, variant = int(row["experiment"]), row["variant"]
        seen.add((experiment, variant))
        assert float(row["paper"]) == pytest.approx(paper[experiment])
        reproduced = next(value for key, value in row.items() if key.startswith("reproduced"))
        expected = var_s2 * experiment**2 + ridge["variants"][variant]["noise_variance"]
        assert float(reproduced) == pytest.approx(expected, abs=1e-3)
    assert seen == {(e, v) for e in ridge["experiments"] for v in ridge["variants"]}

    # The verdicts as data: one row per (experiment, claim, reading), one primary per claim.
    verdicts = pd.read_csv(tiny_run / "results/verdicts.csv")
    assert set(verdicts["verdict"]) <= set(VERDICTS)
    assert set(verdicts["robustness"]) <= {"robust", "fragile", "single"}
    assert (verdicts["scale"] == tiny["scale"]).all()
    primaries = verdicts[verdicts["primary"]].groupby(["experiment", "claim_id"]).size()
    assert (primaries == 1).all(), primaries[primaries != 1]
    best = verdicts[verdicts["claim_id"] == "best_constant_mse"]
    # Closed form, within the 2% tolerance of config/paper_reference.yaml (about 1.1% off).
    assert set(best["verdict"]) == {"reproduced"} and best["n_repetitions"].isna().all()
    # Every claim has a kind; a claim judged over repetitions states its test, its interval
    # and its stability, and no detail states another verdict than its row.
    assert set(verdicts["kind"]) <= set(KINDS)
    judged = verdicts[verdicts["n_repetitions"].notna() & (verdicts["kind"] != "identity")]
    assert judged["test"].notna().all(), judged[judged["test"].isna()][["experiment", "claim_id"]]
    # (no stability where the tiny grid holds none of a claim's settings, e.g. a claim on
    # more partitions than the tiny run makes, or a reading has fewer than two repetitions:
    # nothing to resample)
    assert judged["stability"].dropna().between(0, 1).all()
    assert "min_repetitions" not in verdicts.columns
    disagreements = [
        (row.experiment, row.claim_id, row.protocol)
        for row in verdicts.itertuples(index=False)
        if detail_disagreements(row)
    ]
    assert not disagreements

    provenance = json.loads((tiny_run / "results/provenance.json").read_text(encoding="utf-8"))
    assert provenance["scale"] == tiny["scale"]
    assert {"commit", "dirty", "config_sha256", "versions", "date"} <= set(provenance)
    assert report.index("## Provenance") < report.index("## Scorecard") < report.index("Ridge")


@pytest.mark.slow
def test_tiny_run_console_is_readable(tiny_run):
    """No "Shell command: None" for script rules; job log lines name their job."""
    console = console_file(tiny_run).read_text(encoding="utf-8")
    assert "Shell command: None" not in console
    labelled = re.findall(r" INFO (ridge_fit\[variant=\w+, experiment=\d\]): done in ", console)
    assert len(set(labelled)) == n_ridge_fits(load_yaml(TINY_CONFIG)), console
    assert re.search(r" INFO ridge_summary: done in ", console), console


@pytest.mark.slow
def test_failed_job_shows_its_log_and_a_retry_recovers(tiny_run, tmp_path, monkeypatch):
    """The first attempt of every ridge_fit job fails (test-only hook): without retries the
    run stops and shows the failing job's log path and its lines; with one retry it completes
    with the same numbers as an undisturbed run."""
    fail_once(monkeypatch, tmp_path / "markers", "ridge_fit")
    failing = tmp_path / "failing"
    failing.mkdir()
    result = snakemake("ridge", workdir=failing, config=TINY_CONFIG)
    out = result.stdout
    assert result.returncode != 0, out
    log = re.search(r"log: (results/logs/ridge/fit/\w+/experiment-\d\.log)", out)
    assert log, out
    assert f"Logfile {log.group(1)}:" in out, out
    assert re.search(r"ERROR ridge_fit\[variant=\w+, experiment=\d\]: job failed", out), out
    assert "RuntimeError: injected failure of ridge_fit" in out, out

    fail_once(monkeypatch, tmp_path / "markers_retry", "ridge_fit")
    retried = tmp_path / "retried"
    retried.mkdir()
    out = ok(snakemake("ridge", "--retries", "1", workdir=retried, config=TINY_CONFIG))
    assert len(list((tmp_path / "markers_retry").glob("ridge_fit.*"))) == n_ridge_fits(
        load_yaml(TINY_CONFIG)
    ), out
    for path in ["results/tables/ridge.csv", "results/ridge/ridge.csv"]:
        assert (retried / path).read_bytes() == (tiny_run / path).read_bytes(), path


# --------------------------------------------------------------------------- rerun granularity


@pytest.mark.slow
@pytest.mark.parametrize("how", ["whole-config", "configfile-overlay", "config-option"])
def test_ridge_parameter_reruns_only_ridge(tiny_run, tiny, tmp_path, how):
    """Changing ridge.n_repetitions reruns ridge_fit and what depends on it, nothing else,
    whether the change comes as a whole config, a partial overlay or `--config` (README)."""
    n_repetitions = tiny["ridge"]["n_repetitions"] + 1
    if how == "whole-config":
        changed = copy.deepcopy(tiny)
        changed["ridge"]["n_repetitions"] = n_repetitions
        config = write_yaml(tmp_path / "changed.yaml", changed)
        out = ok(snakemake("-n", workdir=tiny_run, config=config))
    elif how == "configfile-overlay":
        overlay = write_yaml(tmp_path / "overlay.yaml", {"ridge": {"n_repetitions": n_repetitions}})
        args = ("-n", "--replace-workflow-config", "--configfile", str(TINY_CONFIG), str(overlay))
        out = ok(snakemake(*args, workdir=tiny_run))
    else:
        override = f'ridge={{"n_repetitions": {n_repetitions}}}'
        out = ok(snakemake("-n", "--config", override, workdir=tiny_run, config=TINY_CONFIG))
    stats = job_stats(out)
    assert set(stats) == RIDGE_RULES | {"report", "all"}, out
    assert stats["ridge_fit"] == n_ridge_fits(tiny), stats
    assert "Params have changed" in out, out


# --------------------------------------------------------------------------- schema


def test_config_option_overrides_a_nested_key():
    """The README's `snakemake ridge --config 'ridge={"n_repetitions": 5}'`: the nested value
    arrives as a string and is read as the schema's integer; only ridge jobs are planned."""
    out = ok(snakemake("-n", "--forceall", "ridge", "--config", 'ridge={"n_repetitions": 5}'))
    assert set(job_stats(out)) == RIDGE_RULES | {"ridge"}, out


@pytest.mark.parametrize(
    ("override", "patterns"),
    [
        ('ridge={"n_repetitions": abc}', ["n_repetitions", "'abc' is not of type 'integer'"]),
        ('ridge={"partition": {"low": low}}', [r"\['partition'\]\['low'\]", "'low'"]),
        ('ridge={"gammas": [0, 1.5]}', ["gammas", r"1\.5 is greater than the maximum of 1"]),
        # Used to run every ridge fit and fail in ridge_summary (KeyError: needs γ = 0 and 1).
        (
            'ridge={"gammas": [0.5], "n_repetitions": 2}',
            [r"ridge\.gammas = \[0\.5\] must contain 0 and 1"],
        ),
    ],
    ids=["not-an-integer", "nested-not-a-number", "out-of-range", "ridge-gammas-without-ends"],
)
def test_config_option_with_a_bad_value_is_refused_naming_the_key(override, patterns, tmp_path):
    result = snakemake("-n", "ridge", "--config", override, workdir=tmp_path, cores=1)
    out = result.stdout
    assert result.returncode != 0, out
    assert "Job stats:" not in out, out
    for pattern in patterns:
        assert re.search(pattern, out), f"{pattern!r} not in the output:\n{out}"


def _typo_in_ridge(config):
    config["ridge"]["n_repetitons"] = config["ridge"].pop("n_repetitions")
    return ["n_repetitons"]


def _gamma_above_one(config):
    config["ridge"]["gammas"] = [0.0, 0.5, 1.5]
    return ["gammas", r"(?<![\d.])1\.5(?!\d)"]


def _negative_size(config):
    config["ridge"]["n_train"] = -7
    return ["n_train", r"(?<![\d.])-7(?!\d)"]


def _lambda_min_above_max(config):
    config["ridge"]["variants"]["paper_text"]["log2_lambda_min"] = 7
    return [r"ridge\.variants\.paper_text\.log2_lambda_min = 7", r"log2_lambda_max = 5"]


# Every refusal in a dry run.
@pytest.mark.parametrize(
    ("break_config", "dry_run"),
    [
        (_typo_in_ridge, True),
        (_gamma_above_one, True),
        (_negative_size, True),
        (_lambda_min_above_max, True),
    ],
    ids=["typo", "gamma-1.5", "negative-size", "lambda-min>max"],
)
def test_invalid_config_is_rejected_before_any_job(break_config, dry_run, tiny, tmp_path):
    assert_rejected_before_any_job(break_config, dry_run, tiny, tmp_path)
