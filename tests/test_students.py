"""Students generator (§7.1) and the fairness experiments' small pieces."""

import numpy as np
import pandas as pd
import pytest
import yaml

from krepro.data.students import students_sample
from krepro.seeding import generator
from krepro.studies.adult.tables import adult_table1
from krepro.studies.selection import cross_validated_choice, grid_candidates
from krepro.studies.students.report import students_section
from krepro.studies.students.run import (
    METHODS,
    aggregate,
    method_selection,
    run_repetition,
    tidy,
)

PAPER = dict(
    theta=2.0, mu=2.5, sigma=0.5, low=1.0, high=4.0, shift_probability=0.9, y0_divisor=4.0,
    s_sampling="bernoulli", true_label="threshold",
)  # fmt: skip
CODE = {**PAPER, "theta": 2.5, "s_sampling": "balanced", "true_label": "noisy_threshold"}


def test_paper_generator_follows_the_data_model():
    sample = students_sample(generator(0, "t"), 20000, **PAPER)
    X, S = sample.X[:, 0], sample.S
    assert abs(S.mean() - 0.5) < 0.02  # Bernoulli(½)
    # X = X0 − B (S = 0) or X0 + B (S = 1), X0 ∈ [1, 4], B ~ Bernoulli(0.9)
    assert X[S == 0].min() >= 0 and X[S == 0].max() <= 4
    assert X[S == 1].min() >= 1 and X[S == 1].max() <= 5
    assert X[S == 1].mean() - X[S == 0].mean() == pytest.approx(2 * 0.9, abs=0.05)
    # observed labels: Y0 · 1{X + S ≥ θ}; never positive below the threshold
    assert not np.any(sample.y[(X + S) < 2.0])
    # true labels 1{X0 ≥ 2}: P(X0 ≥ 2) for TN(2.5, 0.5) on [1, 4] ≈ 0.84
    assert sample.y_true.mean() == pytest.approx(0.84, abs=0.02)
    # E[Y0] = E[X0]/4 ≈ 2.5/4: the typo resolution makes Y0 non-degenerate
    assert sample.y[(X + S) >= 4.5].mean() == pytest.approx(0.7, abs=0.1)


def test_verbatim_typo_gives_degenerate_y0():
    sample = students_sample(generator(0, "t"), 2000, **{**PAPER, "y0_divisor": 1.0})
    X, S = sample.X[:, 0], sample.S
    np.testing.assert_array_equal(sample.y, (X + S >= 2.0).astype(int))  # Y0 ≡ 1


def test_code_generator():
    sample = students_sample(generator(0, "t"), 1000, **CODE)
    np.testing.assert_array_equal(sample.S, np.repeat([0, 1], 500))  # balanced, sorted
    # the code's "true" label keeps the Bernoulli noise: Y0 · 1{X0 ≥ 2.5} ≤ 1{X0 ≥ 2.5}
    assert 0.2 < sample.y_true.mean() < 0.5


def test_generator_rejects_unknown_options():
    with pytest.raises(ValueError, match="s_sampling"):
        students_sample(generator(0), 10, **{**PAPER, "s_sampling": "coin"})


def test_cross_validated_choice_picks_first_best():
    y = np.array([0, 1] * 10)
    choice, score, scores = cross_validated_choice(
        ["bad", "good", "good2"],
        lambda c, tr, va: y[va] if c.startswith("good") else 1 - y[va],
        y,
        5,
    )
    assert choice == "good" and score == 1.0 and scores[0] == 0.0
    assert grid_candidates({"C": [1, 2], "gamma": [0.1, 1]}, "rbf")[:2] == [(1, 0.1), (1, 1)]
    assert grid_candidates({"C": [1, 2], "gamma": [0.1]}, "linear") == [(1, None), (2, None)]


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
    section = students_section(
        aggregate(tiny_runs),
        tiny_runs,
        reference,
        primary_reading="paper/cv",
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
