r"""Benchmark: oblivious Nyström features + linear ridge on a million rows, streamed in blocks.

Target (issue 28, item 3): ``StreamingObliviousRidge`` (Nyström, ``--n-components`` 1000
landmarks, a 16-cell dyadic partition of a continuous S, ridge with intercept) fitted on
``--n`` (10⁶) synthetic rows in blocks of ``--block-rows`` rows costs at most
``--max-ratio`` (1.5) times scikit-learn's ``Nystroem(n_components=1000)`` followed by
``Ridge`` on the same data, at the same BLAS thread cap, with the peak resident memory of the
process at most ``--max-memory-gb`` (2) GB; and the streamed fit equals the in-memory fit
(``ObliviousFeatures(...).fit_transform`` + ``Ridge``) on a ``--check-n`` (10⁵) row subset to
``--tolerance`` (1e-8, largest coefficient and prediction difference relative to the largest
coefficient and prediction).

Data: S ~ U[0, 1], X = U + 1.5 S (1, 1, 0, …) with U ~ N(0, I_d), y = sin(2 X₁) + X₂/2 + S +
ε with ε ~ N(0, 0.01), drawn from ``numpy.random.SeedSequence(--seed)``; the n × d data stay
in memory (40 MB at n = 10⁶, d = 5), the n × D features (8 GB) never do. RBF kernel
γ = ``--gamma``; landmarks drawn from the first ``--check-n`` rows (the same pool in the
streamed and in-memory fits of the check).

scikit-learn's pipeline holds the n × D features (and ``Nystroem.transform`` a second n × D
array, ``Ridge`` a centred copy: ≈ 24 GB at n = 10⁶), so it runs on the first
``--baseline-n`` rows (default min(n, 2·10⁵); best of ``--repeats``) and its CPU time is
extrapolated to n: its cost is a fixed part, timed on its own (``Nystroem.fit``: landmarks
and their SVD; Ridge's D × D Cholesky solve), plus O(n D (d + D)) proportional to n. The
ratio at ``--baseline-n`` rows, where both were measured, is printed too.

Times are CPU seconds (``time.process_time``), BLAS capped at ``--threads`` (default 1).
Peak memory is the process's peak resident set size (``ru_maxrss``) read right after the
streamed fit, before anything else large is allocated (interpreter, data and fit together).

Run (from the repository root)::

    .venv/bin/python benchmarks/fair_regression_scale.py            # n = 10⁶
    .venv/bin/python benchmarks/fair_regression_scale.py --n 200000 --check-n 50000

The last two lines are ``ratio_to_sklearn_nystroem_ridge: X`` and ``peak_gb: Y``; exit status
1 when a goal is missed (a FAIL line above them says which).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np
import sklearn
from scipy import linalg
from sklearn.kernel_approximation import Nystroem
from sklearn.linear_model import Ridge
from threadpoolctl import threadpool_limits

from krepro.fairness.oblivious_features import ObliviousFeatures
from krepro.fairness.streaming import StreamingObliviousRidge

GB = 1024**3


def synthetic(n, d, seed):
    """S ~ U[0, 1]; X = U + 1.5 S on the first two axes; y = sin(2 X₁) + X₂/2 + S + ε."""
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    S = rng.uniform(0.0, 1.0, n)
    X = rng.standard_normal((n, d))
    X[:, : min(2, d)] += 1.5 * S[:, None]
    y = np.sin(2.0 * X[:, 0]) + 0.5 * X[:, min(1, d - 1)] + S + 0.1 * rng.standard_normal(n)
    return X, y, S


def model_params(args):
    return {
        "alpha": args.alpha,
        "gamma": args.gamma,
        "n_components": args.n_components,
        "partition": "dyadic",
        "partition_bounds": (0.0, 1.0),
        "cells_per_axis": args.cells,
        "random_state": args.seed,
    }


def streamed_fit(X, y, S, pool, args):
    """``partial_fit`` over blocks of ``--block-rows`` rows (landmarks from ``pool``)."""
    model = StreamingObliviousRidge(**model_params(args))
    for start in range(0, X.shape[0], args.block_rows):
        rows = slice(start, start + args.block_rows)
        extra = {"landmarks": pool} if start == 0 else {}
        model.partial_fit(X[rows], y[rows], sensitive_features=S[rows], **extra)
    return model


def in_memory_fit(X, y, S, pool, args):
    params = model_params(args)
    alpha = params.pop("alpha")
    features = ObliviousFeatures(**params)
    Z = features.fit_transform(X, sensitive_features=S, landmarks=pool)
    return features, Ridge(alpha=alpha).fit(Z, y), Z


def sklearn_fit(X, y, args):
    features = Nystroem(gamma=args.gamma, n_components=args.n_components, random_state=args.seed)
    F = features.fit_transform(X)
    return Ridge(alpha=args.alpha).fit(F, y)


def sklearn_fixed(X, args):
    """The parts of the baseline whose cost does not grow with n: drawing the landmarks and
    the SVD of their Gram matrix (``Nystroem.fit``), and Ridge's D × D Cholesky solve."""
    Nystroem(gamma=args.gamma, n_components=args.n_components, random_state=args.seed).fit(X)
    D = args.n_components
    rng = np.random.default_rng(0)
    A = rng.standard_normal((2 * D, D))
    gram = A.T @ A  # not timed separately: a D × D product is part of the per-row cost too
    start = time.process_time()
    linalg.solve(gram + args.alpha * np.eye(D), np.ones(D), assume_a="pos")
    return time.process_time() - start


def cpu_time(function):
    gc.collect()
    start = time.process_time()
    result = function()
    return time.process_time() - start, result


