"""Verdict records of the Adult study (§7.1, Table 1) from small synthetic run rows, and
its Table-1 relative β."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from krepro.studies.adult.readings import readings
from krepro.studies.adult.report import adult_section, adult_verdicts
from krepro.studies.adult.run import METHODS as ADULT_METHODS
from krepro.studies.adult.tables import adult_table1
from krepro.studies.verdicts import INCONCLUSIVE, NOT_REPRODUCED, PARTLY, REPRODUCED

REFERENCE = yaml.safe_load(
    (Path(__file__).parents[3] / "config" / "paper_reference.yaml").read_text(encoding="utf-8")
)["oblivious"]


STUDENT_CLAIMS = ("oblivious_smallest_beta", "oblivious_smallest_true_error")


def _by_claim(verdicts, protocol=None):
    return {v.claim_id: v for v in verdicts if protocol is None or v.protocol == protocol}


# ------------------------------------------------------------------------------ Adult

# The paper's Table 1 as measured rows (error, DEO, e_β).
PAPER_ROWS = {
    entry["method"]: (entry["mean_prediction_error"], entry["deo"], entry["beta"])
    for entry in REFERENCE["adult"]["table1"]
}
# Per-split noise (sd of error, DEO, e_β) small enough that a one-run interval of 10 splits
# is well inside every max_width, and large enough to be a real interval.
NOISE = (0.002, 0.004, 0.002)
N_RESAMPLES = 20  # bootstrap stability: enough to exercise it, cheap enough for a unit test
VARIANTS = {
    "cv_misaligned": {"method": "ferm_rbf_misaligned", "protocol": "reference", "grid": "paper"},
    "gender_kept": {"method": "oblivious_rbf_gender", "protocol": "reference", "grid": "paper"},
}


def adult_runs(rows_by_grid, n_splits=10, protocol="reference", positive_rate=0.2, noise=NOISE):
    """Per-split run rows: ``rows_by_grid`` maps grid → {method: (error, DEO, e_β)}."""
    rng = np.random.default_rng(1)
    out = []
    for grid, rows in rows_by_grid.items():
        for split in range(n_splits):
            for method, (error, deo, beta) in rows.items():
                kernel = ADULT_METHODS[method][1]
                e = np.asarray(noise) * rng.standard_normal(3)
                out.append(
                    {
                        "protocol": protocol,
                        "grid": grid,
                        "split": split,
                        "method": method,
                        "kernel": kernel,
                        "test_error": error + e[0],
                        "deo": abs(deo + e[1]),
                        "beta": abs(beta + e[2]),
                        "positive_rate": positive_rate,
                        "C": 1.0,
                        "gamma": 0.1 if kernel == "rbf" else np.nan,
                        "cv_accuracy": 0.8,
                        "n_train": 1628,
                        "n_test": 12661,
                        "cpu_seconds": 1.0,
                    }
                )
    return pd.DataFrame(out)


def _readings(runs, primary_grid="paper", variants=None):
    """The study's readings of the protocol ``reference`` on the grids of ``runs``."""
    settings = {
        "protocols": {"reference": {}},
        "run_grids": list(dict.fromkeys(runs["grid"])),
        "primary_protocol": "reference",
        "primary_grid": primary_grid,
        "n_splits": int(runs["split"].nunique()),
        "variants": variants or {},
    }
    return readings(settings)


def _adult(runs, primary_grid="paper", variants=None):
    return adult_verdicts(
        runs,
        REFERENCE["adult"],
        _readings(runs, primary_grid, variants),
        scale="test",
        variants=variants,
        n_resamples=N_RESAMPLES,
    )


def test_adult_paper_numbers_are_reproduced_over_splits():
    verdicts = _adult(adult_runs({"paper": PAPER_ROWS}))
    assert {v.claim_id for v in verdicts} == set(REFERENCE["adult"]["claims"])
    for v in verdicts:
        assert v.verdict == REPRODUCED, (v.claim_id, v.detail)
        assert (v.protocol, v.primary, v.n_repetitions) == ("reference/paper", True, 10)
        assert v.stability is not None


