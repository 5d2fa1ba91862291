"""Regression tests of the bugs the fuzz lane found (``tests/fuzz``), one test per bug.

Each test is the smallest input that showed the bug, and asserts the property of the fuzz
lane for it: a ``ValueError``/``TypeError`` naming the offending argument, or finite output
equal to that of the canonical input.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from krepro.cme import CMEConditionalMean, ConditionalMeanEmbedding
from krepro.dcm import COIR, DCM, DICA, FastDCM
from krepro.distributed import DistributedKernelRidge
from krepro.fairness import (
    DyadicPartition,
    FERMClassifier,
    FERMFeatures,
    FiniteValuePartition,
    HSICRidge,
    LinearEpsilonSVR,
    LinearFERM,
    LinearHingeSVC,
    ObliviousFeatures,
    ObliviousKernel,
    ObliviousRidge,
    PartitionConditionalMean,
    StreamingObliviousRidge,
)

RNG = np.random.default_rng(0)
X = RNG.normal(size=(12, 2))
Y_CLASS = np.arange(12) % 2
Y_REAL = X[:, 0] + 0.1 * RNG.normal(size=12)
S = (np.arange(12) // 2) % 2

# (estimator, supervised, classification): how each estimator is fitted here
ESTIMATORS = {
    "ObliviousKernel": (lambda: ObliviousKernel(gamma=0.5), False, False),
    "ObliviousFeatures": (lambda: ObliviousFeatures(n_components=4, random_state=0), False, False),
    "ObliviousRidge": (lambda: ObliviousRidge(gamma=0.5), True, False),
    "HSICRidge": (lambda: HSICRidge(gamma=0.5), True, False),
    "StreamingObliviousRidge": (
        lambda: StreamingObliviousRidge(n_components=4, random_state=0),
        True,
        False,
    ),
    "FERMClassifier": (lambda: FERMClassifier(gamma=0.5), True, True),
    "LinearFERM": (LinearFERM, True, True),
    "FERMFeatures": (lambda: FERMFeatures(n_components=4, random_state=0), True, True),
    "LinearHingeSVC": (LinearHingeSVC, True, True),
    "LinearEpsilonSVR": (LinearEpsilonSVR, True, False),
    "DCM": (lambda: DCM(gamma=0.5), True, True),
    "FastDCM": (lambda: FastDCM(gamma=0.5, random_state=0), True, True),
    "DICA": (lambda: DICA(gamma=0.5), True, True),
    "COIR": (lambda: COIR(gamma=0.5), True, True),
    "DistributedKernelRidge": (lambda: DistributedKernelRidge(n_partitions=2), True, False),
    "ConditionalMeanEmbedding": (ConditionalMeanEmbedding, True, False),
}
GROUPED = {"ObliviousKernel", "ObliviousFeatures", "ObliviousRidge", "FERMClassifier"}
GROUPED |= {"HSICRidge", "StreamingObliviousRidge"}
GROUPED |= {"LinearFERM", "FERMFeatures"}


def _fit(name, X, y=None):
    make, supervised, classification = ESTIMATORS[name]
    args = (X, (Y_CLASS if classification else Y_REAL) if y is None else y) if supervised else (X,)
    kwargs = {"sensitive_features": S} if name in GROUPED else {}
    return make().fit(*args, **kwargs)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_a_string_in_X_is_an_error_naming_X(name):
    # fuzz: "could not convert string to float: 'a'" named no input (scikit-learn's message)
    bad = X.astype(object)
    bad[3, 1] = "a"
    with pytest.raises(ValueError, match=r"^X: could not convert string to float: 'a'"):
        _fit(name, bad)


@pytest.mark.parametrize("name", [n for n, (_, supervised, _) in ESTIMATORS.items() if supervised])
def test_a_short_y_is_an_error_naming_X_and_y(name):
    # fuzz: "Found input variables with inconsistent numbers of samples: [12, 11]"
    y = Y_CLASS if ESTIMATORS[name][2] else Y_REAL
    message = r"^X and y: Found input variables with inconsistent|^y must have one entry"
    with pytest.raises(ValueError, match=message):
        _fit(name, X, y[:-1])


def test_a_string_in_y_is_an_error_naming_y():
    y = Y_REAL.astype(object)
    y[2] = "a"
    with pytest.raises(ValueError, match=r"^y: could not convert string to float"):
        DistributedKernelRidge(n_partitions=2).fit(X, y)


def test_other_feature_names_at_predict_are_an_error_naming_X():
    # fuzz: "The feature names should match those that were passed during fit." named no input
    features = ObliviousFeatures(n_components=4, random_state=0)
    model = features.fit(pd.DataFrame(X, columns=["a", "b"]))
    with pytest.raises(ValueError, match=r"^X: The feature names should match"):
        model.transform(pd.DataFrame(X, columns=["a", "c"]))


@pytest.mark.parametrize("name", ["FERMClassifier", "LinearFERM", "LinearHingeSVC"])
def test_classifier_target_errors_name_y(name):
    # fuzz: "Unknown label type: continuous", "The number of classes has to be greater than
    # one" and object arrays of numbers ("Unknown label type: unknown") named no input
    for y, message in [
        (np.linspace(0, 1, 12), r"^y: Unknown label type: continuous"),
        (pd.Series(list(Y_CLASS), dtype=object), r"^y: Unknown label type: unknown"),
        (np.zeros(12, dtype=int), r"\by\b.*class"),
    ]:
        with pytest.raises(ValueError, match=message):
            _fit(name, X, y)


def test_ferm_three_groups_is_an_error_naming_sensitive_features():
    with pytest.raises(ValueError, match=r"^sensitive_features: FERM needs a binary sensitive"):
        FERMClassifier(gamma=0.5).fit(X, Y_CLASS, sensitive_features=np.arange(12) % 3)


@pytest.mark.parametrize("name", ["DCM", "FastDCM", "DICA", "COIR"])
def test_dcm_refuses_points_too_close_for_gamma_naming_X(name):
    # fuzz: distinct points at scale 1e-300 make every kernel value 1; the refusal said
    # "The centred training Gram matrix is zero" without naming X
    with pytest.raises(ValueError, match=r"^X: the centred (training|Nyström) Gram matrix is zero"):
        _fit(name, X * 1e-300)


@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_linear_svms_at_extreme_scales_refuse_by_name_or_solve(scale):
    # fuzz: piqp found no solution at these scales: a RuntimeError naming nothing
    for model, y in [(LinearHingeSVC(), Y_CLASS), (LinearEpsilonSVR(), Y_REAL * scale)]:
        try:
            prediction = model.fit(X * scale, y).predict(X * scale)
        except ValueError as error:
            assert re.search(r"\bX\b", str(error)), error
        else:
            assert np.isfinite(prediction).all()


def test_ferm_scale_gamma_where_the_variance_overflows():
    # fuzz: X.var() overflowed ("overflow encountered in square") and gamma='scale' became 0
    scale = 1e156  # X.var() overflows, 1 / (2 X.var()) is a (subnormal) float64 number
    clf = FERMClassifier().fit(X * scale, Y_CLASS, sensitive_features=S)
    reference = FERMClassifier().fit(X, Y_CLASS).gamma_
    assert 0 < clf.gamma_ < np.inf
    np.testing.assert_allclose(clf.gamma_ / reference * scale * scale, 1.0, rtol=1e-6)
    with pytest.raises(ValueError, match=r"^X: gamma='scale'"):  # 1e-600: no float64
        FERMClassifier().fit(X * 1e300, Y_CLASS, sensitive_features=S)


def test_linear_ferm_at_1e300_refuses_by_name_or_solves():
    # fuzz: SVC(kernel="linear") computed X.var() for its unused gamma="scale" (overflow
    # warning), then libsvm's "The dual coefficients or intercepts are not finite" named nothing
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        try:
            decision = LinearFERM().fit(X * 1e300, Y_CLASS).decision_function(X)
        except ValueError as error:
            assert str(error).startswith("X: "), error
        else:
            assert np.isfinite(decision).all()


def test_integer_labels_beyond_2_53_beside_float_cells_stay_exact():
    # fuzz: explicit cells [2**53 + 1, 1.5] became float64 (2**53 + 1 -> 2**53), so the
    # label 2**53 + 1 of the fitted S was no cell, then "never seen in fit" at predict
    big = 2**53 + 1
    S_big = np.array([big, 1, 1, big, 1, big])
    partition = FiniteValuePartition(values=[big, 1, 1.5])
    model = PartitionConditionalMean(partition).fit(S_big)
    assert model.cell_index_.tolist() == [2, 0, 0, 2, 0, 2]
    codes = np.array([2, 0, 0, 2, 0, 2])
    canonical = PartitionConditionalMean(FiniteValuePartition(values=[2, 0, 1])).fit(codes)
    values = np.arange(6.0)
    np.testing.assert_array_equal(
        model.conditional_mean(values, S_big), canonical.conditional_mean(values, codes)
    )


@pytest.mark.parametrize("estimator", ["partition", "cme"])
@pytest.mark.parametrize(
    ("bad", "message"),
    [(np.nan, "values contains NaN"), ("a", "values: could not convert"), (None, "one row per")],
)
def test_conditional_mean_values_are_checked(estimator, bad, message):
    # fuzz: conditional_mean(values, S) returned NaN for a NaN value, and a mismatched
    # matmul error for values of another length
    S1 = np.linspace(0.0, 1.0, 8)
    if estimator == "partition":
        model = PartitionConditionalMean(DyadicPartition(0.0, 1.0, 2)).fit(S1)
    else:
        model = CMEConditionalMean(gamma=1.0).fit(S1)
    values = np.arange(8.0).astype(object)
    if bad is None:
        values = values[:-1]
    else:
        values[3] = bad
    with pytest.raises(ValueError, match=message):
        model.conditional_mean(values, S1)


def test_dyadic_box_wider_than_the_float64_range():
    # fuzz: partition_bounds=(-1.7e308, 1.7e308): high - low overflowed ("overflow
    # encountered in subtract") and every point fell in cell 0 or 1 by NaN positions
    partition = DyadicPartition(-1.7e308, 1.7e308, cells_per_axis=4)
    S1 = np.array([-1.6e308, -0.5e308, 0.0, 1e308, 1.7e308])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        cells = partition.fit(S1).assign(S1)
    assert cells.tolist() == [0, 1, 2, 3, 3]


def test_points_outside_the_box_are_named_sensitive_features():
    partition = DyadicPartition(0.0, 0.5, cells_per_axis=2)
    with pytest.raises(ValueError, match=r"^sensitive_features: 1 sensitive value\(s\) fall"):
        partition.fit(np.array([0.1, 0.2, 0.7]))


def test_ridge_loads_that_overflow_name_the_regulariser():
    # fuzz: alpha = 1.7e308 (CME) and rho = 1.7e308 (distributed ridge) times n overflowed to
    # inf ("array must not contain infs or NaNs", "overflow encountered in multiply")
    with pytest.raises(ValueError, match=r"^alpha = 1.7e\+308 times the 12 samples overflows"):
        ConditionalMeanEmbedding(alpha=1.7e308).fit(X, Y_REAL)
    with pytest.raises(ValueError, match=r"^rho = 1.7e\+308 times the 6 samples overflows"):
        DistributedKernelRidge(n_partitions=2, rho=1.7e308).fit(X, Y_REAL)
    with pytest.raises(ValueError, match=r"^alpha = 1.7e\+308 times"):
        ObliviousKernel(conditional_mean=CMEConditionalMean(alpha=1.7e308)).fit(
            X, sensitive_features=X[:, 0]
        )


def test_cme_system_not_positive_definite_names_alpha():
    # fuzz: alpha = 1e-300 on a rank-deficient linear kernel: LinAlgError "leading minor of
    # the array is not positive definite"
    with pytest.raises(ValueError, match=r"not positive definite .*alpha"):
        ConditionalMeanEmbedding(kernel="linear", alpha=1e-300).fit(X, Y_REAL)


def test_cme_results_beyond_float64_are_refused():
    # fuzz: weights ~1e161 times y ~1e297: "overflow encountered in matmul", inf returned
    cme = ConditionalMeanEmbedding(kernel="linear", alpha=1e-12, output_kernel="linear")
    cme.fit(X * 1e-147, Y_REAL * 1e297)
    with pytest.raises(ValueError, match=r"^X, y: the result leaves the float64 range"):
        cme.predict_mean(X * 1e297)


def test_cme_numeric_output_kernel_names_a_string_y():
    y = Y_REAL.astype(object)
    y[4] = "a"
    with pytest.raises(ValueError, match=r"^y: could not convert string to float"):
        ConditionalMeanEmbedding(output_kernel="rbf").fit(X, y)


def test_gcv_at_extreme_alphas_is_finite():
    # fuzz: alphas=[1e-300, 1e300]: the GCV sums underflowed, 0 / 0 ("invalid value
    # encountered in divide") and a NaN score
    S1 = np.linspace(0.0, 1.0, 10)
    output_gram = np.exp(-((S1[:, None] - S1[None, :]) ** 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        model = CMEConditionalMean(gamma=1.0, alphas=[1e-300, 1e300]).fit(
            S1, output_gram=output_gram
        )
    assert np.isfinite(model.gcv_scores_).all()
    assert np.isfinite(model.membership(S1)).all()


@pytest.mark.parametrize("name", ["DCM", "FastDCM", "DICA", "COIR"])
def test_dcm_extreme_epsilon_is_named_or_solved(name):
    # fuzz: epsilon = 1e-300 gave LinAlgError "singular matrix" / "leading minor not positive
    # definite" or a LinAlgWarning (a RuntimeWarning); epsilon = 1.7e308 overflowed N epsilon
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for epsilon in (1e-300, 1.7e308):
            make = ESTIMATORS[name][0]
            model = make().set_params(epsilon=epsilon)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    Z = model.fit(X, Y_CLASS, domains=S).transform(X)
            except ValueError as error:
                assert re.search(r"\bepsilon\b", str(error)), error
            else:
                assert np.isfinite(Z).all()


def test_ill_conditioned_ridge_system_is_a_user_warning_naming_alpha():
    # fuzz: poly kernel of degree 40: scipy's LinAlgWarning ("An ill-conditioned matrix
    # detected"), a RuntimeWarning, from the ridge solve
    rng = np.random.default_rng(0)
    Xr, yr = np.round(rng.normal(size=(12, 2)) * 10) / 10, rng.normal(size=12)
    model = ObliviousRidge(kernel="poly", degree=40, gamma=1.0, alpha=1e-3, mode="m-oblivious")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.warns(UserWarning, match=r"^alpha: a linear system is ill-conditioned"):
            model.fit(Xr, yr, sensitive_features=S)


@pytest.mark.parametrize("name", ["FERMClassifier", "LinearFERM", "FERMFeatures", "LinearHingeSVC"])
def test_classes_mixing_strings_and_numbers_are_refused(name):
    # fuzz: y = ["", 1, ...] as a list became the strings ["", "1"] (numpy), so classes_
    # changed type and the positive class flipped against the documented label order
    y = ["" if c else 1 for c in Y_CLASS]
    with pytest.raises(ValueError, match=r"^y mixes strings and numbers"):
        _fit(name, X, y)


def test_estimation_fraction_that_rounds_to_no_row_is_named():
    # fuzz: estimation_fraction = 0.05 of 10 rows rounds to 0 estimation rows; the error
    # said "needs at least 2 samples ... got n_samples = 10", naming neither the parameter
    # nor the cause
    model = ObliviousRidge(gamma=0.5, estimation_fraction=0.05)
    with pytest.raises(ValueError, match=r"^estimation_fraction = 0.05 of n_samples = 10"):
        model.fit(X[:10], Y_REAL[:10], sensitive_features=S[:10])


def test_ridge_system_singular_at_positive_alpha_names_x():
    # fuzz: identical rows at scale 1e25 and a cubic kernel: the oblivious Gram is round-off
    # of size 1e150, alpha = 1 vanishes against it; the error advised "use alpha > 0"
    Xb = np.full((12, 2), 1e25)
    model = ObliviousRidge(kernel="poly", gamma=2.0, degree=3, coef0=0.0, alpha=1.0)
    with pytest.raises(ValueError, match=r"singular at alpha=1.0: .* rows X .* standardise X"):
        model.fit(Xb, Y_REAL, sensitive_features=S)


@pytest.mark.parametrize(
    "model",
    [
        FastDCM(
            n_components=1,
            gamma=1e12,
            epsilon=1.7e308,
            target_kernel="delta",
            n_landmarks=15,
            eigensolver="dense",
            random_state=0,
            solver="paper",
        ),
        DICA(n_components=25, gamma=1e-12, epsilon=1e300, target_kernel="delta", supervised=False),
    ],
    ids=["FastDCM-paper", "DICA-unsupervised"],
)
def test_dcm_solver_overflow_is_named(model):
    # fuzz: epsilon near the float64 maximum overflowed inside the solvers ("invalid value
    # encountered in multiply" in the FastDCM paper solver, "overflow encountered in divide"
    # in unsupervised DICA's lambda / a): RuntimeWarnings and a non-finite result
    Xw = np.random.default_rng(1).normal(size=(30, 3))
    domains = np.arange(30) % 3
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)
        try:
            Z = model.fit(Xw, np.arange(30) % 2, domains=domains).transform(Xw)
        except ValueError as error:
            assert re.search(r"\bepsilon\b", str(error)), error
        else:
            assert np.isfinite(Z).all()


def test_ferm_libsvm_failure_at_extreme_scale_names_x():
    # fuzz: X at scale 1e55 (linear kernel entries ~1e110) and epsilon = 1e300: libsvm's
    # "The dual coefficients or intercepts are not finite" named no input
    Xb = np.random.default_rng(0).uniform(size=(16, 4)) * 1e55
    groups, labels = np.arange(16) % 2, (np.arange(16) // 2) % 2
    model = FERMClassifier(kernel="linear", C=0.5, epsilon=1e300)
    try:
        model.fit(Xb, labels, sensitive_features=groups)
    except ValueError as error:
        assert re.match(r"^X: ", str(error)), error
    else:
        assert np.isfinite(model.decision_function(Xb)).all()


def test_oblivious_features_output_gram_overflow_is_named():
    # fuzz: poly features with coef0 = 1e300 and a CME conditional mean: the output Gram
    # features @ features.T overflowed ("overflow encountered in matmul"), a RuntimeWarning
    from krepro.cme import CMEConditionalMean

    S_cont = np.random.default_rng(0).uniform(size=(12, 1))
    model = ObliviousFeatures(
        kernel="poly",
        degree=1,
        gamma=0.1,
        coef0=1e300,
        n_components=8,
        conditional_mean=CMEConditionalMean(gamma=1.0),
        random_state=0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ValueError, match=r"^X, gamma, coef0: the Gram matrix"):
            model.fit(X, sensitive_features=S_cont)


@pytest.mark.parametrize("at", ["fit", "transform"])
def test_kernel_feature_map_names_a_string_in_x(at):
    # fuzz: "could not convert string to float: 'a'" from KernelFeatureMap named no input
    from krepro.fairness.oblivious_features import KernelFeatureMap

    bad = X.astype(object)
    bad[2, 1] = "a"
    feature_map = KernelFeatureMap(n_components=4, random_state=0)
    with pytest.raises(ValueError, match=r"^X: could not convert"):
        feature_map.fit(bad) if at == "fit" else feature_map.fit(X).transform(bad)


def test_regression_target_of_numbers_and_text_names_y():
    # fuzz: y = [0.0, 1e-20, 'a', ...] as a list became a numpy string array that passed
    # y_numeric validation; the solve failed with "could not convert string to float"
    y = list(Y_REAL)
    y[3] = "a"
    with pytest.raises(ValueError, match=r"^y: could not convert string to float"):
        DistributedKernelRidge(n_partitions=2).fit(X, y)


def test_alpha_selected_from_alphas_that_fails_names_alphas():
    # fuzz: alphas = [1e-300, 1e300] with a linear kernel on 3-d S: GCV picked 1e-300, then
    # K + n alpha I was not positive definite; the error named alpha, not the grid given
    rng = np.random.default_rng(0)
    S3 = rng.uniform(size=(12, 3))
    values = S3 @ rng.normal(size=(3, 2)) * 1e7  # in the span of S: GCV prefers alpha -> 0
    model = CMEConditionalMean(kernel="linear", gamma=1.0, alphas=[1e-300, 1e300])
    with pytest.raises(ValueError, match=r"^alphas: the value selected by GCV, alpha = 1e-300"):
        model.fit(S3, output_gram=values @ values.T)


def test_fast_dcm_denormal_epsilon_is_named():
    # fuzz: epsilon = 5e-324 (the smallest subnormal): scipy's "array must not contain infs
    # or NaNs" from inside the paper solver named no input
    rng = np.random.default_rng(0)
    Xw, yw = rng.normal(size=(30, 3)), rng.normal(size=30) * 1e-20
    model = FastDCM(
        n_components=18,
        epsilon=5e-324,
        target_kernel="rbf",
        n_landmarks=2,
        eigensolver="partial",
        random_state=0,
        target_gamma=0.1,
        solver="paper",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)
        try:
            Z = model.fit(Xw, yw).transform(Xw)
        except ValueError as error:
            assert re.match(r"^X, epsilon: ", str(error)), error
        else:
            assert np.isfinite(Z).all()


def test_random_fourier_features_of_float32_input_at_huge_gamma():
    # fuzz: float32 X and gamma = 1.7e308: RBFSampler drew its frequencies in X's dtype,
    # sqrt(2 gamma) overflowed float32 ("overflow encountered in cast")
    from krepro.fairness.oblivious_features import KernelFeatureMap

    X32 = np.full((10, 2), 1e7, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        fmap = KernelFeatureMap(
            gamma=1.7e308, n_components=1, approximation="rff", random_state=0
        ).fit(X32)
        try:
            Z = fmap.transform(X32)
        except ValueError as error:
            assert re.match(r"^X", str(error)), error
        else:
            assert np.isfinite(Z).all()
    assert fmap.sampler_.random_weights_.dtype == np.float64


def test_output_gram_of_another_size_is_named():
    # fuzz: sensitive_features one row short of output_gram: a matmul shape error in GCV
    rng = np.random.default_rng(0)
    S_short, values = rng.uniform(size=(11, 2)), rng.normal(size=(12, 2))
    model = CMEConditionalMean(gamma=0.5, alphas=[1e-3, 1.0])
    with pytest.raises(ValueError, match=r"^output_gram must be the \(11, 11\) Gram matrix"):
        model.fit(S_short, output_gram=values @ values.T)


def test_fast_dcm_paper_solver_names_a_missing_label_y():
    # fuzz: the paper solver's delta target encoded y as "labels": "labels contains missing
    # values" named no argument
    y = np.array([3, 0] * 6, dtype=object)
    y[2] = None
    model = FastDCM(
        n_components=2,
        gamma=2.0,
        epsilon=0.1,
        target_kernel="delta",
        n_landmarks=2,
        random_state=0,
        solver="paper",
    )
    with pytest.raises(ValueError, match=r"^y contains missing values"):
        model.fit(X, y)


def test_m_oblivious_ridge_refuses_text_in_the_learner_rows_sensitive_features():
    # fuzz: mode="m-oblivious" with a dyadic partition accepted a string in the S of the
    # learner rows (the plain Gram does not read it; only the estimation half was checked)
    rng = np.random.default_rng(0)
    X, y = rng.uniform(size=(40, 2)), rng.normal(size=40)
    S = rng.uniform(size=(40, 2)).astype(object)
    S[0, 0] = "a"
    model = ObliviousRidge(
        mode="m-oblivious", partition="dyadic", partition_bounds=(0, 1), cells_per_axis=2
    )
    with pytest.raises(ValueError, match=r"^sensitive_features must be numeric"):
        model.fit(X, y, sensitive_features=S)
