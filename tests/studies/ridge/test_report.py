"""Verdict logic of the paper-vs-reproduced comparison, on constructed tables."""

import itertools

import numpy as np
import pandas as pd
import yaml

from krepro.stats import paired_differences
from krepro.studies.readings import Reading
from krepro.studies.ridge.readings import readings
from krepro.studies.ridge.report import ridge_section, ridge_verdicts
from krepro.studies.ridge.tables import aggregate, best_constant_table
from krepro.studies.tables import markdown_table
from krepro.studies.verdicts import INCONCLUSIVE

REFERENCE = yaml.safe_load(open("config/paper_reference.yaml", encoding="utf-8"))["oblivious"][
    "ridge"
]
VARIANTS = {"paper_text": {"noise_variance": 0.1}}
PARTITION = {"low": -5.0, "high": 5.0}
SETTINGS = {
    "primary_variant": "paper_text",
    "variants": VARIANTS,
    "n_repetitions": 20,
    "n_test": 100,
    "n_estimation": 500,
    "partition": PARTITION | {"cells_per_axis": 16},
}
GAMMAS = (0.0, 0.2, 0.5, 0.8, 1.0)


def _runs(mean, n_reps=20, noise=0.5, seed=0, variant="paper_text"):
    """Tidy runs with test MSE = mean(experiment, γ, method) + small noise."""
    rng = np.random.default_rng(seed)
    rows = []
    for experiment, gamma, rep in itertools.product((1, 2), GAMMAS, range(n_reps)):
        shared = rng.normal(scale=noise)  # paired: the same test set for every method
        for method in ("KRR", "ORR", "M-ORR"):
            rows.append(
                {
                    "variant": variant,
                    "experiment": experiment,
                    "gamma": gamma,
                    "repetition": rep,
                    "method": method,
                    "test_mse": mean(experiment, gamma, method)
                    + shared
                    + rng.normal(scale=0.1 * noise),
                }
            )
    return pd.DataFrame(rows)


def _paper_like(experiment, gamma, method):
    constant = {1: 55.66, 2: 222.32}[experiment]
    krr = 0.1 if experiment == 1 else 0.1 + 55.6 * gamma
    orr = krr + (constant - krr) * (1 - gamma) + (1.5 if experiment == 1 else 0.0)
    gap = 5.0 if (experiment == 2 and 0.2 <= gamma <= 0.8) else 0.0
    return {"KRR": krr, "ORR": orr, "M-ORR": orr + gap}[method]


def _section(runs):
    table = aggregate(runs)
    constants = best_constant_table(VARIANTS, PARTITION)
    return ridge_section(
        table, runs, constants, REFERENCE, SETTINGS, readings=readings(SETTINGS), scale="test"
    )


def _verdict(section, claim_id):
    (record,) = [v for v in section.verdicts if v.claim_id == claim_id]
    return record.verdict


CLAIMS = (
    "best_constant_mse",
    "krr_best",
    "close_to_best_constant",
    "orr_at_most_morr",
    "morr_gap_experiment_2",
    "morr_equals_orr_experiment_1",
    "approach_krr",
)


def test_paper_like_results_are_reproduced():
    section = _section(_runs(_paper_like, noise=0.05))
    for claim_id in CLAIMS:
        assert _verdict(section, claim_id) == "reproduced", claim_id
    records = {v.claim_id: v for v in section.verdicts}
    assert records["krr_best"].n_repetitions == 20
    assert records["krr_best"].test == "non-inferiority"
    assert records["krr_best"].family_size == 2 * len(GAMMAS) * 2
    assert records["krr_best"].ci_low > -records["krr_best"].margin
    assert records["krr_best"].stability == 1.0
    assert records["best_constant_mse"].kind == "identity"
    assert records["best_constant_mse"].n_repetitions is None
    assert records["best_constant_mse"].paper_value == "56.2; 224.8"
    assert records["orr_at_most_morr"].kind == "implied claim"
    assert all(v.protocol == "paper_text" and v.primary for v in section.verdicts)
    assert "| 1 | paper_text | 56.2 | 55.656 | -1.0% | ±2% |" in section.body


def test_few_repetitions_widen_intervals_instead_of_gating():
    section = _section(_runs(_paper_like, n_reps=3, noise=10.0))
    records = {v.claim_id: v for v in section.verdicts}
    assert records["best_constant_mse"].verdict == "reproduced"  # closed form: no repetitions
    for claim_id in ("close_to_best_constant", "morr_equals_orr_experiment_1"):
        record = records[claim_id]
        assert record.verdict == INCONCLUSIVE, claim_id
        assert "repetitions at the observed variance" in record.detail, claim_id
    # No repetition gate: the record rests on 3 repetitions, its interval says the rest.
    wide = records["krr_best"]
    assert wide.n_repetitions == 3