def test_adult_svm_rows_have_no_relative_beta_part():
    """Relative e_β of an SVM row is 100 % by definition: not a part, so it cannot count."""
    rows = {**PAPER_ROWS, "svm_linear": (0.20, 0.05, 0.20)}  # e_β far off the paper's 0.06
    verdict = _by_claim(_adult(adult_runs({"paper": rows})))["row_svm_linear"]
    assert verdict.verdict == PARTLY
    assert "relative_beta" not in verdict.detail.split("Deciding")[0]
    assert "100 % by definition" in verdict.detail


def test_adult_row_far_from_the_paper_is_not_reproduced_and_partly_needs_parts():
    rows = {**PAPER_ROWS, "ferm_rbf": (0.25, 0.30, 0.30)}  # every part off, relative too
    verdict = _by_claim(_adult(adult_runs({"paper": rows})))["row_ferm_rbf"]
    assert verdict.verdict == NOT_REPRODUCED
    rows = {**PAPER_ROWS, "ferm_rbf": (0.17, 0.30, 0.16)}  # only DEO off
    verdict = _by_claim(_adult(adult_runs({"paper": rows})))["row_ferm_rbf"]
    assert verdict.verdict == PARTLY
    assert "Deciding part (deo)" in verdict.detail


def test_adult_noisy_row_is_inconclusive_and_no_repetitions_would_decide():
    """A one-run interval wider than max_width: a single split cannot stand for Table 1's
    two-decimal value, however many splits are run."""
    verdict = _by_claim(_adult(adult_runs({"paper": PAPER_ROWS}, noise=(0.002, 0.04, 0.002))))
    row = verdict["row_oblivious_rbf"]
    assert row.verdict == INCONCLUSIVE
    assert "No number of repetitions would decide it" in row.detail


def test_adult_caption_reductions_outside_the_tolerance_are_not_reproduced():
    """Both reductions positive but both far from 67 % / 57 %: not reproduced (the old
    check said "partly")."""
    svm_l, svm_r = PAPER_ROWS["svm_linear"][2], PAPER_ROWS["svm_rbf"][2]
    rows = {
        **PAPER_ROWS,
        "oblivious_linear": (0.21, 0.05, 0.90 * svm_l),
        "oblivious_rbf": (0.19, 0.03, 0.90 * svm_r),
    }
    claim = _by_claim(_adult(adult_runs({"paper": rows})))["oblivious_reduces_beta"]
    assert claim.verdict == PARTLY  # error increase holds, both reductions contradicted
    assert "linear e_β reduction" in claim.detail and "contradicted" in claim.detail
    rows["oblivious_linear"] = (0.30, 0.05, 0.90 * svm_l)
    rows["oblivious_rbf"] = (0.30, 0.03, 0.90 * svm_r)
    claim = _by_claim(_adult(adult_runs({"paper": rows})))["oblivious_reduces_beta"]
    assert claim.verdict == NOT_REPRODUCED
    rows = {**PAPER_ROWS, "oblivious_linear": (0.21, 0.05, 0.79 * svm_l)}  # 21 % vs 67 %
    claim = _by_claim(_adult(adult_runs({"paper": rows})))["oblivious_reduces_beta"]
    assert claim.verdict == PARTLY
    assert float(claim.measured.split("%")[0]) == pytest.approx(21, abs=3)


def test_adult_constant_classifier_cannot_reproduce_a_fairness_claim():
    runs = adult_runs({"paper": PAPER_ROWS})
    rbf = runs["method"] == "oblivious_rbf"
    runs.loc[rbf, ["deo", "beta", "positive_rate"]] = 0.0
    verdicts = _by_claim(_adult(runs))
    for claim in ("oblivious_lowest_deo_rbf", "oblivious_reduces_beta", "row_oblivious_rbf"):
        assert verdicts[claim].verdict == INCONCLUSIVE, claim
        assert "one class" in verdicts[claim].detail
    assert verdicts["ferm_lowest_deo_linear"].verdict == REPRODUCED


