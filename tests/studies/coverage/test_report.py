"""Coverage study report (krepro.studies.coverage.report): aggregates, verdicts, figures."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from krepro.studies.coverage.figures import plot_coverage, plot_coverage_heatmap, plot_rmse
from krepro.studies.coverage.readings import BANDS, readings
from krepro.studies.coverage.report import coverage_section, coverage_verdicts
from krepro.studies.coverage.tables import aggregate, table1_markdown, table1_wide
from krepro.studies.verdicts import Section

REPO = Path(__file__).resolve().parents[3]


# The claims of config/paper_reference.yaml (section coverage), inlined so that these tests
# do not depend on that file's other contents.
REFERENCE = {
    "values_note": "No values.",
    "setup": {
        "n_samples": {"value": 65536, "source": "text"},
        "n_repetitions": {"value": 2000, "source": "text"},
    },
    "claims": {
        "t_independence": {
            "text": "T-independence",
            "source": "s",
            "test": "equivalence",
            "margin": 0.01,
            "alpha": 0.05,
        },
        "nominal_above_128": {
            "text": "nominal for P > 128",
            "source": "s",
            "min_partitions": 256,
            "test": "equivalence",
            "margin": 0.02,
            "alpha": 0.05,
        },
        "below_nominal_up_to_128": {
            "kind": "implied claim",
            "text": "below for P <= 128",
            "source": "s",
            "alpha": 0.05,
            "parts": {
                "P_64": {"partitions": 64, "test": "superiority", "margin": 0.02},
                "P_128": {"partitions": 128, "test": "superiority", "margin": 0.02},
            },
        },
        "accuracy_declines": {
            "text": "accuracy declines for P >= 2048",
            "source": "s",
            "first_decline": 2048,
            "alpha": 0.05,
            "parts": {
                "no_decline": {"test": "non-inferiority", "margin": 0.25},
                "declines": {"test": "superiority", "margin": 0.0},
            },
        },
        "summary_wide_range": {
            "text": "wide range",
            "source": "s",
            "partitions": [256, 1024],
            "alpha": 0.05,
            "parts": {
                "coverage": {"test": "equivalence", "margin": 0.02},
                "accuracy": {"test": "non-inferiority", "margin": 0.25},
            },
        },
    },
}
BAND_CLAIMS = ("t_independence", "nominal_above_128", "below_nominal_up_to_128")
BAND_CLAIMS += ("summary_wide_range",)


def synthetic_runs(coverages, n_reps, mse=None, variant="a"):
    """Per-repetition table with exactly round(c n) covered repetitions per (P, T) cell.

    ``coverages`` maps (P, T) to a coverage; the covered repetitions are the first ones,
    so cells of one P are as strongly paired as possible. Squared errors have mean ``mse[P]``
    and vary between repetitions (a Gamma factor with coefficient of variation 0.5, drawn
    per P and shared by the T of a repetition).
    """
    rows = []
    for (p, t), coverage in coverages.items():
        covered = (np.arange(n_reps) < round(coverage * n_reps)).astype(int)
        factor = np.random.default_rng(p).gamma(4.0, 0.25, size=n_reps)
        rows.append(
            pd.DataFrame(
                {
                    "variant": variant,
                    "repetition": np.arange(n_reps),
                    "P": p,
                    "T": t,
                    "covered_percentile": covered,
                    "covered_basic": covered,
                    "squared_error": (mse or {}).get(p, 1e-3) * factor,
                    "tail_index": 5,
                    "bootstrap_coverage": 0.951,
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def test_aggregate_counts_intervals_bold_and_subsets():
    runs = synthetic_runs({(64, 2): 0.90, (256, 2): 0.95}, 2000, mse={64: 4e-4, 256: 9e-4})
    table = aggregate(runs, 0.95, subsets=(1000, 5000), rho={"a": 1e-7})
    assert sorted(table["n_reps"].unique()) == [1000, 2000]  # 5000 > 2000 is not a subset
    full = table[(table["n_reps"] == 2000) & (table["band"] == "percentile")].set_index("P")
    assert full.loc[64, "successes"] == 1800 and full.loc[64, "coverage"] == 0.9
    assert bool(full.loc[64, "bold"]) and not bool(full.loc[256, "bold"])
    assert full.loc[64, "wilson99_low"] < full.loc[64, "wilson95_low"] < 0.9
    assert full.loc[256, "rmse"] == pytest.approx(0.03, rel=0.05)
    assert (table["rho"] == 1e-7).all() and set(table["band"]) == set(BANDS)


# --------------------------------------------------------------------------- report


def test_table1_layout():
    runs = synthetic_runs({(64, 2): 0.90, (128, 2): 0.95, (64, 4): 0.95, (128, 4): 0.95}, 2000)
    table = aggregate(runs, 0.95, rho={"a": 1e-7})
    wide = table1_wide(table, "a", "percentile")
    assert list(wide.columns) == ["T", "P = 64", "P = 128"]
    assert wide.loc[0, "P = 64"] == "**[.88, .92]**"
    assert wide.loc[0, "P = 128"] == "[.94, .96]"
    assert "## `a` (ρ = 1e-07)" in table1_markdown(table, "a")


GRID = [64, 128, 256, 512, 1024, 2048, 4096]
FLAT_THEN_RISING = {64: 4e-4, 128: 4e-4, 256: 4e-4, 512: 4.2e-4, 1024: 4.5e-4}
FLAT_THEN_RISING |= {2048: 8e-4, 4096: 2e-3}
# Coverage as the paper has it: below nominal for P <= 128, nominal above.
PAPER_LIKE = {(p, t): (0.90 if p <= 128 else 0.95) for p in GRID for t in (2, 8)}


def runs_readings(runs, primary="a"):
    """The readings of synthetic runs: every variant they hold, with its repetitions."""
    counts = runs.groupby("variant")["repetition"].nunique()
    variants = {variant: {"n_repetitions": int(n)} for variant, n in counts.items()}
    return readings({"primary_variant": primary, "variants": variants})


def section_verdicts(runs, primary="a", reference=REFERENCE):
    table = aggregate(runs, 0.95, rho={"a": 1e-7, "b": 5e-8})
    settings = {"n_samples": 65536, "n_repetitions": 2000, "confidence_level": 0.95}
    section = coverage_section(
        table, runs, reference, runs_readings(runs, primary), settings, scale="test"
    )
    assert isinstance(section, Section) and section.experiment == "coverage"
    records = {(v.claim_id, v.protocol): v for v in section.verdicts}
    assert len(records) == len(section.verdicts)  # one record per (claim, reading)
    return section, records


def _verdict(records, claim, variant, band=None):
    return records[claim, variant if band is None else f"{variant}, {band} band"].verdict


def test_every_claim_has_one_primary_reading():
    runs = pd.concat(
        [
            synthetic_runs(PAPER_LIKE, 900, FLAT_THEN_RISING),
            synthetic_runs(PAPER_LIKE, 900, FLAT_THEN_RISING, variant="b"),
        ]
    )
    _, records = section_verdicts(runs)
    by_claim = {}
    for record in records.values():
        by_claim.setdefault(record.claim_id, []).append(record)
    assert set(by_claim) == set(REFERENCE["claims"])
    for claim, group in by_claim.items():
        assert [r.protocol for r in group if r.primary] == (
            ["a"] if claim == "accuracy_declines" else ["a, percentile band"]
        )
        expected = 2 if claim == "accuracy_declines" else 2 * len(BANDS)
        assert len(group) == expected, claim
        assert all(r.n_repetitions == 900 and r.scale == "test" for r in group)
        assert all(r.paper == "coverage" and r.experiment == "coverage" for r in group)
        assert all(0 <= r.stability <= 1 and r.alpha is not None for r in group)
        # A claim with named parts states its tests per part ("part: test; ...").
        parted = "parts" in REFERENCE["claims"][claim]
        assert all(bool(r.test) and ((": " in r.test) == parted) for r in group)
    assert by_claim["below_nominal_up_to_128"][0].kind == "implied claim"


def test_report_reproduces_when_the_paper_holds():
    section, records = section_verdicts(synthetic_runs(PAPER_LIKE, 2000, FLAT_THEN_RISING))
    assert {v.verdict for v in records.values()} == {"reproduced"}, records
    assert "**no**" not in section.body  # the setup matches the paper's
    record = records["t_independence", "a, percentile band"]
    assert record.test == "equivalence" and record.family_size == len(GRID) * 2
    assert records["nominal_above_128", "a, percentile band"].family_size == 5 * 2  # P >= 256


def test_report_contradicts_departures_from_the_paper():
    coverages = {(p, t): 0.95 for p in GRID for t in (2, 8)}
    coverages[256, 2], coverages[256, 8] = 0.99, 0.90  # depends on T, off nominal at 256
    mse = dict.fromkeys(GRID, 4e-4) | {4096: 2e-3}  # declines only at 4096
    _, records = section_verdicts(synthetic_runs(coverages, 2000, mse))
    assert _verdict(records, "t_independence", "a", "percentile") == "not reproduced"
    assert _verdict(records, "nominal_above_128", "a", "percentile") == "not reproduced"
    assert _verdict(records, "below_nominal_up_to_128", "a", "percentile") == "not reproduced"
    # Named parts: flat below 2048 holds, the decline at 2048 is contradicted.
    assert _verdict(records, "accuracy_declines", "a") == "partly reproduced"
    detail = records["accuracy_declines", "a"].detail
    assert "no_decline: holds" in detail and "declines: contradicted" in detail
    # Coverage off nominal at P = 256, accuracy kept: partly.
    assert _verdict(records, "summary_wide_range", "a", "percentile") == "partly reproduced"


def test_partly_reproduced_names_its_parts():
    coverages = dict(PAPER_LIKE) | {(128, t): 0.95 for t in (2, 8)}  # nominal at P = 128
    _, records = section_verdicts(synthetic_runs(coverages, 2000, FLAT_THEN_RISING))
    record = records["below_nominal_up_to_128", "a, percentile band"]
    assert record.verdict == "partly reproduced"
    assert "P_64: holds" in record.detail and "P_128: contradicted" in record.detail


def test_accuracy_sacrifice_beyond_the_margin_contradicts_the_summary():
    mse = FLAT_THEN_RISING | {1024: 7e-4}  # RMSE x1.32 at P = 1024
    _, records = section_verdicts(synthetic_runs(PAPER_LIKE, 2000, mse))
    assert _verdict(records, "summary_wide_range", "a", "percentile") == "partly reproduced"
    assert "accuracy: contradicted" in records["summary_wide_range", "a, percentile band"].detail
    assert _verdict(records, "accuracy_declines", "a") == "partly reproduced"


def test_few_repetitions_are_inconclusive_and_say_how_many_would_decide():
    # 48 repetitions: the intervals are wide; no gate, the same data at 2000 decide.
    runs = synthetic_runs(PAPER_LIKE, 48, FLAT_THEN_RISING)
    _, records = section_verdicts(runs)
    for claim in BAND_CLAIMS:
        for band in BANDS:
            record = records[claim, f"a, {band} band"]
            assert record.verdict == "inconclusive", (claim, band)
            assert "would need about" in record.detail, (claim, record.detail)
    _, decided = section_verdicts(synthetic_runs(PAPER_LIKE, 2000, FLAT_THEN_RISING))
    for claim in BAND_CLAIMS:
        assert _verdict(decided, claim, "a", "percentile") == "reproduced"


def test_all_covered_cells_do_not_get_zero_width_intervals():
    # 40 of 40 repetitions covered: a t-interval of the indicators would be [1, 1] and
    # contradict "meets 0.95 within ±0.02"; the Agresti-Coull variance keeps it undecided.
    coverages = {(p, t): 1.0 for p in GRID for t in (2, 8)}
    _, records = section_verdicts(synthetic_runs(coverages, 40, FLAT_THEN_RISING))
    assert _verdict(records, "nominal_above_128", "a", "percentile") == "inconclusive"
    assert _verdict(records, "t_independence", "a", "percentile") == "inconclusive"


def test_claim_without_its_settings_is_inconclusive_not_contradicted():
    coverages = {(p, t): 0.90 for p in (64, 128) for t in (2, 8)}
    _, records = section_verdicts(synthetic_runs(coverages, 2000, FLAT_THEN_RISING))
    for claim in ("nominal_above_128", "summary_wide_range"):
        record = records[claim, "a, percentile band"]
        assert record.verdict == "inconclusive" and "none of the settings" in record.detail
    assert records["accuracy_declines", "a"].verdict == "inconclusive"
    assert _verdict(records, "below_nominal_up_to_128", "a", "percentile") == "reproduced"


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("n_reps", [1, 2])
def test_one_or_two_repetitions_are_inconclusive_without_warnings(n_reps):
    coverages = {(p, t): 0.9 for p in (8, 16, 32) for t in (2, 4, 8)}
    _, records = section_verdicts(synthetic_runs(coverages, n_reps))
    assert {v.verdict for v in records.values()} == {"inconclusive"}


def test_readings_are_judged_separately_never_best_of():
    # The basic band fails where the percentile band holds: each reading keeps its own
    # verdict, and the primary (percentile) is not improved or worsened by the other.
    runs = synthetic_runs(PAPER_LIKE, 2000, FLAT_THEN_RISING)
    runs.loc[runs["P"] >= 256, "covered_basic"] = (
        runs.loc[runs["P"] >= 256, "repetition"] < 0.90 * 2000
    ).astype(int)
    verdicts = coverage_verdicts(runs, REFERENCE, runs_readings(runs), 0.95, "test")
    records = {(v.claim_id, v.protocol): v for v in verdicts}
    assert records["nominal_above_128", "a, percentile band"].verdict == "reproduced"
    assert records["nominal_above_128", "a, percentile band"].primary
    assert records["nominal_above_128", "a, basic band"].verdict == "not reproduced"
    assert not records["nominal_above_128", "a, basic band"].primary


def test_figures_are_written(tmp_path):
    runs = pd.concat(
        [
            synthetic_runs({(p, t): 0.95 for p in (64, 128) for t in (2, 4)}, 100),
            synthetic_runs({(p, t): 0.9 for p in (64, 128) for t in (2, 4)}, 50, variant="b"),
        ]
    )
    table = aggregate(runs, 0.95, rho={"a": 1e-7, "b": 5e-8})
    plot_coverage_heatmap(table, tmp_path / "fig1.png", "a")
    plot_coverage(table, tmp_path / "lines.png", "a")
    plot_rmse(table, tmp_path / "rmse.png", "a")
    for name in ("fig1.png", "lines.png", "rmse.png"):
        assert (tmp_path / name).stat().st_size > 10_000


def test_paper_reference_section_has_what_the_report_needs():
    with open(REPO / "config" / "paper_reference.yaml", encoding="utf-8") as handle:
        reference = yaml.safe_load(handle)
    section = reference["coverage"]
    assert "min_repetitions" not in section
    for claim, params in REFERENCE["claims"].items():
        entry = section["claims"][claim]
        assert "min_repetitions" not in entry and "paper_value" in entry, claim
        assert set(params) <= set(entry), claim
        for part, spec in params.get("parts", {}).items():
            assert set(spec) <= set(entry["parts"][part]), (claim, part)
    claims = section["claims"]
    # The same 25 % both ways: a significant sacrifice is one that counts as a decline.
    assert (
        claims["accuracy_declines"]["parts"]["no_decline"]["margin"]
        == claims["summary_wide_range"]["parts"]["accuracy"]["margin"]
    )
    assert {"value", "source"} <= set(section["setup"]["n_samples"])
