"""Bad and unusual input to every public estimator: a clear error, or exactly the same result.

Each case is something a user applying the library to their own data does: new or missing
group values at predict time, labels as strings or pandas columns, a float32 copy of the
data, hyperparameters out of range. Every error must be a ``ValueError`` (scikit-learn's
``InvalidParameterError`` for hyperparameters) whose message names the parameter or the
offending values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import check_param_validation

from krepro.cme import CMEConditionalMean, ConditionalMeanEmbedding
from krepro.dcm import COIR, DCM, DICA, FastDCM
from krepro.distributed import DistributedKernelRidge
from krepro.fairness.conditional import (
    DyadicPartition,
    FiniteValuePartition,
    PartitionConditionalMean,
    make_partition,
)
from krepro.fairness.ferm import FERMClassifier, LinearFERM
from krepro.fairness.ferm_features import FERMFeatures, ferm_projected_gram
from krepro.fairness.hsic_ridge import HSICRidge
from krepro.fairness.linear_svc import LinearHingeSVC
from krepro.fairness.linear_svr import LinearEpsilonSVR
from krepro.fairness.oblivious import ObliviousFeatures, ObliviousKernel
from krepro.fairness.oblivious_features import KernelFeatureMap
from krepro.fairness.ridge import ObliviousRidge
from krepro.fairness.streaming import StreamingObliviousRidge
from krepro.kernels import gram
from krepro.validation import check_kernel_params

# ---------------------------------------------------------------------------------------------
# data


def _labelled(seed=0, n=60):
    """Regression data whose sensitive feature takes the non-dyadic values 0.1, 0.7 and 1.3."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 3, n)
    S = np.array([0.1, 0.7, 1.3])[codes]
    X = rng.normal(size=(n, 2)) + codes[:, None]
    y = np.sin(X[:, 0]) + 0.5 * codes + 0.1 * rng.normal(size=n)
    return X, y, S, codes


def _binary(seed=0, n=80):
    """Classification data with a binary group: 0 = "Female", 1 = "Male"."""
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 3)) + 0.8 * s[:, None]
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.5 * rng.normal(size=n) > 0.6, 1, -1)
    return X, y, s, np.array(["Female", "Male"])[s]


# ---------------------------------------------------------------------------------------------
# estimators that take sensitive features at fit and at predict time


def _kernel_fit(S, X, y):
    return ObliviousKernel(gamma=0.5).fit(X, sensitive_features=S)


def _kernel_predict(model, X, S):
    return model.gram(X, S)


def _ridge(mode):
    def fit(S, X, y):
        return ObliviousRidge(gamma=0.5, alpha=0.3, mode=mode).fit(X, y, sensitive_features=S)

    return fit


def _ridge_predict(model, X, S):
    return model.predict(X, sensitive_features=S)


def _features_fit(S, X, y):
    return ObliviousFeatures(gamma=0.5, n_components=20, random_state=0).fit(
        X, sensitive_features=S
    )


def _features_predict(model, X, S):
    return model.transform(X, sensitive_features=S)


S_MODELS = {
    "ObliviousKernel": (_kernel_fit, _kernel_predict),
    "ObliviousFeatures": (_features_fit, _features_predict),
    "ObliviousRidge": (_ridge("oblivious"), _ridge_predict),
    "ObliviousRidge-m": (_ridge("m-oblivious"), _ridge_predict),
}


@pytest.fixture(params=list(S_MODELS))
def s_model(request):
    return S_MODELS[request.param]


def test_unseen_sensitive_value_at_predict_is_an_error_listing_it(s_model):
    fit, predict = s_model
    X, y, S, _ = _labelled()
    model = fit(S, X, y)
    with pytest.raises(ValueError, match=r"sensitive_features has value\(s\) never seen in fit: "):
        predict(model, X[:3], np.array([0.1, 0.5, 2.0]))
    with pytest.raises(ValueError, match=r"never seen in fit: \[0\.5, 2\.0\]"):
        predict(model, X[:3], np.array([0.1, 0.5, 2.0]))


@pytest.mark.parametrize("missing", [np.nan, None])
def test_missing_sensitive_value_is_an_error_at_fit_and_at_predict(s_model, missing):
    fit, predict = s_model
    X, y, S, _ = _labelled()
    bad = S.astype(object)
    bad[4] = missing
    with pytest.raises(ValueError, match=r"sensitive_features contains missing values .* row 4"):
        fit(bad, X, y)
    model = fit(S, X, y)
    with pytest.raises(ValueError, match=r"sensitive_features contains missing values .* row 4"):
        predict(model, X[:5], bad[:5])