def test_adult_ranking_is_a_holm_family_of_paired_differences():
    """A DEO lead inside the printed precision is not a ranking; a clear lead is, and with
    two splits the interval is too wide to decide."""
    tied = {**PAPER_ROWS, "svm_linear": (0.20, PAPER_ROWS["ferm_linear"][1] + 0.002, 0.06)}
    claim = _by_claim(_adult(adult_runs({"paper": tied})))["ferm_lowest_deo_linear"]
    assert claim.verdict == NOT_REPRODUCED
    assert claim.family_size == 2 and "Holm" in claim.detail
    claim = _by_claim(_adult(adult_runs({"paper": PAPER_ROWS}, n_splits=2)))
    assert claim["oblivious_lowest_deo_rbf"].verdict in (REPRODUCED, INCONCLUSIVE)
    few = _by_claim(_adult(adult_runs({"paper": tied}, n_splits=2, noise=(0.002, 0.02, 0.002))))[
        "ferm_lowest_deo_linear"
    ]
    assert few.verdict == INCONCLUSIVE
    assert "repetitions" in few.detail


def test_adult_ferm_raises_beta_and_lowers_deo():
    verdicts = _by_claim(_adult(adult_runs({"paper": PAPER_ROWS})))
    assert verdicts["ferm_raises_beta"].verdict == REPRODUCED
    assert verdicts["ferm_raises_beta"].kind == "implied claim"
    assert verdicts["ferm_rbf_lower_deo"].verdict == REPRODUCED
    lower = {
        **PAPER_ROWS,
        "ferm_linear": (0.20, 0.03, 0.05),
        "ferm_rbf": (0.17, 0.23, 0.12),
    }
    verdicts = _by_claim(_adult(adult_runs({"paper": lower})))
    assert verdicts["ferm_raises_beta"].verdict == NOT_REPRODUCED
    assert verdicts["ferm_rbf_lower_deo"].verdict == NOT_REPRODUCED


def test_adult_variant_readings_judge_only_the_claims_of_their_row():
    rows = {
        **PAPER_ROWS,
        "ferm_rbf": (0.17, 0.09, 0.15),
        "ferm_rbf_misaligned": (0.168, 0.124, 0.158),
        "oblivious_rbf_gender": (0.179, 0.096, 0.103),
    }
    verdicts = _adult(adult_runs({"paper": rows}), variants=VARIANTS)
    misaligned = _by_claim(verdicts, "reference/paper+cv_misaligned")
    assert set(misaligned) == {
        "row_ferm_rbf",
        "oblivious_lowest_deo_rbf",
        "ferm_raises_beta",
        "ferm_rbf_lower_deo",
    }
    assert misaligned["row_ferm_rbf"].verdict == REPRODUCED
    assert not any(v.primary for v in misaligned.values())
    assert _by_claim(verdicts, "reference/paper")["row_ferm_rbf"].verdict != REPRODUCED
    gender = _by_claim(verdicts, "reference/paper+gender_kept")
    assert gender["row_oblivious_rbf"].verdict == PARTLY
    assert "gender in X" in gender["row_oblivious_rbf"].detail
    for claim in REFERENCE["adult"]["claims"]:
        assert sum(v.primary for v in verdicts if v.claim_id == claim) == 1


def test_adult_best_of_grids_trap():
    """SVM (RBF) matches the paper only under the repository grid: the primary (stated grid)
    keeps its own verdict, the repository reading its own; nothing is merged."""
    stated = {**PAPER_ROWS, "svm_rbf": (0.175, 0.124, 0.152)}
    verdicts = _adult(adult_runs({"paper": stated, "repository": PAPER_ROWS}))
    rows = [v for v in verdicts if v.claim_id == "row_svm_rbf"]
    assert len(rows) == 2
    primary = next(v for v in rows if v.primary)
    other = next(v for v in rows if not v.primary)
    assert (primary.protocol, other.protocol) == ("reference/paper", "reference/repository")
    assert primary.verdict in (PARTLY, NOT_REPRODUCED)
    assert other.verdict == REPRODUCED


