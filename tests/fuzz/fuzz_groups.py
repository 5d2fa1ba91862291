"""Sensitive-feature set-ups shared by the oblivious estimators' fuzz tests.

:func:`partition_setup` draws how the conditional mean :math:`E[\\varphi(X)|S]` is estimated
(finite labels, a dyadic partition of a box, a kernel CME, or one group) together with the
sensitive features of the fit and the predict points.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import strategies as st

from krepro.cme import CMEConditionalMean
from tests.fuzz.fuzz_inputs import (
    Arg,
    S,
    continuous,
    gamma,
    group_codes,
    groups,
    hyper,
    plain,
    positive,
    predict_groups,
)

NAN, INF = float("nan"), float("inf")


@st.composite
def bounds(draw, ds, bad=False):
    """``partition_bounds`` of the box [0, 1]^ds; ``bad``: invalid, or missing some points."""
    valid = [(0.0, 1.0), (-5.0, 5.0), ([0.0] * ds, [1.0] * ds), (np.zeros(ds), np.ones(ds))]
    extreme = [(0.0, 1e300), (-1e300, 1e300), (-1.7e308, 1.7e308)]
    wrong = [0.0] * (ds + 1), [1.0] * (ds + 1)
    invalid = [(1.0, 0.0), (0.0, NAN), (-INF, INF), (0.0, INF), (0.5, 0.5), wrong, (0.0,), "box"]
    if bad and draw(st.integers(0, 4)) == 0:  # a valid box that misses some of the points
        return Arg((0.0, 0.5), (0.0, 0.5), frozenset({"partition_bounds", S}), note="(0, 0.5)")
    return draw(hyper("partition_bounds", valid, extreme, invalid, bad))


@st.composite
def cells_per_axis(draw, ds, m=1, bad=False):
    """``cells_per_axis`` of a ``ds``-dimensional box fitted on ``m`` points.

    More than 16 cells per point is stress (refused by name: ``DyadicPartition``).
    """
    valid, extreme, invalid = (1, 2, 4, 16), (1000, 10**6, 2**31), (0, -2, 2.5, "16", NAN)
    arg = draw(hyper("cells_per_axis", valid, extreme, invalid, bad))
    cells = arg.given
    if not bad and cells**ds > 16 * m:
        note = f"cells_per_axis={cells} ({cells}^{ds} cells)"
        return Arg(cells, cells, stress=frozenset({"cells_per_axis"}), note=note)
    return Arg(cells, cells, arg.corrupt, note=arg.note)


PARTITION_ARGS = (S, f"{S}_test", "partition_bounds", "cells_per_axis", "conditional_mean")


@st.composite
def partition_setup(
    draw, n, n_test, bad=None, modes=("values",) * 3 + ("dyadic", "cme", "none"), m=None
):
    """``(params, data)`` Args: partition parameters and fit/predict sensitive features.

    ``data`` has ``sensitive_features`` (fit) and ``sensitive_features_test`` (predict);
    ``bad`` is the one of :data:`PARTITION_ARGS` to corrupt (where the mode has it), or None;
    ``m``: the points the partition is fitted on (default ``n``).
    """
    mode = draw(st.sampled_from(modes))
    params, data = {}, {}
    if mode == "none":
        data[S] = plain(None, "None")
        data[f"{S}_test"] = plain(None, "None")
        if bad == f"{S}_test":  # labels at predict for a model fitted without
            labels = np.arange(n_test) % 2
            data[f"{S}_test"] = Arg(labels, labels, frozenset({S}), note="labels, fitted without")
    elif mode == "values":
        codes = draw(group_codes(n))
        data[S], table, container = draw(groups(codes, S, bad == S))
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        test_codes = rng.integers(0, codes.max() + 1, n_test)
        data[f"{S}_test"] = draw(
            predict_groups(test_codes, table, container, S, bad == f"{S}_test")
        )
        if draw(st.integers(0, 4)) == 0:  # 2 columns: (label, code % 2) rows are the cells
            data[S], data[f"{S}_test"] = two_columns(data[S]), two_columns(data[f"{S}_test"])
    else:
        ds = draw(st.integers(1, 2))
        data[S] = draw(continuous(n, ds, bad=bad == S))
        data[f"{S}_test"] = draw(continuous(n_test, ds, bad=bad == f"{S}_test"))
        if mode == "dyadic":
            params["partition"] = plain("dyadic")
            params["partition_bounds"] = draw(bounds(ds, bad == "partition_bounds"))
            cells = cells_per_axis(ds, n if m is None else m, bad == "cells_per_axis")
            params["cells_per_axis"] = draw(cells)
        else:
            which = draw(st.sampled_from(("gamma", "alpha")))
            cme_gamma = draw(gamma(bad=bad == "conditional_mean" and which == "gamma"))
            cme_alpha = draw(positive("alpha", bad == "conditional_mean" and which == "alpha"))
            estimator = CMEConditionalMean(gamma=cme_gamma.given, alpha=cme_alpha.given)
            params["conditional_mean"] = Arg(
                estimator,
                estimator,
                cme_gamma.corrupt | cme_alpha.corrupt,
                cme_gamma.stress | cme_alpha.stress,
                note=f"CME({cme_gamma.note}, {cme_alpha.note})",
            )
    return params, data


def two_columns(arg):
    """Labels as a 2-column DataFrame ``(label, code % 2)``.

    The parity is a function of the label, so the distinct rows are the distinct labels, in
    the same (lexicographic) order: the canonical codes stay those of the labels.
    """
    if arg.given is None or arg.corrupt:
        return arg
    codes = np.asarray(arg.canonical)
    frame = pd.DataFrame({"label": pd.Series(list(arg.given), dtype=object), "parity": codes % 2})
    return Arg(frame, codes, arg.corrupt, arg.stress, arg.exact, f"2 columns of {arg.note}")