def test_float32_and_int_copies_of_the_values_give_identical_results(s_model):
    fit, predict = s_model
    X, y, S, codes = _labelled()
    expected = predict(fit(S, X, y), X[:10], S[:10])
    # 0.1, 0.7 and 1.3 are not float32 numbers: the float32 copy differs from them bitwise.
    assert not np.array_equal(S.astype(np.float32).astype(float), S)
    np.testing.assert_array_equal(
        predict(fit(S, X, y), X[:10], S[:10].astype(np.float32)), expected
    )
    np.testing.assert_array_equal(
        predict(fit(S.astype(np.float32), X, y), X[:10], S[:10]), expected
    )
    by_codes = predict(fit(codes, X, y), X[:10], codes[:10])
    np.testing.assert_array_equal(predict(fit(codes, X, y), X[:10], codes[:10] * 1.0), by_codes)
    np.testing.assert_array_equal(predict(fit(codes * 1.0, X, y), X[:10], codes[:10]), by_codes)
    np.testing.assert_array_equal(by_codes, expected)  # only the grouping matters


def test_int_fitted_str_given_is_an_error_listing_the_strings(s_model):
    fit, predict = s_model
    X, y, _, codes = _labelled()
    model = fit(codes, X, y)
    with pytest.raises(ValueError, match=r"never seen in fit: \['0', '1'\]"):
        predict(model, X[:2], np.array(["0", "1"]))


def test_sensitive_features_for_a_model_fitted_without_them_is_an_error(s_model):
    fit, predict = s_model
    X, y, S, _ = _labelled()
    model = fit(None, X, y)
    with pytest.raises(ValueError, match="fitted without sensitive_features"):
        predict(model, X[:3], S[:3])


def test_string_groups_give_exactly_the_predictions_of_0_1_codes(s_model):
    fit, predict = s_model
    X, y, _, codes = _labelled()
    codes = codes % 2
    strings = np.array(["Female", "Male"])[codes]  # numpy <U6
    expected = predict(fit(codes, X, y), X[:12], codes[:12])
    np.testing.assert_array_equal(predict(fit(strings, X, y), X[:12], strings[:12]), expected)
    as_object = pd.Series(strings, dtype=object)
    np.testing.assert_array_equal(predict(fit(as_object, X, y), X[:12], as_object[:12]), expected)
    as_category = pd.Series(strings, dtype="category")
    np.testing.assert_array_equal(
        predict(fit(as_category, X, y), X[:12], list(strings[:12])), expected
    )
    mixed = np.array([0, "Male"], dtype=object)[codes]  # numbers sort before strings
    np.testing.assert_array_equal(predict(fit(mixed, X, y), X[:12], mixed[:12]), expected)
    np.testing.assert_array_equal(predict(fit(list(mixed), X, y), X[:12], mixed[:12]), expected)


def test_multi_column_string_rows_are_cells(s_model):
    fit, predict = s_model
    X, y, _, codes = _labelled()
    second = (np.arange(len(codes)) % 2).astype(int)
    rows = np.column_stack([codes, second])
    frame = pd.DataFrame({"race": np.array(["a", "b", "c"])[codes], "sex": second})
    expected = predict(fit(rows, X, y), X[:8], rows[:8])
    np.testing.assert_array_equal(predict(fit(frame, X, y), X[:8], frame.iloc[:8]), expected)
    with pytest.raises(ValueError, match=r"never seen in fit: \[\('d', 0\)\]"):
        predict(fit(frame, X, y), X[:1], pd.DataFrame({"race": ["d"], "sex": [0]}))


def test_x_estimation_without_its_sensitive_features_is_an_error():
    X, y, S, _ = _labelled()
    model = ObliviousRidge(gamma=0.5)
    with pytest.raises(ValueError, match="without sensitive_features_estimation"):
        model.fit(X[:30], y[:30], sensitive_features=S[:30], X_estimation=X[30:])
    with pytest.raises(ValueError, match="sensitive_features_estimation given without X_est"):
        model.fit(X, y, sensitive_features=S, sensitive_features_estimation=S[30:])
    with pytest.raises(ValueError, match="sensitive_features_estimation given without sensitive"):
        model.fit(X[:30], y[:30], X_estimation=X[30:], sensitive_features_estimation=S[30:])
    with pytest.raises(ValueError, match=r"sensitive_features_estimation must have one entry"):
        model.fit(
            X[:30],
            y[:30],
            sensitive_features=S[:30],
            X_estimation=X[30:],
            sensitive_features_estimation=S[31:],
        )


def test_a_group_only_in_the_training_rows_is_an_empty_cell():
    # Value 2.5 occurs only in the training half: its conditional-mean estimate is 0, which
    # equals an explicit cell list in which it is an empty cell.
    from krepro.fairness.conditional import FiniteValuePartition

    X, y, S, _ = _labelled()
    S = S.copy()
    S[:3] = 2.5
    with pytest.warns(UserWarning, match=r"value\(s\) \[2\.5\] of 3 training row\(s\) have no est"):
        model = ObliviousRidge(gamma=0.5).fit(X, y, sensitive_features=S)
    explicit = ObliviousRidge(
        gamma=0.5, partition=FiniteValuePartition(values=[0.1, 0.7, 1.3, 2.5])
    ).fit(X, y, sensitive_features=S)
    np.testing.assert_array_equal(
        model.predict(X[:5], sensitive_features=S[:5]),
        explicit.predict(X[:5], sensitive_features=S[:5]),
    )