def test_adult_claim_without_its_methods_is_inconclusive():
    rows = {m: v for m, v in PAPER_ROWS.items() if m != "ferm_linear"}
    verdicts = _by_claim(_adult(adult_runs({"paper": rows})))
    assert verdicts["row_ferm_linear"].verdict == INCONCLUSIVE
    assert verdicts["row_ferm_linear"].detail.startswith("Reading reference/paper: the runs")
    assert verdicts["row_ferm_linear"].n_repetitions is None
    assert verdicts["ferm_lowest_deo_linear"].verdict == INCONCLUSIVE
    assert verdicts["ferm_raises_beta"].verdict == REPRODUCED  # the RBF kernel alone


def test_adult_paper_values_come_from_the_reference():
    """Table 1's numbers are read from config/paper_reference.yaml, never typed."""
    verdicts = _by_claim(_adult(adult_runs({"paper": PAPER_ROWS})))
    assert verdicts["ferm_raises_beta"].paper_value == "116 %, 114 % (e_β +0.01, +0.02)"
    assert verdicts["ferm_rbf_lower_deo"].paper_value == "0.12 < 0.22"
    reference = {**REFERENCE["adult"], "table1": [dict(e) for e in REFERENCE["adult"]["table1"]]}
    next(e for e in reference["table1"] if e["method"] == "ferm_rbf")["deo"] = 0.1
    runs = adult_runs({"paper": PAPER_ROWS})
    record = _by_claim(adult_verdicts(runs, reference, _readings(runs), scale="test"))
    assert record["ferm_rbf_lower_deo"].paper_value == "0.1 < 0.22"


def test_adult_variant_reading_without_its_method_and_missing_primary():
    """A variant reading whose method did not run has no records; the primary must run."""
    runs = adult_runs({"paper": PAPER_ROWS})
    verdicts = _adult(runs, variants=VARIANTS)
    assert {v.protocol for v in verdicts} == {"reference/paper"}
    assert all(v.primary for v in verdicts)
    with pytest.raises(ValueError, match="primary"):
        _adult(runs, primary_grid="repository")


def test_adult_exact_ferm_row_has_no_verdict_and_changes_none():
    """The FERM exact rows (no paper value) are listed beyond Table 1; every verdict stays
    what it is without them, even when the exact row would beat every DEO."""
    extra = {"ferm_rbf_exact": (0.17, 0.0, 0.15), "ferm_linear_exact": (0.20, 0.0, 0.06)}
    without = _adult(adult_runs({"paper": PAPER_ROWS}))
    runs = adult_runs({"paper": {**PAPER_ROWS, **extra}})
    with_exact = _adult(runs)
    assert [(v.claim_id, v.verdict) for v in with_exact] == [
        (v.claim_id, v.verdict) for v in without
    ]
    table = adult_table1(runs)
    exact = table.set_index("method").loc["ferm_rbf_exact"]
    assert exact["algorithm"] == "FERM exact (RBF)"
    assert exact["n_splits"] == 10 and exact["deo_se"] > 0
    section = adult_section(
        runs, REFERENCE["adult"], _readings(runs), scale="test", n_resamples=N_RESAMPLES
    )
    beyond = section.body.split("### Methods beyond Table 1")[1]
    assert "FERM exact (RBF)" in beyond and "FERM exact (Linear kernel)" in beyond
    assert "### Compute per split" in section.body


def test_adult_table1_relative_beta():
    runs = pd.DataFrame(
        {
            "protocol": "reference",
            "grid": "g",
            "method": ["svm_linear", "oblivious_linear"],
            "kernel": "linear",
            "test_error": [0.2, 0.21],
            "deo": [0.05, 0.05],
            "beta": [0.06, 0.02],
            "C": [1.0, 2.0],
            "gamma": [np.nan, np.nan],
            "cv_accuracy": [0.8, 0.8],
            "n_train": [1628, 814],
            "n_test": 12661,
            "cpu_seconds": 1.0,
        }
    )
    table = adult_table1(runs).set_index("method")
    assert table.loc["oblivious_linear", "relative_beta_percent"] == pytest.approx(100 / 3)
    assert table.loc["svm_linear", "relative_beta_percent"] == pytest.approx(100)