def test_contradicting_results_are_not_reproduced():
    def krr_worst(experiment, gamma, method):
        return _paper_like(experiment, gamma, method) + (500.0 if method == "KRR" else 0.0)

    section = _section(_runs(krr_worst, noise=0.05))
    assert _verdict(section, "krr_best") == "not reproduced"

    def no_gap_reversed(experiment, gamma, method):
        value = _paper_like(experiment, gamma, "ORR")
        return value * 0.8 if method == "M-ORR" else _paper_like(experiment, gamma, method)

    section = _section(_runs(no_gap_reversed, noise=0.05))
    assert _verdict(section, "morr_gap_experiment_2") == "not reproduced"
    assert _verdict(section, "orr_at_most_morr") == "not reproduced"
    assert _verdict(section, "morr_equals_orr_experiment_1") == "not reproduced"


def test_gap_within_noise_is_inconclusive_and_says_how_many_repetitions_would_decide():
    def small_gap(experiment, gamma, method):
        value = _paper_like(experiment, gamma, "ORR")
        bump = 0.5 if (method == "M-ORR" and experiment == 2 and 0.2 <= gamma <= 0.8) else 0.0
        return value + bump if method != "KRR" else _paper_like(experiment, gamma, "KRR")

    # Unpaired noise of sd 5 per method hides a gap of 0.5 with 20 repetitions.
    runs = _runs(small_gap, n_reps=20, noise=0.0)
    rng = np.random.default_rng(2)
    runs["test_mse"] += rng.normal(scale=5.0, size=len(runs))
    section = _section(runs)
    (record,) = [v for v in section.verdicts if v.claim_id == "morr_gap_experiment_2"]
    assert record.verdict == "inconclusive"
    assert record.ci_low < 0 < record.ci_high
    assert "A decisive verdict would need about" in record.detail


def test_claim_without_its_settings_is_inconclusive_not_contradicted():
    runs = _runs(_paper_like, noise=0.05)
    runs = runs[(runs["gamma"] < 0.2) | (runs["gamma"] > 0.8)]  # no γ in [0.2, 0.8]
    section = _section(runs)
    (record,) = [v for v in section.verdicts if v.claim_id == "morr_gap_experiment_2"]
    assert record.verdict == "inconclusive"
    assert "none of the settings" in record.detail


def test_paired_differences_and_markdown_table():
    runs = _runs(_paper_like, n_reps=5)
    diff = paired_differences(runs, "paper_text", 2, "ORR", "M-ORR").set_index("gamma")
    np.testing.assert_allclose(diff.loc[0.5, "mean"], 5.0, atol=0.2)
    assert diff.loc[0.5, "n"] == 5
    text = markdown_table(pd.DataFrame({"a": [1.23456, 2.0], "b": ["x", "y"]}))
    assert text.splitlines() == ["| a | b |", "| --- | --- |", "| 1.235 | x |", "| 2 | y |"]


def test_verdicts_one_record_per_claim_and_reading_in_the_tables_order():
    """``ridge_verdicts`` without the section: every claim under each variant the tables
    hold (by name), the primary one flagged; a reading without runs is not judged."""
    variants = {"paper_text": {"noise_variance": 0.1}, "authors_code": {"noise_variance": 0.01}}
    runs = pd.concat(
        [_runs(_paper_like, noise=0.05, variant=name) for name in variants], ignore_index=True
    )
    settings = SETTINGS | {"variants": variants}
    declared = [*readings(settings), Reading("unrun", {"variant": "unrun"}, False, 20)]
    records = ridge_verdicts(
        aggregate(runs),
        runs,
        best_constant_table(variants, PARTITION),
        REFERENCE,
        settings,
        readings=declared,
        scale="test",
    )
    assert [r.protocol for r in records] == ["authors_code"] * len(CLAIMS) + ["paper_text"] * len(
        CLAIMS
    )
    assert [r.claim_id for r in records[: len(CLAIMS)]] == list(CLAIMS)
    assert [r.primary for r in records] == [False] * len(CLAIMS) + [True] * len(CLAIMS)
    paper_text = {r.claim_id: r for r in records if r.protocol == "paper_text"}
    assert paper_text["krr_best"].verdict == "reproduced"
    assert paper_text["best_constant_mse"].n_repetitions is None
    assert {r.n_repetitions for r in records if r.claim_id != "best_constant_mse"} == {20}