@pytest.mark.parametrize(
    "options",
    [
        {"partition": "dyadic", "partition_bounds": (0.0, 2.0), "cells_per_axis": 4},
        {"conditional_mean": CMEConditionalMean(gamma=1.0)},
    ],
    ids=["dyadic", "cme"],
)
def test_continuous_sensitive_features_must_be_finite_numbers(options):
    X, _, S, _ = _labelled()
    model = ObliviousKernel(gamma=0.5, **options).fit(X, sensitive_features=S)
    for bad, message in [
        ([0.1, np.nan], "missing values"),
        (np.array([0.1, np.inf]), "infinity|outside the partition box"),
        (["a", "b"], "must be numeric"),
    ]:
        with pytest.raises(ValueError, match=message):
            model.gram(X[:2], bad)


# ---------------------------------------------------------------------------------------------
# FERM: binary groups of any type


FERM_MODELS = {
    "FERMClassifier": lambda: FERMClassifier(gamma=0.5),
    "FERMClassifier-linear": lambda: FERMClassifier(kernel="linear"),
    "LinearFERM": LinearFERM,
}


@pytest.mark.parametrize("name", list(FERM_MODELS))
def test_ferm_string_groups_give_exactly_the_predictions_of_0_1_codes(name):
    X, y, codes, strings = _binary()
    expected = FERM_MODELS[name]().fit(X, y, sensitive_features=codes).decision_function(X)
    for groups in [
        strings,
        pd.Series(strings, dtype=object),
        pd.Series(strings).astype("category"),
    ]:
        model = FERM_MODELS[name]().fit(X, y, sensitive_features=groups)
        np.testing.assert_array_equal(model.decision_function(X), expected)


@pytest.mark.parametrize("name", list(FERM_MODELS))
def test_ferm_missing_or_non_binary_groups_are_errors(name):
    X, y, _, strings = _binary()
    bad = strings.astype(object)
    bad[7] = None
    with pytest.raises(ValueError, match=r"sensitive_features contains missing values .* row 7"):
        FERM_MODELS[name]().fit(X, y, sensitive_features=bad)
    three = strings.copy().astype(object)
    three[:5] = "Other"
    with pytest.raises(ValueError, match=r"binary sensitive feature; got 3 distinct values"):
        FERM_MODELS[name]().fit(X, y, sensitive_features=three)


# ---------------------------------------------------------------------------------------------
# DCM family: domains


DOMAIN_MODELS = {
    "DCM": lambda: DCM(gamma=0.5),
    "FastDCM": lambda: FastDCM(gamma=0.5, n_landmarks=20, random_state=0),
    "DICA": lambda: DICA(gamma=0.5),
    "COIR": lambda: COIR(gamma=0.5),
}


def _domain_data(seed=0, n=60):
    rng = np.random.default_rng(seed)
    domains = np.arange(n) % 3
    X = rng.normal(size=(n, 3)) + 0.5 * domains[:, None]
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0.5).astype(int)
    return X, y, domains


@pytest.mark.parametrize("name", list(DOMAIN_MODELS))
def test_nan_domains_are_an_error(name):
    X, y, domains = _domain_data()
    bad = domains.astype(float)
    bad[5] = np.nan
    with pytest.raises(ValueError, match=r"domains contains missing values .* row 5"):
        DOMAIN_MODELS[name]().fit(X, y, domains=bad)


@pytest.mark.parametrize("name", list(DOMAIN_MODELS))
def test_string_domains_give_the_projection_of_integer_domains(name):
    X, y, domains = _domain_data()
    expected = DOMAIN_MODELS[name]().fit(X, y, domains=domains).transform(X)
    names = pd.Series(np.array(["site-a", "site-b", "site-c"])[domains], dtype=object)
    model = DOMAIN_MODELS[name]().fit(X, y, domains=names)
    assert model.n_domains_ == 3
    np.testing.assert_array_equal(model.transform(X), expected)
    mixed = np.array([0, 1.5, "site-c"], dtype=object)[domains]
    model = DOMAIN_MODELS[name]().fit(X, y, domains=mixed)
    np.testing.assert_array_equal(model.transform(X), expected)


# ---------------------------------------------------------------------------------------------
# hyperparameters


def _fit(estimator):
    X, y, S, _ = _labelled()
    if isinstance(estimator, (ObliviousKernel, ObliviousFeatures)):
        return estimator.fit(X, sensitive_features=S)
    if isinstance(estimator, (DyadicPartition, FiniteValuePartition, PartitionConditionalMean)):
        return estimator.fit(np.clip(S / 2, 0, 1))
    if isinstance(estimator, KernelFeatureMap):
        return estimator.fit(X)
    if isinstance(estimator, LinearEpsilonSVR):
        return estimator.fit(X, y)
    if isinstance(estimator, CMEConditionalMean):
        return estimator.fit(S)
    if isinstance(estimator, (ConditionalMeanEmbedding, DistributedKernelRidge)):
        return estimator.fit(X, y)
    if isinstance(estimator, (ObliviousRidge, HSICRidge, StreamingObliviousRidge)):
        return estimator.fit(X, y, sensitive_features=S)
    X, y, s, _ = _binary()
    if isinstance(estimator, (FERMClassifier, LinearFERM, FERMFeatures)):
        return estimator.fit(X, y, sensitive_features=s)
    if isinstance(estimator, LinearHingeSVC):
        return estimator.fit(X, y)
    return estimator.fit(X, y, domains=s)


