r"""Benchmark: standard DCM vs FastDCM fit time on the Parkinson's training split.

Targets (issue "DCM and FastDCM"): standard (exact) DCM on one 29-subject training split
(N ≈ 4,000) costs at most ``--max-standard-cpu`` (30) CPU-seconds for the whole fit —
kernel, one symmetric eigendecomposition (kernel PCA), the RBF target's Cholesky solve, the
r × r symmetric-definite solve and the projection of the training points — and FastDCM with
M = 5 landmarks at most ``--max-fast-ms`` (10) CPU-milliseconds. The ratio is printed next to
the paper's claim of "a substantially lower computational cost".

Run (from the repository root; needs the data file)::

    .venv/bin/python benchmarks/dcm.py
    .venv/bin/python benchmarks/dcm.py --json benchmarks/out/dcm.json \
        --data resources/parkinsons/parkinsons_updrs.data

BLAS pools are capped at ``--threads`` (default 1). CPU time is ``time.process_time``; the
fast fits are repeated ``--fast-reps`` times and the median is reported. Exit status 1 on
FAIL.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import threadpoolctl
from sklearn.preprocessing import StandardScaler

from krepro.data.parkinsons import load_parkinsons, subject_split
from krepro.dcm import DCM, FastDCM, median_gamma
from krepro.seeding import generator

DEFAULT_DATA = (
    Path(os.environ.get("KREPRO_DATA_MIRROR", "resources"))
    / "parkinsons"
    / ("parkinsons_updrs.data")
)


def timed(fn):
    start, wall = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - start, time.perf_counter() - wall


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--fast-reps", type=int, default=50)
    parser.add_argument("--rank-tol", type=float, default=1e-6)
    parser.add_argument("--max-standard-cpu", type=float, default=30.0)
    parser.add_argument("--max-fast-ms", type=float, default=10.0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)

    data = load_parkinsons(args.data)
    train = subject_split(data.subject, 29, generator(20211208, "dcm_parkinsons", 0))
    X = StandardScaler().fit_transform(data.X[train])
    y, d = data.targets["motor"][train], data.subject[train]
    common = {
        "gamma": median_gamma(X),
        "epsilon": 1e-4,
        "target_kernel": "rbf",
        "target_gamma": median_gamma(y),
    }
    with threadpoolctl.threadpool_limits(args.threads):
        standard, cpu_std, wall_std = timed(
            lambda: DCM(5, rank_tol=args.rank_tol, **common).fit(X, y, domains=d)
        )
        fast_cpu, fast_wall, paper_cpu = [], [], []
        for rep in range(args.fast_reps):
            _, cpu, wall = timed(
                lambda rep=rep: FastDCM(5, n_landmarks=5, random_state=rep, **common).fit(
                    X, y, domains=d
                )
            )
            fast_cpu.append(cpu)
            fast_wall.append(wall)
            _, cpu, _ = timed(
                lambda rep=rep: FastDCM(
                    5, n_landmarks=5, random_state=rep, solver="paper", **common
                ).fit(X, y, domains=d)
            )
            paper_cpu.append(cpu)
    result = {
        "n_train": len(X),
        "kpca_rank": int(standard.feature_map_.rank),
        "standard_cpu_seconds": cpu_std,
        "standard_wall_seconds": wall_std,
        "fast_m5_cpu_ms_median": 1000 * float(np.median(fast_cpu)),
        "fast_m5_wall_ms_median": 1000 * float(np.median(fast_wall)),
        "fast_paper_m5_cpu_ms_median": 1000 * float(np.median(paper_cpu)),
        "speedup_cpu": cpu_std / float(np.median(fast_cpu)),
        "threads": args.threads,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    for key, value in result.items():
        print(f"{key}: {value:.4g}" if isinstance(value, float) else f"{key}: {value}")
    ok = (
        result["standard_cpu_seconds"] <= args.max_standard_cpu
        and result["fast_m5_cpu_ms_median"] <= args.max_fast_ms
    )
    print(
        ("PASS" if ok else "FAIL")
        + f": standard {cpu_std:.1f} CPU s (≤ {args.max_standard_cpu:g}), FastDCM M=5"
        f" {result['fast_m5_cpu_ms_median']:.2f} CPU ms (≤ {args.max_fast_ms:g});"
        f" speed-up {result['speedup_cpu']:,.0f}× (paper: 'substantially lower cost')"
    )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
