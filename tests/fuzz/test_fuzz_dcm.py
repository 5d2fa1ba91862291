"""Fuzzing the domain-generalisation transformers: DCM, FastDCM, DICA and COIR (property:
``fuzz_property.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from krepro.dcm import COIR, DCM, DICA, FastDCM
from tests.fuzz.fuzz_inputs import (
    Arg,
    Case,
    corrupted,
    gamma,
    group_codes,
    groups,
    hyper,
    plain,
    positive,
    targets,
)
from tests.fuzz.fuzz_params import point_sets, sizes
from tests.fuzz.fuzz_property import check
from tests.fuzz.fuzz_settings import budget

pytestmark = pytest.mark.fuzz

BAD_COUNTS = (0, -1, 2.5, "2", None)
BAD_RIDGE = (-1.0, np.nan, np.inf, "0")
COMMON_ARGS = ("X", "X_test", "y", "domains", "n_components", "gamma", "epsilon", "n_landmarks")


@st.composite
def domain_cases(draw, estimator, extra_args=()):
    """A case for ``estimator`` (DCM, FastDCM, DICA or COIR) and its corrupted argument."""
    n, d, n_test = draw(sizes())
    bad = draw(corrupted((*COMMON_ARGS, "target_gamma", *extra_args)))
    target_kernel = draw(st.sampled_from(("delta", "delta", "rbf")))
    params = {
        "n_components": draw(
            hyper(
                "n_components", (1, 2, 3), (n + 5,), (0, -1, 2.5, "2", None), bad == "n_components"
            )
        ),
        "gamma": draw(gamma(bad=bad == "gamma", extra_valid=("median",))),
        "epsilon": draw(positive("epsilon", bad == "epsilon")),
        "target_kernel": plain(target_kernel),
        "n_landmarks": draw(
            hyper("n_landmarks", (2, 5, n), (n + 5,), BAD_COUNTS, bad == "n_landmarks")
        ),
        "eigensolver": plain(draw(st.sampled_from(("partial", "dense")))),
        "random_state": plain(0),
    }
    if estimator is not FastDCM:
        params["approximation"] = plain(draw(st.sampled_from(("exact", "nystroem"))))
    data = point_sets(draw, n, d, n_test, bad)
    if target_kernel == "rbf":
        params["target_gamma"] = draw(gamma("target_gamma", bad == "target_gamma"))
        data["y"] = draw(targets(n, bad=bad == "y"))
    else:
        classes = draw(group_codes(n, min_groups=2, max_groups=3))
        data["y"] = draw(groups(classes, "y", bad == "y"))[0]
    if draw(st.integers(0, 4)) == 0 and bad != "domains":
        data["domains"] = plain(None, "None")
    else:
        data["domains"] = draw(groups(draw(group_codes(n)), "domains", bad == "domains"))[0]
    return n, bad, params, data


def run(estimator):
    def fit_transform(params, data):
        model = estimator(**params).fit(data["X"], data["y"], domains=data["domains"])
        return model.transform(data["X"]), model.transform(data["X_test"])

    return fit_transform


@st.composite
def dcm_cases(draw, estimator):
    _, bad, params, data = draw(domain_cases(estimator, ("solver",)))
    solver = draw(st.sampled_from(("reduced", "reduced", "paper")))
    approximation = params.get("approximation", plain("nystroem")).given
    if bad == "solver":
        params["solver"] = Arg("eqs", "eqs", frozenset({"solver"}), note="solver='eqs'")
    elif solver == "paper" and approximation == "exact":
        params["solver"] = Arg(
            "paper", "paper", frozenset({"solver", "approximation"}), note="paper with exact"
        )
    else:
        params["solver"] = plain(solver)
    return Case(params, data)


@budget("DCM")
@given(dcm_cases(DCM))
def test_dcm(case):
    check(run(DCM), case)


@budget("FastDCM")
@given(dcm_cases(FastDCM))
def test_fast_dcm(case):
    check(run(FastDCM), case)


@st.composite
def dica_cases(draw):
    _, bad, params, data = draw(domain_cases(DICA, ("ridge",)))
    params["supervised"] = plain(bad == "y" or draw(st.booleans()))  # else y is ignored
    params["ridge"] = draw(
        hyper(
            "ridge", (None, 0.0, 0.1), (1e-300, 1e300), (-1.0, np.nan, np.inf, "0"), bad == "ridge"
        )
    )
    return Case(params, data)


@budget("DICA")
@given(dica_cases())
def test_dica(case):
    check(run(DICA), case)


@st.composite
def coir_cases(draw):
    return Case(*draw(domain_cases(COIR))[2:])


@budget("COIR")
@given(coir_cases())
def test_coir(case):
    check(run(COIR), case)