BAD_PARAMETERS = [
    (ObliviousKernel, "gamma", 0.0),
    (ObliviousKernel, "gamma", -1.0),
    (ObliviousKernel, "cells_per_axis", 0),
    (ObliviousKernel, "partition", "cells"),
    (ObliviousKernel, "gamma", np.inf),
    (ObliviousKernel, "gamma", "abc"),
    (ObliviousKernel, "degree", 2.5),  # a fractional power of a negative product is NaN
    (ConditionalMeanEmbedding, "degree", 1.5),
    (ObliviousFeatures, "gamma", np.nan),
    (ObliviousFeatures, "variant", "plain"),
    (ObliviousFeatures, "n_components", 0),
    (KernelFeatureMap, "approximation", "svd"),
    (ObliviousRidge, "alpha", -0.1),
    (ObliviousRidge, "gamma", -2.0),
    (ObliviousRidge, "mode", "orr"),
    (ObliviousRidge, "estimation_fraction", 1.0),
    (HSICRidge, "alpha", -0.1),
    (HSICRidge, "mu", -1.0),
    (HSICRidge, "sensitive_gamma", 0.0),
    (HSICRidge, "sensitive_kernel", "poly"),
    (StreamingObliviousRidge, "alpha", -1.0),
    (StreamingObliviousRidge, "block_rows", 0),
    (StreamingObliviousRidge, "gamma", 0.0),
    (StreamingObliviousRidge, "partition", "cells"),
    (FERMClassifier, "gamma", 0.0),
    (FERMClassifier, "gamma", -1.0),
    (FERMClassifier, "C", 0.0),
    (FERMClassifier, "epsilon", -1.0),
    (FERMClassifier, "kernel", "sigmoid"),
    (FERMClassifier, "formulation", "primal"),
    (FERMClassifier, "tol", 0.0),
    (LinearFERM, "C", -1.0),
    (LinearFERM, "C", np.inf),
    (FERMClassifier, "C", np.nan),
    (FERMFeatures, "gamma", 0.0),
    (FERMFeatures, "approximation", "svd"),
    # C = inf used to solve another problem (LinearHingeSVC) or fail in the QP solver without
    # naming C (LinearEpsilonSVR); epsilon = inf predicted 0 everywhere; tol = inf was taken.
    (LinearHingeSVC, "C", np.inf),
    (LinearHingeSVC, "tol", np.inf),
    (LinearHingeSVC, "C", -1.0),
    (LinearEpsilonSVR, "C", np.inf),
    (LinearEpsilonSVR, "epsilon", np.inf),
    (LinearEpsilonSVR, "epsilon", -1.0),
    (LinearEpsilonSVR, "tol", np.nan),
    (LinearFERM, "selection", "first"),
    (ConditionalMeanEmbedding, "gamma", 0.0),
    (ConditionalMeanEmbedding, "output_gamma", -1.0),
    (ConditionalMeanEmbedding, "alpha", 0.0),
    (ConditionalMeanEmbedding, "alpha", -1.0),
    (CMEConditionalMean, "gamma", -1.0),
    (CMEConditionalMean, "alpha", -1e-3),
    (CMEConditionalMean, "gamma", np.inf),
    (ConditionalMeanEmbedding, "output_gamma", np.nan),
    (DistributedKernelRidge, "rho", np.inf),
    (DistributedKernelRidge, "gamma", 0.0),
    *[(cls, "gamma", bad) for cls in (DCM, FastDCM, DICA, COIR) for bad in (0.0, -1.0)],
    *[(cls, "n_landmarks", bad) for cls in (DCM, FastDCM, DICA, COIR) for bad in (0, -3)],
    *[(cls, "n_components", 0) for cls in (DCM, FastDCM, DICA, COIR)],
    *[(cls, "epsilon", 0.0) for cls in (DCM, FastDCM, DICA, COIR)],
    (DCM, "target_gamma", -1.0),
    (DICA, "ridge", -1e-3),
]


@pytest.mark.parametrize(
    ("cls", "param", "bad"),
    BAD_PARAMETERS,
    ids=[f"{cls.__name__}-{param}={bad!r}" for cls, param, bad in BAD_PARAMETERS],
)
def test_out_of_range_hyperparameter_is_named(cls, param, bad):
    with pytest.raises(InvalidParameterError, match=rf"'{param}' parameter of {cls.__name__}"):
        _fit(cls(**{param: bad}))
    with pytest.raises(ValueError, match=rf"Got {bad!r} instead"):
        _fit(cls(**{param: bad}))


