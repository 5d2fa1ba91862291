"""Fuzzing the oblivious estimators: ObliviousKernel, ObliviousFeatures, KernelFeatureMap,
ObliviousRidge, StreamingObliviousRidge and PartitionConditionalMean (property:
``fuzz_property.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from krepro.fairness import (
    DyadicPartition,
    FiniteValuePartition,
    KernelFeatureMap,
    ObliviousFeatures,
    ObliviousKernel,
    ObliviousRidge,
    PartitionConditionalMean,
    StreamingObliviousRidge,
)
from tests.fuzz.fuzz_groups import PARTITION_ARGS, bounds, cells_per_axis, partition_setup
from tests.fuzz.fuzz_inputs import (
    NEGATIVE_OR_NOT_REAL,
    Arg,
    Case,
    S,
    continuous,
    corrupted,
    group_codes,
    groups,
    hyper,
    plain,
    positive,
    predict_groups,
    targets,
)
from tests.fuzz.fuzz_params import (
    FEATURE_MAP_ARGS,
    KERNEL_ARGS,
    feature_map_params,
    kernel_params,
    point_sets,
    sizes,
)
from tests.fuzz.fuzz_property import LAYOUT_RTOL, check
from tests.fuzz.fuzz_settings import budget

pytestmark = pytest.mark.fuzz

GRAM_ALIASES = {"X": ("XA", "XB"), S: ("SA", "SB")}


# --------------------------------------------------------------------------------------------
# ObliviousKernel


@st.composite
def oblivious_kernel_cases(draw):
    n, d, n_test = draw(sizes())
    bad = draw(corrupted(("X", "X_test", *KERNEL_ARGS, *PARTITION_ARGS)))
    params, data = draw(partition_setup(n, n_test, bad))
    params.update(draw(kernel_params(bad)))
    data.update(point_sets(draw, n, d, n_test, bad))
    return Case(params, data)


def run_oblivious_kernel(params, data):
    model = ObliviousKernel(**params).fit(data["X"], sensitive_features=data[S])
    X, St = data["X_test"], data[f"{S}_test"]
    return (
        model.gram(X, St),
        model.gram(X, St, data["X"], data[S]),
        model.mixed_gram(X, St, data["X"]),
    )


@budget("ObliviousKernel")
@given(oblivious_kernel_cases())
def test_oblivious_kernel(case):
    check(run_oblivious_kernel, case, GRAM_ALIASES)


# --------------------------------------------------------------------------------------------
# ObliviousFeatures and KernelFeatureMap


@st.composite
def oblivious_features_cases(draw):
    n, d, n_test = draw(sizes())
    bad = draw(corrupted(("X", "X_test", *FEATURE_MAP_ARGS, "variant", *PARTITION_ARGS)))
    params, data = draw(partition_setup(n, n_test, bad))
    params.update(draw(feature_map_params(n, bad)))
    params["variant"] = draw(
        hyper("variant", ("oblivious", "m_oblivious"), (), ("m-oblivious", None), bad == "variant")
    )
    data.update(point_sets(draw, n, d, n_test, bad))
    return Case(params, data)


def run_oblivious_features(params, data):
    model = ObliviousFeatures(**params)
    fitted = model.fit_transform(data["X"], sensitive_features=data[S])
    return fitted, model.transform(data["X_test"], sensitive_features=data[f"{S}_test"])


@budget("ObliviousFeatures")
@given(oblivious_features_cases())
def test_oblivious_features(case):
    check(run_oblivious_features, case)


@st.composite
def feature_map_cases(draw):
    n, d, n_test = draw(sizes())
    bad = draw(corrupted(("X", "X_test", *FEATURE_MAP_ARGS)))
    params = draw(feature_map_params(n, bad))
    return Case(params, point_sets(draw, n, d, n_test, bad))


def run_feature_map(params, data):
    feature_map = KernelFeatureMap(**params).fit(data["X"])
    return feature_map.transform(data["X"]), feature_map.transform(data["X_test"])


DEGENERATE_NYSTROEM_RTOL = 1e-9


@budget("KernelFeatureMap")
@given(feature_map_cases())
def test_kernel_feature_map(case):
    # Nyström floors the landmark Gram's eigenvalues at 1e-12 (as scikit-learn's Nystroem):
    # with coinciding landmarks (a degenerate X, stress) round-off along their null
    # directions is amplified up to 1e6-fold, about 1e-10 relative between two layouts.
    degenerate = "X" in case.stress
    check(
        run_feature_map, case, layout_rtol=DEGENERATE_NYSTROEM_RTOL if degenerate else LAYOUT_RTOL
    )


# --------------------------------------------------------------------------------------------
# ObliviousRidge


@st.composite
def oblivious_ridge_cases(draw):
    n, d, n_test = draw(sizes())
    ridge_args = ("alpha", "mode", "estimation_fraction", "y")
    bad = draw(corrupted(("X", "X_test", *KERNEL_ARGS, *PARTITION_ARGS, *ridge_args)))
    params, data = draw(partition_setup(n, n_test, bad, m=1))  # m: a share of the n rows
    params.update(draw(kernel_params(bad)))
    params["alpha"] = draw(
        positive("alpha", bad == "alpha", extreme=(0.0, 5e-324, 1e-300, 1e300, 1.7e308))
    )
    params["mode"] = draw(
        hyper("mode", ("oblivious", "m-oblivious"), (), ("m_oblivious", 1), bad == "mode")
    )
    params["estimation_fraction"] = draw(
        hyper(
            "estimation_fraction",
            (0.3, 0.5, 0.7),
            (0.05, 0.95),
            (0.0, 1.0, -0.5, np.nan),
            bad == "estimation_fraction",
        )
    )
    data.update(point_sets(draw, n, d, n_test, bad))
    data["y"] = draw(targets(n, bad=bad == "y"))
    return Case(params, data)


def run_oblivious_ridge(params, data):
    model = ObliviousRidge(**params).fit(data["X"], data["y"], sensitive_features=data[S])
    return model.predict(data["X_test"], sensitive_features=data[f"{S}_test"])


@budget("ObliviousRidge")
@given(oblivious_ridge_cases())
def test_oblivious_ridge(case):
    check(run_oblivious_ridge, case)


# --------------------------------------------------------------------------------------------
# StreamingObliviousRidge


@st.composite
def streaming_ridge_cases(draw):
    n, d, n_test = draw(sizes())
    names = ("X", "X_test", "y", "alpha", "block_rows", *FEATURE_MAP_ARGS, *PARTITION_ARGS)
    bad = draw(corrupted(names))
    modes = ("values", "values", "dyadic", "none")
    params, data = draw(partition_setup(n, n_test, bad, modes=modes))
    params.update(draw(feature_map_params(n, bad)))
    params["alpha"] = draw(
        positive(
            "alpha",
            bad == "alpha",
            extreme=(0.0, 5e-324, 1e-300, 1e300, 1.7e308),
            invalid=NEGATIVE_OR_NOT_REAL,
        )
    )
    params["block_rows"] = draw(
        hyper("block_rows", (1, 3, 4096), (), (0, -1, 2.5, None), bad == "block_rows")
    )
    data.update(point_sets(draw, n, d, n_test, bad))
    data["y"] = draw(targets(n, bad=bad == "y"))
    return Case(params, data)


EXTRAPOLATION_RTOL = 1e-6


def run_streaming_ridge(params, data):
    model = StreamingObliviousRidge(**params).fit(data["X"], data["y"], sensitive_features=data[S])
    return model.predict(data["X_test"], sensitive_features=data[f"{S}_test"])


@budget("StreamingObliviousRidge")
@given(streaming_ridge_cases())
def test_streaming_oblivious_ridge(case):
    # Predictions are sums φ(x)ᵀw + b that cancel: for test points far outside the scale of
    # the fit points (X stressed: 1e±300) the features φ(x) are up to 1e8 times the
    # prediction, so a change in the order BLAS sums them (another layout of X_test) moves
    # the prediction by 1e8 rounding units.
    check(
        run_streaming_ridge,
        case,
        layout_rtol=EXTRAPOLATION_RTOL if "X" in case.stress else LAYOUT_RTOL,
    )


# --------------------------------------------------------------------------------------------
# PartitionConditionalMean


@st.composite
def partition_cases(draw):
    n, _, n_test = draw(sizes())
    bad = draw(corrupted((S, f"{S}_test", "partition_bounds", "cells_per_axis", "values")))
    data = {}
    if draw(st.booleans()):  # finite values, explicit cells or those seen in fit
        codes = draw(group_codes(n))
        data[S], table, container = draw(groups(codes, S, bad == S))
        test_codes = np.random.default_rng(n).integers(0, codes.max() + 1, n_test)
        data[f"{S}_test"] = draw(  # any number of query rows: none is "short"
            predict_groups(test_codes, table, container, S, bad == f"{S}_test", QUERY_BAD)
        )
        values = plain(None)
        if draw(st.booleans()) and not data[S].corrupt:
            # explicit cells: the labels, and one more that no point has
            strings = any(isinstance(v, str) for v in table)
            extra = "\U0010ffff" if strings else max(map(float, table)) * 2 + 1e9  # sorts last
            cells = [*table, extra]
            values = Arg(cells, [*range(len(table)), len(table)], note=f"values={cells!r}")
        params = {"partition": ("values", values)}
    else:
        ds = draw(st.integers(1, 3))
        data[S] = draw(continuous(n, ds, bad=bad == S))
        data[f"{S}_test"] = draw(
            continuous(n_test, ds, bad=bad == f"{S}_test", corruptions=("nan", "inf", "string"))
        )
        pair = bounds(ds, bad == "partition_bounds").filter(
            lambda a: isinstance(a.given, tuple) and len(a.given) == 2
        )
        cells = draw(cells_per_axis(ds, n, bad == "cells_per_axis"))
        params = {"partition": ("dyadic", draw(pair), cells)}
    data["values"] = draw(targets(n, name="values", bad=bad == "values"))
    if data[S].corrupt and "short" in data[S].note:  # then values is one longer than S
        data[S] = Arg(data[S].given, None, frozenset({S, "values"}), note=data[S].note)
    return Case({"partition": _partition_arg(params["partition"])}, data)


QUERY_BAD = ("unseen", "missing", "nan")


def _partition_arg(spec):
    """One Arg holding the partition's constructor arguments (corrupt names as given)."""
    kind, *args = spec
    corrupt = frozenset().union(*(a.corrupt for a in args))
    stress = frozenset().union(*(a.stress for a in args))
    if kind == "dyadic":  # DyadicPartition(low, high, cells_per_axis)
        corrupt, stress = (_box_names(names) for names in (corrupt, stress))
    given_args = tuple(a.given for a in args)
    canonical_args = tuple(a.canonical for a in args)
    note = f"{kind}{tuple(a.note for a in args)}"
    return Arg((kind, given_args), (kind, canonical_args), frozenset(corrupt), stress, note=note)


def _box_names(names):
    """partition_bounds is (low, high) here."""
    box = {"low", "high"} if "partition_bounds" in names else set()
    return (names - {"partition_bounds"}) | box


def _partition(spec):
    kind, args = spec
    if kind == "values":
        return FiniteValuePartition(values=args[0])
    (low, high), cells = args
    return DyadicPartition(low, high, cells_per_axis=cells)


def run_partition(params, data):
    model = PartitionConditionalMean(_partition(params["partition"])).fit(data[S])
    S_test = data[f"{S}_test"]
    return (
        model.membership(S_test),
        model.weights_,
        model.conditional_mean(data["values"], S_test),
    )


@budget("PartitionConditionalMean")
@given(partition_cases())
def test_partition_conditional_mean(case):
    check(run_partition, case)
