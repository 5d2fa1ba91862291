"""Fuzzing the regressions: DistributedKernelRidge, ConditionalMeanEmbedding,
CMEConditionalMean and HSICRidge (property: ``fuzz_property.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from krepro.cme import CMEConditionalMean, ConditionalMeanEmbedding
from krepro.distributed import DistributedKernelRidge
from krepro.fairness.hsic_ridge import HSICRidge
from krepro.kernels import gram
from tests.fuzz.fuzz_inputs import (
    NEGATIVE_OR_NOT_REAL,
    Arg,
    Case,
    S,
    continuous,
    corrupted,
    gamma,
    group_codes,
    groups,
    hyper,
    plain,
    positive,
    targets,
)
from tests.fuzz.fuzz_params import KERNEL_ARGS, kernel_params, point_sets, sizes
from tests.fuzz.fuzz_property import check
from tests.fuzz.fuzz_settings import budget

pytestmark = pytest.mark.fuzz

# --------------------------------------------------------------------------------------------
# DistributedKernelRidge


@st.composite
def distributed_cases(draw):
    n, d, n_test = draw(sizes())
    bad = draw(corrupted(("X", "X_test", "y", "n_partitions", "rho", "length_scale", *KERNEL_ARGS)))
    params = draw(kernel_params(bad, kernels=("matern", "matern", "rbf", "linear", "poly")))
    if params["kernel"].given == "matern":
        nu = params["kernel_params"].given["nu"]
        length = draw(
            hyper(
                "length_scale",
                (0.5, 1.0, 3.0),
                (1e-300, 1e300),
                (0.0, -1.0, np.nan, np.inf),
                bad == "length_scale",
            )
        )
        arg = params["kernel_params"]
        params["kernel_params"] = Arg(
            {"nu": nu, "length_scale": length.given},
            {"nu": nu, "length_scale": length.given},
            arg.corrupt | length.corrupt,
            length.stress,
            note=f"{arg.note}, {length.note}",
        )
    params["n_partitions"] = draw(
        hyper("n_partitions", (1, 2, 3), (n,), (0, -1, 2.5, n + 1, None), bad == "n_partitions")
    )
    params["rho"] = draw(positive("rho", bad == "rho"))
    data = point_sets(draw, n, d, n_test, bad)
    data["y"] = draw(targets(n, bad=bad == "y"))
    return Case(params, data)


def run_distributed(params, data):
    model = DistributedKernelRidge(**params).fit(data["X"], data["y"])
    return model.predict(data["X_test"]), model.predict_local(data["X_test"])


@budget("DistributedKernelRidge")
@given(distributed_cases())
def test_distributed_kernel_ridge(case):
    check(run_distributed, case)


# --------------------------------------------------------------------------------------------
# ConditionalMeanEmbedding


@st.composite
def embedding_cases(draw):
    n, d, n_test = draw(sizes())
    bad = draw(corrupted(("X", "X_test", "y", "alpha", "output_gamma", *KERNEL_ARGS)))
    params = draw(kernel_params(bad))
    params["alpha"] = draw(positive("alpha", bad == "alpha"))
    output = draw(st.sampled_from(("linear", "rbf", "delta")))
    params["output_kernel"] = plain(output)
    params["output_gamma"] = draw(gamma("output_gamma", bad == "output_gamma"))
    data = point_sets(draw, n, d, n_test, bad)
    if output == "delta":
        classes = draw(group_codes(n, min_groups=1, max_groups=4))
        data["y"] = draw(groups(classes, "y", bad == "y"))[0]
    else:
        data["y"] = draw(targets(n, bad=bad == "y"))
    return Case(params, data)


def run_embedding(params, data):
    model = ConditionalMeanEmbedding(**params).fit(data["X"], data["y"])
    X = data["X_test"]
    if params["output_kernel"] == "linear":
        return model.weights(X), model.predict_mean(X)
    if params["output_kernel"] == "delta":
        return model.weights(X), model.category_scores(X)
    return model.weights(X), model.embedding_inner(X, X)


@budget("ConditionalMeanEmbedding")
@given(embedding_cases())
def test_conditional_mean_embedding(case):
    check(run_embedding, case)


# --------------------------------------------------------------------------------------------
# CMEConditionalMean


@st.composite
def cme_cases(draw):
    n, _, n_test = draw(sizes())
    ds = draw(st.integers(1, 3))
    bad = draw(corrupted((S, f"{S}_test", "values", "alpha", "alphas", *KERNEL_ARGS)))
    params = draw(kernel_params(bad, kernels=("rbf", "rbf", "linear", "matern")))
    params["alpha"] = draw(positive("alpha", bad == "alpha"))
    params["alphas"] = draw(
        hyper(
            "alphas",
            (None, None, [1e-3, 1e-1, 1.0]),
            ([1e-300, 1e300],),
            ([], [-1.0, 1.0], [np.nan], "grid", [[1.0]]),
            bad == "alphas",
        )
    )
    data = {
        S: draw(continuous(n, ds, bad=bad == S)),
        f"{S}_test": draw(
            continuous(n_test, ds, bad=bad == f"{S}_test", corruptions=("nan", "inf", "string"))
        ),
        "values": draw(targets(n, name="values", bad=bad == "values")),
    }
    if data[S].corrupt and "short" in data[S].note:  # then values is one longer than S
        data[S] = Arg(data[S].given, None, frozenset({S, "values"}), note=data[S].note)
    output_gram = None
    if params["alphas"].given is not None:
        X = np.random.default_rng(n).normal(size=(n, 2))
        output_gram = gram(X, kernel="rbf", gamma=0.5)
    data["output_gram"] = Arg(output_gram, output_gram, note="K(X, X)" * (output_gram is not None))
    return Case(params, data)


def run_cme(params, data):
    model = CMEConditionalMean(**params).fit(data[S], output_gram=data["output_gram"])
    S_test = data[f"{S}_test"]
    return model.membership(S_test), model.conditional_mean(data["values"], S_test)


@budget("CMEConditionalMean")
@given(cme_cases())
def test_cme_conditional_mean(case):
    check(run_cme, case)


# --------------------------------------------------------------------------------------------
# HSICRidge


@st.composite
def hsic_ridge_cases(draw):
    n, d, n_test = draw(sizes())
    ds = draw(st.integers(1, 2))
    names = ("X", "X_test", "y", S, "alpha", "mu", "sensitive_gamma", *KERNEL_ARGS)
    bad = draw(corrupted(names))
    params = draw(kernel_params(bad))
    params["alpha"] = draw(
        positive(
            "alpha",
            bad == "alpha",
            extreme=(0.0, 5e-324, 1e-300, 1e300, 1.7e308),
            invalid=NEGATIVE_OR_NOT_REAL,
        )
    )
    params["mu"] = draw(
        hyper(
            "mu",
            (0.0, 0.1, 1.0, 10.0),
            (5e-324, 1e-300, 1e12, 1e300, 1.7e308),
            NEGATIVE_OR_NOT_REAL,
            bad == "mu",
        )
    )
    params["sensitive_kernel"] = plain(draw(st.sampled_from(("rbf", "linear"))))
    params["sensitive_gamma"] = draw(gamma("sensitive_gamma", bad == "sensitive_gamma"))
    data = point_sets(draw, n, d, n_test, bad)
    data["y"] = draw(targets(n, bad=bad == "y"))
    data[S] = draw(continuous(n, ds, bad=bad == S))
    return Case(params, data)


def run_hsic_ridge(params, data):
    model = HSICRidge(**params).fit(data["X"], data["y"], sensitive_features=data[S])
    return model.predict(data["X_test"])


@budget("HSICRidge")
@given(hsic_ridge_cases())
def test_hsic_ridge(case):
    check(run_hsic_ridge, case)