ALL_ESTIMATORS = [
    DyadicPartition(0.0, 1.0),
    FiniteValuePartition(),
    PartitionConditionalMean(FiniteValuePartition()),
    ObliviousKernel(),
    ObliviousFeatures(n_components=10),
    KernelFeatureMap(n_components=10),
    FERMFeatures(n_components=10),
    LinearHingeSVC(),
    LinearEpsilonSVR(),
    ObliviousRidge(),
    HSICRidge(),
    StreamingObliviousRidge(n_components=50),
    FERMClassifier(),
    LinearFERM(),
    ConditionalMeanEmbedding(),
    CMEConditionalMean(),
    DistributedKernelRidge(),
    DCM(),
    FastDCM(),
    DICA(),
    COIR(),
]


@pytest.mark.parametrize("estimator", ALL_ESTIMATORS, ids=lambda e: type(e).__name__)
def test_every_parameter_has_a_constraint(estimator):
    """scikit-learn's own check: one constraint per parameter, and each one enforced."""
    check_param_validation(type(estimator).__name__, estimator)


@pytest.mark.parametrize("estimator", ALL_ESTIMATORS, ids=lambda e: type(e).__name__)
def test_fitted_attributes_end_with_an_underscore(estimator):
    fitted = _fit(estimator)
    state = set(vars(fitted)) - set(fitted.get_params(deep=False))
    assert state
    assert sorted(a for a in state if not a.endswith("_")) == []


# ---------------------------------------------------------------------------------------------
# dyadic partitions: a finite box, and not more cells than the data can fill


def _small(seed=0, n=40):
    """40 points in R^3, a binary group s (0/1), labels ±1 and a continuous S in [0, 1]."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    s = rng.integers(0, 2, n)
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1, -1)
    return X, s, y, rng.uniform(0, 1, n)


@pytest.mark.parametrize("bounds", [(0, np.inf), (-np.inf, 1.0), (0.0, np.nan), ([0, np.nan], 1)])
@pytest.mark.parametrize("cls", [ObliviousKernel, ObliviousFeatures])
def test_partition_bounds_must_be_finite(cls, bounds):
    # (0, inf) used to put every point in one cell: the fairness correction disappeared.
    X, _, _, S = _small()
    model = cls(gamma=0.5, partition="dyadic", partition_bounds=bounds, cells_per_axis=4)
    with pytest.raises(ValueError, match="partition_bounds must be finite"):
        model.fit(X, sensitive_features=S)


@pytest.mark.parametrize(
    ("bounds", "message"),
    [
        ((0, 1, 2), "partition_bounds must be a pair"),
        (1.0, "'partition_bounds' parameter of ObliviousKernel must be an array-like"),
        (("a", 1), "partition_bounds must hold numbers"),
        (([0, 0, 0], 1), "partition_bounds must be scalars or have one entry per column"),
    ],
)
def test_malformed_partition_bounds_are_named(bounds, message):
    X, _, _, S = _small()
    model = ObliviousKernel(partition="dyadic", partition_bounds=bounds, cells_per_axis=2)
    with pytest.raises(ValueError, match=message):
        model.fit(X, sensitive_features=np.column_stack([S, S]))


class _PartitionWithoutCells:
    def fit(self, S):
        return self

    def assign(self, S):
        return np.zeros(len(S), dtype=int)


def test_dyadic_partition_checks_its_box_and_cells_per_axis():
    _, _, _, S = _small()
    with pytest.raises(InvalidParameterError, match="'high' parameter of DyadicPartition"):
        DyadicPartition(0.0, np.inf, 4).fit(S)
    with pytest.raises(ValueError, match="partition_bounds must be finite"):
        DyadicPartition([0.0, np.nan], 1.0, 4).fit(np.column_stack([S, S]))
    for bad in (np.inf, np.nan, "a", 2.5, 0):
        with pytest.raises(
            InvalidParameterError, match="'cells_per_axis' parameter of DyadicPartition"
        ):
            DyadicPartition(0.0, 1.0, bad).fit(S)
    with pytest.raises(ValueError, match="cells_per_axis must be a positive integer, got True"):
        DyadicPartition(0.0, 1.0, True).fit(S)
    with pytest.raises(InvalidParameterError, match="'partition' parameter of PartitionCond"):
        PartitionConditionalMean(None).fit(S)
    with pytest.raises(TypeError, match=r"partition must be an object with .*no n_cells"):
        PartitionConditionalMean(_PartitionWithoutCells()).fit(S)
    with pytest.raises(TypeError, match='partition must be "values", "dyadic" or an object'):
        make_partition(1.0)


@pytest.mark.parametrize("cls", [ObliviousKernel, ObliviousFeatures, ObliviousRidge])
def test_more_cells_than_the_data_can_fill_is_an_error_naming_cells_per_axis(cls):
    # cells_per_axis=10**7 used to allocate gigabytes (a 40 × 10**7 table, then fail).
    X, _, y, S = _small()
    model = cls(gamma=0.5, partition="dyadic", partition_bounds=(0, 1), cells_per_axis=10**7)
    fit = (
        (lambda: model.fit(X, y, sensitive_features=S))
        if cls is ObliviousRidge
        else (lambda: model.fit(X, sensitive_features=S))
    )
    with pytest.raises(ValueError, match=r"cells_per_axis=10000000 makes .* at most 16 cells per"):
        fit()


def test_the_cell_cap_is_sixteen_cells_per_point():
    S = np.random.default_rng(0).uniform(size=(10, 2))
    assert PartitionConditionalMean(DyadicPartition(0, 1, 12)).fit(S).n_cells_ == 144  # ≤ 160
    with pytest.raises(ValueError, match=r"13\*\*2 = 169 cells for 10 point\(s\).* <= 12"):
        PartitionConditionalMean(DyadicPartition(0, 1, 13)).fit(S)


# ---------------------------------------------------------------------------------------------
# kernel widths and kernel_params: finite and in range, checked before any kernel is evaluated


def _fit_small(estimator):
    """Fit ``estimator`` on :func:`_small`'s data the way its class expects."""
    X, s, y, _ = _small()
    if isinstance(estimator, KernelFeatureMap):
        return estimator.fit(X)
    if isinstance(estimator, (ObliviousKernel, ObliviousFeatures)):
        return estimator.fit(X, sensitive_features=s)
    if isinstance(estimator, ObliviousRidge):
        return estimator.fit(X, X[:, 0], sensitive_features=s)
    return estimator.fit(X, y, sensitive_features=s)