def peak_rss_gb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / GB  # KiB on Linux


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--d", type=int, default=5)
    parser.add_argument("--n-components", type=int, default=1000)
    parser.add_argument("--gamma", type=float, default=0.2)
    parser.add_argument("--alpha", type=float, default=1.0)
    parser.add_argument("--cells", type=int, default=16)
    parser.add_argument("--block-rows", type=int, default=50_000)
    parser.add_argument("--check-n", type=int, default=100_000)
    parser.add_argument("--baseline-n", type=int, default=None)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-ratio", type=float, default=1.5)
    parser.add_argument("--max-memory-gb", type=float, default=2.0)
    parser.add_argument("--tolerance", type=float, default=1e-8)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    check_n = min(args.check_n, args.n)
    baseline_n = min(args.baseline_n or 200_000, args.n)
    if baseline_n < 1 or args.repeats < 1:
        parser.error("--baseline-n and --repeats must be at least 1")

    X, y, S = synthetic(args.n, args.d, args.seed)
    pool = X[:check_n]
    with threadpool_limits(limits=args.threads):
        ours_seconds, model = cpu_time(lambda: streamed_fit(X, y, S, pool, args))
        peak_gb = peak_rss_gb()
        # the check: streamed vs in-memory on the first check_n rows
        sub = slice(0, check_n)
        streamed = streamed_fit(X[sub], y[sub], S[sub], pool, args)
        features, ridge, Z = in_memory_fit(X[sub], y[sub], S[sub], pool, args)
        coef_error = np.abs(streamed.coef_ - ridge.coef_).max() / np.abs(ridge.coef_).max()
        expected = ridge.predict(Z)
        del Z
        predicted = streamed.predict(X[sub], sensitive_features=S[sub])
        prediction_error = np.abs(predicted - expected).max() / np.abs(expected).max()
        del features, ridge, streamed
        # the baseline on baseline_n rows (best of --repeats), its fixed part (the landmark
        # SVD of Nystroem.fit and Ridge's D × D Cholesky solve) timed on its own, and ours at
        # baseline_n rows
        sklearn_seconds = min(
            cpu_time(lambda: sklearn_fit(X[:baseline_n], y[:baseline_n], args))[0]
            for _ in range(args.repeats)
        )
        fixed_seconds = min(cpu_time(lambda: sklearn_fixed(X, args))[0] for _ in range(3))
        rows = slice(0, baseline_n)
        same_size_seconds, _ = cpu_time(
            lambda: streamed_fit(X[rows], y[rows], S[rows], X[:check_n], args)
        )
    per_row = max(sklearn_seconds - fixed_seconds, 0.0) / baseline_n
    scaled_sklearn = fixed_seconds + per_row * args.n
    ratio = ours_seconds / scaled_sklearn
    rmse = float(
        np.sqrt(
            np.mean((model.predict(X[:check_n], sensitive_features=S[:check_n]) - y[:check_n]) ** 2)
        )
    )
    result = {
        "n": args.n,
        "d": args.d,
        "n_components": args.n_components,
        "gamma": args.gamma,
        "alpha": args.alpha,
        "cells": args.cells,
        "block_rows": args.block_rows,
        "threads": args.threads,
        "ours_cpu_seconds": ours_seconds,
        "baseline_n": baseline_n,
        "sklearn_fixed_cpu_seconds": fixed_seconds,
        "sklearn_cpu_seconds_at_baseline_n": sklearn_seconds,
        "sklearn_cpu_seconds_scaled": scaled_sklearn,
        "ours_cpu_seconds_at_baseline_n": same_size_seconds,
        "ratio": ratio,
        "ratio_at_baseline_n": same_size_seconds / sklearn_seconds,
        "peak_gb": peak_gb,
        "check_n": check_n,
        "coef_relative_error": float(coef_error),
        "prediction_relative_error": float(prediction_error),
        "in_sample_rmse_first_check_rows": rmse,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "sklearn": sklearn.__version__,
        "cpu_count": os.cpu_count(),
    }
    print(
        f"n = {args.n:,}, d = {args.d}, D = {args.n_components}, {args.cells} cells,"
        f" blocks of {args.block_rows:,} rows, {args.threads} thread(s)\n"
        f"streamed oblivious ridge: {ours_seconds:.1f} CPU-s (RMSE {rmse:.3f} on the first"
        f" {check_n:,} rows)\n"
        f"sklearn Nystroem + Ridge: {sklearn_seconds:.1f} CPU-s on {baseline_n:,} rows"
        f" ({fixed_seconds:.2f} of them fixed), extrapolated to {args.n:,}"
        f" rows: {scaled_sklearn:.1f} CPU-s; ours on {baseline_n:,} rows"
        f" {same_size_seconds:.1f} CPU-s (ratio {result['ratio_at_baseline_n']:.3f})\n"
        f"check on {check_n:,} rows, streamed vs in-memory: coefficients {coef_error:.2e},"
        f" predictions {prediction_error:.2e} (relative; goal ≤ {args.tolerance:g})"
    )
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    failed = []
    if ratio > args.max_ratio:
        failed.append(f"time ratio {ratio:.3f} > {args.max_ratio:g}")
    if peak_gb > args.max_memory_gb:
        failed.append(f"peak memory {peak_gb:.2f} GB > {args.max_memory_gb:g} GB")
    if max(coef_error, prediction_error) > args.tolerance:
        failed.append(
            "streamed fit differs from the in-memory fit by "
            f"{max(coef_error, prediction_error):.2e}"
        )
    print("FAIL: " + "; ".join(failed) if failed else "PASS")
    print(f"ratio_to_sklearn_nystroem_ridge: {ratio:.3f}")
    print(f"peak_gb: {peak_gb:.3f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
