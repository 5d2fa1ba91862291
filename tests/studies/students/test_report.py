"""Verdict records of the students study (§7.1) from small synthetic aggregates."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from krepro.studies.students.readings import readings
from krepro.studies.students.report import students_verdicts
from krepro.studies.verdicts import INCONCLUSIVE, NOT_REPRODUCED, PARTLY, REPRODUCED

REFERENCE = yaml.safe_load(
    (Path(__file__).parents[3] / "config" / "paper_reference.yaml").read_text(encoding="utf-8")
)["oblivious"]
C_SELECTIONS = {
    "cv": {
        "rule": "cross_validation",
        "log2_C_min": -4,
        "log2_C_max": 4,
        "methods": ["linear_svm", "linear_ferm", "oblivious_svm"],
        "variants": ["paper", "authors_code"],
    },
    "test_set": {
        "rule": "test_set",
        "log2_C_min": 16,
        "log2_C_max": 19,
        "methods": ["oblivious_svm"],
        "variants": ["authors_code"],
    },
}
# Paper-like students results: the oblivious SVM independent of S, worst on the observed
# labels and best on the fair ones.
STUDENTS_GOOD = {
    "linear_svm": {
        "beta": 0.8,
        "error_observed": 0.25,
        "error_true": 0.45,
        "positive_rate": 0.43,
    },
    "linear_ferm": {
        "beta": 0.5,
        "error_observed": 0.26,
        "error_true": 0.47,
        "positive_rate": 0.37,
    },
    "oblivious_svm": {
        "beta": 0.02,
        "error_observed": 0.30,
        "error_true": 0.30,
        "positive_rate": 0.25,
    },
}


def students_runs(n_repetitions, readings=(("paper", "cv"),), overrides=None, noise=0.005):
    """Tidy runs with repetition noise around STUDENTS_GOOD (``overrides`` per method)."""
    rng = np.random.default_rng(0)
    rows = []
    for variant, c_selection in readings:
        for method, values in STUDENTS_GOOD.items():
            values = {**values, **(overrides or {}).get(method, {})}
            for repetition in range(n_repetitions):
                draw = noise * rng.standard_normal(4)
                rows.append(
                    {
                        "variant": variant,
                        "c_selection": c_selection,
                        "repetition": repetition,
                        "method": method,
                        "error_observed": values["error_observed"] + draw[3],
                        "error_true": values["error_true"] + draw[0],
                        "beta": max(values["beta"] + draw[1], 0.0),
                        "deo": 0.1,
                        "positive_rate": min(max(values["positive_rate"] + draw[2], 0), 1),
                    }
                )
    return pd.DataFrame(rows)


def _readings(primary="paper/cv"):
    variant, c_selection = primary.split("/")
    settings = {
        "c_selections": C_SELECTIONS,
        "primary_variant": variant,
        "primary_c_selection": c_selection,
        "n_repetitions": 10,
    }
    return readings(settings)


def _students(runs, primary="paper/cv"):
    return students_verdicts(
        runs, REFERENCE["students"], _readings(primary), c_selections=C_SELECTIONS, scale="test"
    )


def _by_claim(verdicts, protocol=None):
    return {v.claim_id: v for v in verdicts if protocol is None or v.protocol == protocol}


# ------------------------------------------------------------------------------ students


def test_students_paper_like_results_are_reproduced():
    verdicts = _students(students_runs(10))
    assert {v.claim_id for v in verdicts} == set(REFERENCE["students"]["claims"])
    for v in verdicts:
        assert (v.verdict, v.protocol, v.primary, v.n_repetitions) == (
            REPRODUCED,
            "paper/cv",
            True,
            10,
        ), v.detail
        assert v.stability is not None
        assert v.test or "parts" in REFERENCE["students"]["claims"][v.claim_id]
    records = _by_claim(verdicts)
    assert records["oblivious_smallest_true_error"].family_size == 2
    assert records["observed_error_misleading"].family_size == 4


def test_students_noisy_small_differences_are_inconclusive():
    overrides = {
        "oblivious_svm": {"error_true": 0.445, "error_observed": 0.255},
        "linear_ferm": {"error_true": 0.45, "error_observed": 0.25},
    }
    verdicts = _by_claim(_students(students_runs(3, overrides=overrides, noise=0.03)))
    for claim_id in ("oblivious_smallest_true_error", "observed_error_misleading"):
        v = verdicts[claim_id]
        assert v.verdict == INCONCLUSIVE, v.detail
        assert "would need about" in v.detail


def test_students_oblivious_worst_on_both_labels_is_not_reproduced():
    # The paper-scale situation of the paper/cv reading: the oblivious SVM is worst on the
    # observed and on the fair labels, so the observed error misleads about nothing.
    overrides = {"oblivious_svm": {"error_true": 0.61, "error_observed": 0.28}}
    verdicts = _by_claim(_students(students_runs(10, overrides=overrides)))
    assert verdicts["oblivious_smallest_true_error"].verdict == NOT_REPRODUCED
    record = verdicts["observed_error_misleading"]
    assert record.verdict == NOT_REPRODUCED
    assert "observed, Linear SVM: holds" in record.detail
    assert record.detail.count("fair, ") >= 2 and "Deciding comparison (fair," in record.detail


def test_students_constant_oblivious_classifier_cannot_reproduce():
    """e_β = 0 and a good true error from a classifier that always predicts 0."""
    readings = (("paper", "cv"), ("authors_code", "cv"))
    runs = students_runs(10, readings)
    part = (runs["variant"] == "authors_code") & (runs["method"] == "oblivious_svm")
    runs.loc[part, ["beta", "positive_rate"]] = 0.0  # one reading's oblivious SVM: always 0
    verdicts = _students(runs)
    primary = _by_claim(verdicts, "paper/cv")
    constant_reading = _by_claim(verdicts, "authors_code/cv")
    assert all(v.verdict == REPRODUCED and v.primary for v in primary.values())
    for v in constant_reading.values():
        assert v.verdict == INCONCLUSIVE and not v.primary
        assert "one class" in v.detail and "Oblivious SVM" in v.detail
        assert "would read *reproduced*" in v.detail


def test_students_test_set_reading_is_labelled_and_not_primary():
    runs = students_runs(10, (("paper", "cv"), ("authors_code", "test_set")))
    verdicts = _students(runs)
    others = [v for v in verdicts if v.protocol == "authors_code/test_set"]
    assert len(others) == len(REFERENCE["students"]["claims"]) and not any(
        v.primary for v in others
    )
    assert all("Non-protocol" in v.detail for v in others)
    assert sum(v.primary for v in verdicts) == len(REFERENCE["students"]["claims"])


def test_students_beta_not_much_smaller_is_not_reproduced():
    runs = students_runs(10, overrides={"oblivious_svm": {"beta": 0.4}})
    assert _by_claim(_students(runs))["oblivious_smallest_beta"].verdict == NOT_REPRODUCED


def test_students_beta_near_zero_but_not_much_smaller_is_partly_reproduced():
    overrides = {"oblivious_svm": {"beta": 0.03}, "linear_ferm": {"beta": 0.04}}
    record = _by_claim(_students(students_runs(10, overrides=overrides)))["oblivious_smallest_beta"]
    assert record.verdict == PARTLY
    assert "close_to_zero: holds" in record.detail
    assert "much_smaller: contradicted" in record.detail


def test_students_primary_reading_must_exist():
    with pytest.raises(ValueError, match="primary"):
        _students(students_runs(2), primary="authors_code/cv")


def test_students_readings_are_judged_in_declared_order_with_the_repetitions_run():
    """The primary first, then the declared order; each record counts the draws it ran."""
    pairs = (("paper", "cv"), ("authors_code", "cv"), ("authors_code", "test_set"))
    verdicts = _students(students_runs(4, pairs), primary="authors_code/test_set")
    protocols = list(dict.fromkeys(v.protocol for v in verdicts))
    assert protocols == ["authors_code/test_set", "paper/cv", "authors_code/cv"]
    assert {v.n_repetitions for v in verdicts} == {4}
    assert [v.primary for v in verdicts[:: len(REFERENCE["students"]["claims"])]] == [
        True,
        False,
        False,
    ]
    test_set = [v for v in verdicts if v.protocol == "authors_code/test_set"]
    assert all(v.detail.startswith("Reading authors_code/test_set: ") for v in test_set)
    assert all(v.detail.endswith("reports on the data it selects on.") for v in test_set)
