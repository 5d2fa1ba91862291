"""The students study's runs (§7.1): C selection, small runs, section, exact solver."""

import numpy as np
import pytest
import yaml

from krepro.studies.students.readings import readings
from krepro.studies.students.report import students_section
from krepro.studies.students.run import METHODS, method_selection, run_repetition
from krepro.studies.students.tables import aggregate, tidy
from tests.data.test_students import CODE, PAPER


@pytest.fixture(scope="module")
def tiny_runs():
    records = []
    for variant, params in (("paper", PAPER), ("authors_code", CODE)):  # C selection "cv"
        extra = {"oblivious_include_s": variant != "paper", "linear_ferm_selection": "argmax_abs"}
        for repetition in range(2):
            records += run_repetition(
                seed=3,
                repetition=repetition,
                variant=variant,
                variant_params={**params, **extra},
                sizes={"n_train": 200, "n_estimation": 200, "n_test": 300},
                selection={m: ("cross_validation", [0.25, 1.0]) for m in METHODS},
                n_folds=3,
            )
    return tidy(records)


SELECTIONS = {
    "cv": {
        "rule": "cross_validation",
        "log2_C_min": -2,
        "log2_C_max": 0,
        "methods": list(METHODS),
        "variants": ["paper", "authors_code"],
    },
    "test_set": {
        "rule": "test_set",
        "log2_C_min": 3,
        "log2_C_max": 4,
        "methods": ["oblivious_svm"],
        "variants": ["authors_code"],
    },
}


def test_method_selection_keeps_the_primary_rule_for_other_methods():
    selection = method_selection(SELECTIONS, "test_set", "cv")
    assert selection["oblivious_svm"] == ("test_set", [8.0, 16.0])
    assert selection["linear_svm"] == ("cross_validation", [0.25, 0.5, 1.0])
    with pytest.raises(ValueError, match="nope"):
        method_selection(SELECTIONS, "nope", "cv")


def test_test_set_rule_picks_the_c_with_the_lowest_test_error():
    params = {**PAPER, "oblivious_include_s": False, "linear_ferm_selection": "argmax_abs"}
    sizes = {"n_train": 150, "n_estimation": 150, "n_test": 200}
    kwargs = dict(seed=5, repetition=0, variant="paper", variant_params=params, sizes=sizes)
    chosen = run_repetition(
        **kwargs, selection=method_selection(SELECTIONS, "test_set", "cv"), n_folds=3
    )
    oblivious = next(r for r in chosen if r["method"] == "oblivious_svm")
    assert oblivious["c_rule"] == "test_set" and np.isnan(oblivious["cv_accuracy"])
    errors = []
    for C in (8.0, 16.0):  # each C alone: the chosen one has the smallest observed error
        alone = run_repetition(
            **kwargs, selection={m: ("test_set", [C]) for m in METHODS}, n_folds=3
        )
        errors.append(next(r for r in alone if r["method"] == "oblivious_svm")["error_observed"])
    assert oblivious["error_observed"] == min(errors)
    assert oblivious["C"] == (8.0, 16.0)[int(np.argmin(errors))]


def test_students_experiment_oblivious_is_nearly_independent(tiny_runs):
    table = aggregate(tiny_runs)
    assert len(table) == 6 and (table["n_reps"] == 2).all()
    beta = table.set_index(["variant", "method"])["beta_mean"]
    for variant in ("paper", "authors_code"):
        assert beta[variant, "oblivious_svm"] < 0.15 < beta[variant, "linear_svm"]


def test_students_section_has_one_verdict_per_claim_and_reading(tiny_runs):
    reference = yaml.safe_load(open("config/paper_reference.yaml", encoding="utf-8"))["oblivious"][
        "students"
    ]
    settings = {
        "c_selections": SELECTIONS,
        "primary_variant": "paper",
        "primary_c_selection": "cv",
        "n_repetitions": 2,
    }
    section = students_section(
        aggregate(tiny_runs),
        tiny_runs,
        reference,
        readings(settings),
        c_selections=SELECTIONS,
        scale="test",
    )
    assert len(section.verdicts) == 2 * len(reference["claims"])
    assert {v.protocol for v in section.verdicts} == {"paper/cv", "authors_code/cv"}
    assert [v.protocol for v in section.verdicts if v.primary] == ["paper/cv"] * len(
        reference["claims"]
    )
    assert all(v.n_repetitions == 2 for v in section.verdicts)
    assert "positive_rate" in section.body


def test_exact_oblivious_solver_agrees_with_libsvm_at_moderate_c():
    params = {**CODE, "oblivious_include_s": True, "linear_ferm_selection": "argmax"}
    sizes = {"n_train": 200, "n_estimation": 200, "n_test": 300}
    kwargs = dict(
        seed=2, repetition=0, variant="authors_code", variant_params=params, sizes=sizes,
        selection=method_selection(SELECTIONS, "cv", "cv"), n_folds=3,
    )  # fmt: skip
    by_solver = {
        solver: next(
            r
            for r in run_repetition(**kwargs, oblivious_solver=solver)
            if r["method"] == "oblivious_svm"
        )
        for solver in ("libsvm", "exact")
    }
    assert by_solver["exact"]["params"]["solver"] == "exact"
    # libsvm stops at a KKT tolerance of 1e-3: the same C, near-identical test predictions.
    assert by_solver["exact"]["C"] == by_solver["libsvm"]["C"]
    for metric in ("error_observed", "positive_rate"):
        assert abs(by_solver["exact"][metric] - by_solver["libsvm"][metric]) <= 0.01
    with pytest.raises(ValueError, match="solver must be one of"):
        run_repetition(**kwargs, oblivious_solver="nope")
