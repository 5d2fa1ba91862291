r"""Benchmark: ObliviousFeatures against scikit-learn's Nystroem on all of UCI Adult.

Target: ``ObliviousFeatures(n_components=2000).fit_transform(X,
sensitive_features=S)`` on all 45,222 complete Adult rows (corrected protocol's features,
training and test rows stacked; S = 1{male}) costs at most ``--max-ratio`` (3) times
``sklearn.kernel_approximation.Nystroem(n_components=2000).fit_transform(X)``, with peak
memory at most ``--max-memory-gb`` (2) GB.

Run (from the repository root)::

    KREPRO_DATA_MIRROR=/path/to/mirror .venv/bin/python benchmarks/oblivious_features.py
    .venv/bin/python benchmarks/oblivious_features.py --json benchmarks/out/oblivious_features.json

Exit status 1 when the time ratio or the memory bound is exceeded (a FAIL line says which).

Timings are best-of-``--repeats`` CPU times (``time.process_time``, BLAS capped at
``--threads``, default 1), alternating the two so that drifts in machine load hit both; CPU
time rather than wall time because the machines this runs on are shared. Peak memory is
measured in a separate, untimed run of each under ``tracemalloc`` (numpy reports its data
allocations to it) and includes the returned ``n × D`` matrix.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import sklearn
from sklearn.kernel_approximation import Nystroem
from threadpoolctl import threadpool_limits

from krepro.data.adult import load_adult
from krepro.fairness.oblivious import ObliviousFeatures


def adult_rows(directory):
    """All 45,222 complete rows (30,162 + 15,060), corrected features, and S = 1{male}."""
    split = load_adult(
        directory / "adult.data", directory / "adult.test", "corrected", n_train=30162
    )
    X = np.vstack([split.X_train, split.X_test])
    S = np.concatenate([split.s_train, split.s_test])
    return X, S


def run_ours(X, S, n_components, gamma, seed):
    features = ObliviousFeatures(gamma=gamma, n_components=n_components, random_state=seed)
    return features.fit_transform(X, sensitive_features=S)


def run_sklearn(X, n_components, gamma, seed):
    return Nystroem(gamma=gamma, n_components=n_components, random_state=seed).fit_transform(X)


def cpu_time(function):
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        result = function()
        return time.process_time() - start, result
    finally:
        gc.enable()


def peak_bytes(function):
    gc.collect()
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n-components", type=int, default=2000)
    parser.add_argument("--gamma", type=float, default=0.01)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-ratio", type=float, default=3.0)
    parser.add_argument("--max-memory-gb", type=float, default=2.0)
    parser.add_argument("--json", type=Path, default=None)
    mirror = os.environ.get("KREPRO_DATA_MIRROR")
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path(mirror) / "adult" if mirror else Path("resources/adult"),
        help="directory with the raw UCI adult.data and adult.test",
    )
    args = parser.parse_args(argv)

    X, S = adult_rows(args.data_dir)
    D = args.n_components
    ours_times, sklearn_times = [], []
    with threadpool_limits(limits=args.threads):
        for _ in range(args.repeats):
            t, Z = cpu_time(lambda: run_ours(X, S, D, args.gamma, args.seed))
            ours_times.append(t)
            del Z
            t, F = cpu_time(lambda: run_sklearn(X, D, args.gamma, args.seed))
            sklearn_times.append(t)
            del F
        ours_peak = peak_bytes(lambda: run_ours(X, S, D, args.gamma, args.seed))
        sklearn_peak = peak_bytes(lambda: run_sklearn(X, D, args.gamma, args.seed))
    ratio = min(ours_times) / min(sklearn_times)
    gb = 1024**3
    result = {
        "n_samples": int(X.shape[0]),
        "n_features": int(X.shape[1]),
        "n_components": D,
        "gamma": args.gamma,
        "threads": args.threads,
        "ours_cpu_seconds": min(ours_times),
        "sklearn_nystroem_cpu_seconds": min(sklearn_times),
        "ratio": ratio,
        "ours_peak_gb": ours_peak / gb,
        "sklearn_peak_gb": sklearn_peak / gb,
        "output_gb": X.shape[0] * D * 8 / gb,
        "max_ratio": args.max_ratio,
        "max_memory_gb": args.max_memory_gb,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "sklearn": sklearn.__version__,
        "cpu_count": os.cpu_count(),
    }
    print(
        f"n = {result['n_samples']}, d = {result['n_features']}, D = {D}, γ = {args.gamma:g},"
        f" {args.threads} thread(s)\n"
        f"ObliviousFeatures.fit_transform: {result['ours_cpu_seconds']:.2f} CPU-s,"
        f" peak {result['ours_peak_gb']:.2f} GB\n"
        f"sklearn Nystroem.fit_transform:  {result['sklearn_nystroem_cpu_seconds']:.2f} CPU-s,"
        f" peak {result['sklearn_peak_gb']:.2f} GB\n"
        f"ratio {ratio:.2f} (goal ≤ {args.max_ratio:g}); output alone"
        f" {result['output_gb']:.2f} GB"
    )
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    failed = False
    if ratio > args.max_ratio:
        print(f"FAIL: time ratio {ratio:.2f} > {args.max_ratio:g}")
        failed = True
    if result["ours_peak_gb"] > args.max_memory_gb:
        print(f"FAIL: peak memory {result['ours_peak_gb']:.2f} GB > {args.max_memory_gb:g} GB")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