WIDTH_MODELS = {
    "ObliviousKernel": lambda **p: ObliviousKernel(**p),
    "ObliviousRidge": lambda **p: ObliviousRidge(**p),
    "ObliviousFeatures": lambda **p: ObliviousFeatures(n_components=10, random_state=0, **p),
    "KernelFeatureMap": lambda **p: KernelFeatureMap(n_components=10, random_state=0, **p),
}


@pytest.mark.parametrize("bad", [-1.0, 0.0, np.inf, np.nan, "abc"])
@pytest.mark.parametrize("name", list(WIDTH_MODELS))
def test_kernel_width_must_be_a_finite_positive_number(name, bad):
    # ObliviousFeatures(gamma=-1.0) returned features up to 1e5 (exp(+|x - x'|²)); gamma=0
    # made every row identical; "abc" and inf failed deep in numpy with unrelated messages.
    with pytest.raises(InvalidParameterError, match=rf"'gamma' parameter of {name} must be"):
        _fit_small(WIDTH_MODELS[name](gamma=bad))


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"gamma": np.inf}, r"kernel_params\['gamma'\] must be a finite number > 0, got inf"),
        ({"gamma": -1.0}, r"kernel_params\['gamma'\] must be a finite number > 0"),
        ({"gamma": "a"}, r"kernel_params\['gamma'\] must be a finite number > 0, got 'a'"),
        ({"gama": 1.0}, r"does not take parameter\(s\) \['gama'\]"),
    ],
)
@pytest.mark.parametrize("name", list(WIDTH_MODELS))
def test_kernel_params_entries_are_checked(name, params, message):
    # kernel_params={"gamma": inf} gave an all-NaN oblivious Gram matrix; a misspelt name was
    # ignored by the tiled RBF kernel.
    with pytest.raises(ValueError, match=message):
        _fit_small(WIDTH_MODELS[name](kernel_params=params))


def test_matern_length_scale_in_kernel_params_must_be_finite():
    # length_scale=inf made the Matérn kernel constant: no information left in the features.
    model = ObliviousKernel(kernel="matern", kernel_params={"length_scale": np.inf})
    with pytest.raises(ValueError, match=r"kernel_params\['length_scale'\] must be a finite"):
        _fit_small(model)
    with pytest.raises(TypeError, match="kernel_params must be a dict or None"):
        check_kernel_params([("gamma", 1.0)])


def test_feature_map_inputs_are_checked():
    X, s, _, _ = _small()
    with_nan = X.copy()
    with_nan[3, 1] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        KernelFeatureMap(n_components=5).fit(with_nan)
    with pytest.raises(ValueError, match="Input landmarks contains NaN"):
        ObliviousFeatures(n_components=5).fit(X, sensitive_features=s, landmarks=with_nan)
    fitted = KernelFeatureMap(n_components=5, random_state=0).fit(X)
    with pytest.raises(ValueError, match="X has 2 features, but the feature map was fitted"):
        fitted.transform(X[:, :2])


def test_features_fitted_without_sensitive_features_say_so_at_transform():
    # It used to say the values were "never seen in fit" (the one group was coded 0).
    X, s, _, _ = _small()
    features = ObliviousFeatures(gamma=0.5, n_components=10, random_state=0).fit(X)
    with pytest.raises(ValueError, match="fitted without sensitive_features"):
        features.transform(X, sensitive_features=s)
    np.testing.assert_allclose(features.transform(X), features.plain_transform(X), atol=1e-12)


# ---------------------------------------------------------------------------------------------
# FERM: one input path for the groups of FERMClassifier, LinearFERM and FERMFeatures


def _ferm_features(**params):
    return FERMFeatures(gamma=0.5, n_components=15, random_state=0, **params)


