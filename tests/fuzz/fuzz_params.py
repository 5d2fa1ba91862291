"""Kernel hyperparameters, sizes and point sets shared by the fuzz tests."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from tests.fuzz.fuzz_inputs import Arg, features, gamma, hyper, plain

KERNELS = ("rbf", "rbf", "linear", "poly", "matern")


@st.composite
def kernel_params(draw, bad=None, kernels=KERNELS):
    """``kernel`` with its ``gamma`` (and degree/coef0 or Matérn order); ``bad`` one of
    :data:`KERNEL_ARGS` or None."""
    kernel = draw(st.sampled_from(kernels))
    params = {"kernel": plain(kernel), "gamma": draw(gamma(bad=bad == "gamma"))}
    if kernel == "poly":
        params["degree"] = draw(hyper("degree", (1, 2, 3), (40,), (-1, 2.5, "3", np.nan)))
        # coef0 < 0: the polynomial kernel is not positive semi-definite (stress)
        params["coef0"] = draw(hyper("coef0", (0.0, 1.0), (1e300, -1.0), (np.nan, np.inf)))
    if kernel == "matern":
        nu = draw(hyper("nu", (0.5, 1.5, 2.5, 3.5), (), (1.0, -0.5, np.nan), bad == "kernel"))
        corrupt = nu.corrupt | ({"kernel_params"} if nu.corrupt else set())
        params["kernel_params"] = Arg({"nu": nu.given}, {"nu": nu.given}, corrupt, note=nu.note)
    if bad == "kernel" and kernel != "matern":
        name = draw(st.sampled_from(("sigmoid", "RBF", None, 3)))
        params["kernel"] = Arg(name, name, frozenset({"kernel"}), note=f"kernel={name!r}")
    return params


KERNEL_ARGS = ("gamma", "kernel")


@st.composite
def sizes(draw, n_min=6):
    return draw(st.integers(n_min, 30)), draw(st.integers(1, 4)), draw(st.integers(1, 12))


def point_sets(draw, n, d, n_test, bad):
    return {
        "X": draw(features(n, d, bad=bad == "X")),
        "X_test": draw(features(n_test, d, bad=bad == "X_test", predict=True)),
    }


@st.composite
def feature_map_params(draw, n, bad):
    """Kernel and approximation of an explicit feature map; ``bad`` as in :func:`kernel_params`
    or ``"n_components"`` / ``"approximation"``."""
    kernel = draw(st.sampled_from(KERNELS))
    approximation = draw(st.sampled_from(("nystroem", "nystroem", "rff")))
    params = draw(kernel_params(bad, kernels=(kernel,)))
    params["n_components"] = draw(
        hyper(
            "n_components",
            (1, 2, max(1, n // 2), n),
            (n + 3,),
            (0, -1, 2.5, "5", None),
            bad == "n_components",
        )
    )
    params["approximation"] = plain(approximation)
    params["random_state"] = plain(0)
    if approximation == "rff" and params["kernel"].given != "rbf":
        params["approximation"] = Arg(
            "rff", "rff", frozenset({"approximation", "kernel"}), note=f"rff with {kernel}"
        )
    if bad == "approximation":
        params["approximation"] = Arg("exact", "exact", frozenset({"approximation"}))
    return params


FEATURE_MAP_ARGS = (*KERNEL_ARGS, "n_components", "approximation")