def test_ferm_features_nan_groups_are_an_error_not_unprojected_features():
    # It returned unprojected features with direction_ None (NaN != NaN left no positives in
    # the NaN "group"); a single NaN was counted as a third group.
    X, s, y, _ = _small()
    with pytest.raises(ValueError, match=r"sensitive_features contains missing values .* row"):
        _ferm_features().fit(X, y, sensitive_features=np.where(s == 0, np.nan, 1.0))
    one_nan = s.astype(float)
    one_nan[3] = np.nan
    with pytest.raises(ValueError, match=r"sensitive_features contains missing values .* row 3"):
        _ferm_features().fit_transform(X, y, sensitive_features=one_nan)
    with_none = s.astype(object)
    with_none[5] = None
    with pytest.raises(ValueError, match=r"sensitive_features contains missing values .* row 5"):
        _ferm_features().fit(X, y, sensitive_features=with_none)


@pytest.mark.parametrize("bad", [-1.0, 0.0, np.inf, "abc"])
def test_ferm_features_gamma_must_be_finite_and_positive(bad):
    # gamma=-1.0 gave features up to 1e5 (1e16 on wider data); "abc": "bad operand type".
    X, s, y, _ = _small()
    with pytest.raises(InvalidParameterError, match="'gamma' parameter of FERMFeatures must be"):
        FERMFeatures(gamma=bad, n_components=10).fit(X, y, sensitive_features=s)


GROUP_CODINGS = {
    "str": lambda s: np.array(["F", "M"])[s],
    "object": lambda s: pd.Series(np.array(["F", "M"])[s], dtype=object),
    "category": lambda s: pd.Series(np.array(["F", "M"])[s]).astype("category"),
    "mixed int/str": lambda s: np.array([0, "a"], dtype=object)[s],  # numbers sort first
    "mixed list": lambda s: [0 if v == 0 else "a" for v in s],
    "bool": lambda s: s.astype(bool),
}
ALL_FERM = {
    **{name: (make, "decision_function") for name, make in FERM_MODELS.items()},
    "FERMFeatures": (_ferm_features, "transform"),
}


@pytest.mark.parametrize("coding", list(GROUP_CODINGS))
@pytest.mark.parametrize("name", list(ALL_FERM))
def test_every_ferm_estimator_reads_any_group_labels_as_the_0_1_codes(name, coding):
    # FERMFeatures raised UFuncTypeError on strings and "'<' not supported" on mixed labels.
    X, s, y, _ = _small()
    make, method = ALL_FERM[name]
    expected = getattr(make().fit(X, y, sensitive_features=s), method)(X)
    model = make().fit(X, y, sensitive_features=GROUP_CODINGS[coding](s))
    np.testing.assert_array_equal(getattr(model, method)(X), expected)


def test_ferm_features_needs_y_with_groups_and_warns_like_ferm_without_positives():
    X, s, y, _ = _small()
    with pytest.raises(ValueError, match="sensitive_features given without y"):
        _ferm_features().fit(X, sensitive_features=s)
    only_group_1 = np.where(s == 1, 1, -1)  # group 0 has no positives
    for model in (_ferm_features(), FERMClassifier(gamma=0.5)):
        with pytest.warns(UserWarning, match="Only one sensitive group has positive examples"):
            model.fit(X, only_group_1, sensitive_features=s)
    assert _ferm_features().fit(X, y).direction_ is None  # no groups: no projection
    with pytest.raises(ValueError, match="binary sensitive feature; got 3 distinct values"):
        _ferm_features().fit(X, y, sensitive_features=np.arange(len(X)) % 3)


@pytest.mark.parametrize("name", list(ALL_FERM))
def test_ferm_targets_with_missing_or_mixed_labels_are_named(name):
    X, s, y, _ = _small()
    make, _ = ALL_FERM[name]
    labels = np.array(["no", "yes"], dtype=object)[(y > 0).astype(int)]
    with_none = labels.copy()
    with_none[2] = None
    with pytest.raises(ValueError, match=r"y contains missing values .* row 2"):
        make().fit(X, with_none, sensitive_features=s)
    mixed = labels.copy()
    mixed[labels == "no"] = 0
    with pytest.raises(ValueError, match="y mixes strings and numbers"):
        make().fit(X, mixed, sensitive_features=s)


def test_ferm_without_support_vectors_predicts_its_intercept():
    # A huge libsvm tolerance stops at α = 0: decision_function failed on an empty support.
    X, s, y, _ = _small()
    model = FERMClassifier(gamma=0.5, tol=1e16).fit(X, y, sensitive_features=s)
    assert len(model.support_) == 0
    np.testing.assert_array_equal(model.decision_function(X), np.full(len(X), model.intercept_[0]))


def test_ferm_projected_gram_reads_string_groups():
    X, s, y, _ = _small()
    K = gram(X, None, "rbf", gamma=0.5)
    np.testing.assert_array_equal(
        ferm_projected_gram(K, y, np.array(["F", "M"])[s]), ferm_projected_gram(K, y, s)
    )
    with pytest.raises(ValueError, match="Both sensitive groups need positive examples"):
        ferm_projected_gram(K, np.where(s == 1, 1, -1), s)


# ---------------------------------------------------------------------------------------------
# conditional mean embeddings and distributed ridge: kernel_params, the λ grid, label targets


@pytest.mark.parametrize(
    ("make", "fit"),
    [
        (lambda p: DistributedKernelRidge(kernel_params=p), lambda m, X, y: m.fit(X, y)),
        (lambda p: ConditionalMeanEmbedding(kernel="matern", kernel_params=p), None),
        (lambda p: ConditionalMeanEmbedding(output_kernel="matern", output_kernel_params=p), None),
        (lambda p: CMEConditionalMean(kernel="matern", kernel_params=p), "S"),
    ],
    ids=["DistributedKernelRidge", "CME-input", "CME-output", "CMEConditionalMean"],
)
def test_matern_kernel_params_must_be_finite(make, fit):
    # length_scale = inf made the Matérn kernel a constant: predictions were the mean.
    X, _, _, S = _small()
    y = X[:, 0]
    for params, message in [
        ({"length_scale": np.inf}, r"kernel_params\['length_scale'\] must be a finite number > 0"),
        ({"nu": np.nan}, r"kernel_params\['nu'\] must be a finite number"),
    ]:
        model = make(params)
        with pytest.raises(ValueError, match=message):
            if fit == "S":
                model.fit(S)
            else:
                model.fit(X, y)


@pytest.mark.parametrize("alphas", [[np.nan, 1.0], [1e-3, np.inf], [0.0, 1.0], ["a"], []])
def test_cme_alpha_grid_must_be_finite_and_positive(alphas):
    # NaN and inf in the grid failed in LAPACK ("array must not contain infs or NaNs").
    _, _, _, S = _small()
    model = CMEConditionalMean(gamma=1.0, alphas=alphas)
    with pytest.raises(ValueError, match="alphas must be a non-empty 1-d grid of finite positive"):
        model.fit(S, output_gram=np.eye(len(S)))


def test_cme_label_targets_are_checked_like_groups():
    X, s, _, _ = _small()
    labels = np.array(["no", "yes"], dtype=object)[s]
    with_none = labels.copy()
    with_none[4] = None
    model = ConditionalMeanEmbedding(output_kernel="delta", gamma=0.5)
    with pytest.raises(ValueError, match=r"y contains missing values .* row 4"):
        model.fit(X, with_none)
    # Mixed numbers and strings used to fail in np.unique ("'<' not supported").
    mixed = np.array([0, "yes"], dtype=object)[s]
    scores = model.fit(X, mixed).category_scores(X[:5])
    assert model.classes_.tolist() == [0, "yes"]
    np.testing.assert_array_equal(scores, model.fit(X, s).category_scores(X[:5]))


# ---------------------------------------------------------------------------------------------
# oblivious ridge and kernel: arguments that were ignored or failed without naming the cause


def test_sensitive_features_of_a_missing_second_set_are_an_error():
    # gram(XA, SA, None, SB) ignored SB and returned the Gram matrix of XA with itself.
    X, s, _, _ = _small()
    kernel = ObliviousKernel(gamma=0.5).fit(X, sensitive_features=s)
    with pytest.raises(ValueError, match=r"SB .* given without XB"):
        kernel.gram(X[:3], s[:3], None, s[:4])


@pytest.mark.parametrize("mode", ["oblivious", "m-oblivious"])
def test_a_singular_ridge_system_names_alpha(mode):
    # alpha=0 with a linear kernel on 20 rows of 3 features: LAPACK's "singular matrix".
    X, s, _, _ = _small()
    model = ObliviousRidge(kernel="linear", alpha=0.0, mode=mode)
    with pytest.raises(ValueError, match=r"singular at alpha=0\.0"):
        model.fit(X, X[:, 0], sensitive_features=s)


def test_groups_coded_differently_in_training_and_estimation_rows_are_flagged():
    # Strings in the estimation rows, integers in the training rows: no training row shares a
    # cell with an estimation point, so no fairness correction was applied, silently.
    X, s, _, _ = _small()
    y = X[:, 0]
    with pytest.warns(UserWarning, match=r"20 training row\(s\) have no estimation point"):
        ObliviousRidge(gamma=0.5).fit(
            X[:20],
            y[:20],
            sensitive_features=s[:20],
            X_estimation=X[20:],
            sensitive_features_estimation=np.array(["0", "1"])[s[20:]],
        )


@pytest.mark.parametrize("epsilon", [5.0, 1e16])
def test_a_tube_wider_than_the_targets_is_the_constant_midrange(epsilon):
    # epsilon=1e16 failed with "The QP solver 'piqp' found no solution".
    X, _, _, _ = _small()
    y = X[:, 0]
    model = LinearEpsilonSVR(epsilon=epsilon).fit(X, y)
    np.testing.assert_array_equal(model.coef_, np.zeros(X.shape[1]))
    assert model.intercept_ == 0.5 * (y.min() + y.max())
    assert model.objective_ == 0.0
    np.testing.assert_array_equal(model.predict(X), np.full(len(X), model.intercept_))
