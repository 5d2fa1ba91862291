r"""Benchmark: cost of the oblivious Gram matrix against the plain kernel blocks it needs.

Target (project issue): fitting :class:`krepro.fairness.oblivious.ObliviousKernel` on ``m``
estimation points and computing the ``n × n`` oblivious Gram (RBF, 16 dyadic cells on S ∈ [−5, 5])
costs at most ``--max-ratio`` (1.0) times computing, with scikit-learn's ``rbf_kernel``, the
three plain kernel blocks it needs -- K(train, train), K(train, est), K(est, est) -- at
n = m ≥ 4000: everything else is a low-rank (rank ≤ 17) correction, K(est, est) and
K(train, train) are symmetric (half the kernel evaluations suffice) and of K(est, est) and
K(train, est) only the 17 columns K·G are kept. Peak memory of the fit + gram, the returned
matrix included, stays below ``--max-memory`` (1.3) matrices of ``n × n`` float64.

Run (from the repository root)::

    .venv/bin/python benchmarks/oblivious_gram.py                      # n = m = 4000
    .venv/bin/python benchmarks/oblivious_gram.py --n 8000 --m 8000
    .venv/bin/python benchmarks/oblivious_gram.py --json benchmarks/out/oblivious_gram.json
    .venv/bin/python benchmarks/oblivious_gram.py --reference-loop 300 # + Algorithm 1 loop

Prints ``ratio: X`` and ``memory: Y n×n``; exit status 1 when the time ratio or the memory
bound is exceeded (a FAIL line says which).

Timings are best-of-``--repeats`` CPU times (``time.process_time``: the machines are shared,
so wall time measures the neighbours) with BLAS/OpenMP thread pools capped at ``--threads``
(default 1); the oblivious and the plain runs alternate so that drifts in machine load hit
both. Peak memory is measured in a separate, untimed run with ``tracemalloc`` (numpy reports
its data allocations to it).

``--reference-loop N`` additionally times a direct transcription of the paper's Algorithm 1
(Grünewälder & Khaleghi, JMLR 2021) as pure-Python loops on ``N`` training and
``round(N·m/n)`` estimation points, checks it against ``ObliviousKernel.gram`` and
extrapolates its time to the benchmark size by n² scaling (every stage of the loop is
quadratic when m ∝ n).
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import scipy
import sklearn
import threadpoolctl
from sklearn.metrics.pairwise import rbf_kernel
from threadpoolctl import threadpool_info, threadpool_limits

from krepro.fairness.oblivious import ObliviousKernel

GAMMA = 1.0
BOUNDS = (-5.0, 5.0)
CELLS = 16


def make_data(n, m, d, seed):
    """Training and estimation halves: S ~ U[−5, 5], X depends on S plus Gaussian noise."""
    rng = np.random.default_rng(seed)

    def half(size):
        S = rng.uniform(*BOUNDS, size=size)
        X = 0.3 * S[:, None] + rng.normal(size=(size, d))
        return X, S

    X_train, S_train = half(n)
    X_est, S_est = half(m)
    return X_train, S_train, X_est, S_est


def make_kernel():
    return ObliviousKernel(
        kernel="rbf",
        gamma=GAMMA,
        partition="dyadic",
        partition_bounds=BOUNDS,
        cells_per_axis=CELLS,
    )


def run_oblivious(X_train, S_train, X_est, S_est):
    """(a) fit on the estimation half, then the train × train oblivious Gram (CPU seconds)."""
    start = time.process_time()
    ok = make_kernel().fit(X_est, sensitive_features=S_est)
    fitted = time.process_time()
    O = ok.gram(X_train, S_train)
    done = time.process_time()
    return O, fitted - start, done - fitted


def run_plain(X_train, X_est):
    """(b) the plain kernel blocks the oblivious Gram needs, with sklearn's rbf_kernel."""
    start = time.process_time()
    K_tt = rbf_kernel(X_train, gamma=GAMMA)
    K_te = rbf_kernel(X_train, X_est, gamma=GAMMA)
    K_ee = rbf_kernel(X_est, gamma=GAMMA)
    elapsed = time.process_time() - start
    del K_tt, K_te, K_ee
    return elapsed


def time_both(X_train, S_train, X_est, S_est, repeats):
    """Best-of-``repeats`` times of (a) and (b), runs alternating, garbage collector off."""
    fit_times, gram_times, oblivious_times, plain_times = [], [], [], []
    gc_was_enabled = gc.isenabled()
    try:
        for _ in range(repeats):
            gc.collect()
            gc.disable()
            plain_times.append(run_plain(X_train, X_est))
            gc.enable()
            gc.collect()
            gc.disable()
            O, t_fit, t_gram = run_oblivious(X_train, S_train, X_est, S_est)
            gc.enable()
            del O
            fit_times.append(t_fit)
            gram_times.append(t_gram)
            oblivious_times.append(t_fit + t_gram)
    finally:
        if gc_was_enabled:
            gc.enable()
    best = int(np.argmin(oblivious_times))
    return {
        "oblivious_s": min(oblivious_times),
        "oblivious_fit_s": fit_times[best],
        "oblivious_gram_s": gram_times[best],
        "plain_blocks_s": min(plain_times),
        "oblivious_all_s": oblivious_times,
        "plain_all_s": plain_times,
    }


def peak_memory(X_train, S_train, X_est, S_est):
    """tracemalloc peak (bytes) of fit + gram, counting the returned matrix."""
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        O, _, _ = run_oblivious(X_train, S_train, X_est, S_est)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del O
    return peak


# ---------------------------------------------------------------------------------------------
# Algorithm 1 of the paper, transcribed as Python loops (reference only, never imported)


def algorithm1_loop(X_train, cells_train, X_est, cells_est, n_cells, gamma):
    """O_ij = k_ij − ξ_{i,a(j)} − ξ_{j,a(i)} + o_{a(i),a(j)} + M + ρ_i + ρ_j − τ_{a(i)} − τ_{a(j)}.

    A literal transcription: every quantity is a sum of kernel evaluations as written in the
    paper (empty index sets sum to 0), then one Python double loop over all (i, j). Points are
    tuples and sums are Python floats, the fastest plain-Python form. Returns ``O`` and the
    times of the precomputation and of the pair loop.
    """
    start = time.process_time()
    xs = [tuple(row) for row in X_train.tolist()]
    vs = [tuple(row) for row in X_est.tolist()]
    n, m = len(xs), len(vs)
    exp, dist = math.exp, math.dist

    def k(x, y):
        return exp(-gamma * dist(x, y) ** 2)

    members = [[v for v in range(m) if cells_est[v] == a] for a in range(n_cells)]
    # ξ_{i,a} = <φ(x_i), E_n[φ | A_a]>,  ρ_i = <φ(x_i), E_n φ>
    xi = [
        [
            sum(k(x, vs[v]) for v in members[a]) / len(members[a]) if members[a] else 0.0
            for a in range(n_cells)
        ]
        for x in xs
    ]
    rho = [sum(k(x, v) for v in vs) / m for x in xs]
    # o_{a,b} = <E_n[φ | A_a], E_n[φ | A_b]>,  τ_a = <E_n[φ | A_a], E_n φ>,  M = ||E_n φ||²
    o = [[0.0] * n_cells for _ in range(n_cells)]
    for a in range(n_cells):
        for b in range(n_cells):
            if members[a] and members[b]:
                total = sum(k(vs[v], vs[w]) for v in members[a] for w in members[b])
                o[a][b] = total / (len(members[a]) * len(members[b]))
    tau = [
        sum(k(vs[v], w) for v in members[a] for w in vs) / (len(members[a]) * m)
        if members[a]
        else 0.0
        for a in range(n_cells)
    ]
    M = sum(k(v, w) for v in vs for w in vs) / m**2
    precomputed = time.process_time()

    O = [[0.0] * n for _ in range(n)]
    for i in range(n):
        a = cells_train[i]
        row, x_i, xi_i = O[i], xs[i], xi[i]
        const_i = M + rho[i] - tau[a]
        for j in range(n):
            b = cells_train[j]
            row[j] = k(x_i, xs[j]) - xi_i[b] - xi[j][a] + o[a][b] + const_i + rho[j] - tau[b]
    done = time.process_time()
    return np.array(O), precomputed - start, done - precomputed


def reference_loop(n_ref, n, m, d, seed):
    """Time Algorithm 1's loops at ``n_ref`` and extrapolate to ``n`` by n² scaling."""
    m_ref = max(1, round(n_ref * m / n))
    X_train, S_train, X_est, S_est = make_data(n_ref, m_ref, d, seed + 1)
    ok = make_kernel().fit(X_est, sensitive_features=S_est)
    partition = ok.conditional_mean_.partition
    cells_train = partition.assign(S_train).tolist()
    cells_est = partition.assign(S_est).tolist()
    O_loop, t_pre, t_pairs = algorithm1_loop(
        X_train, cells_train, X_est, cells_est, partition.n_cells, GAMMA
    )
    max_abs_diff = float(np.max(np.abs(O_loop - ok.gram(X_train, S_train))))
    scale = (n / n_ref) ** 2
    return {
        "n": n_ref,
        "m": m_ref,
        "precompute_s": t_pre,
        "pair_loop_s": t_pairs,
        "total_s": t_pre + t_pairs,
        "pair_loop_us_per_pair": t_pairs / n_ref**2 * 1e6,
        "total_us_per_pair": (t_pre + t_pairs) / n_ref**2 * 1e6,
        "extrapolated_n": n,
        "extrapolated_m": m,
        "extrapolated_total_s": (t_pre + t_pairs) * scale,
        "max_abs_diff_vs_gram": max_abs_diff,
    }


# ---------------------------------------------------------------------------------------------


def _git(*args):
    try:
        return subprocess.run(
            ["git", *args],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).resolve().parent,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def machine_info(threads):
    commit = _git("rev-parse", "--short", "HEAD")
    changes = _git("status", "--porcelain", "--untracked-files=no")
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "sklearn": sklearn.__version__,
        "threadpoolctl": threadpoolctl.__version__,
        "cpu_count": os.cpu_count(),
        "threads": threads,
        "threadpools": [
            {key: pool.get(key) for key in ("internal_api", "version", "num_threads")}
            for pool in threadpool_info()
        ],
        "git_commit": commit,
        "git_dirty": None if changes is None else bool(changes),
    }


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=4000, help="training points (default 4000)")
    parser.add_argument("--m", type=int, default=4000, help="estimation points (default 4000)")
    parser.add_argument("--d", type=int, default=1, help="non-sensitive features (default 1)")
    parser.add_argument("--repeats", type=int, default=5, help="best of this many (default 5)")
    parser.add_argument("--threads", type=int, default=1, help="BLAS/OpenMP threads (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-ratio", type=float, default=1.0, help="time bound (default 1.0)")
    parser.add_argument(
        "--max-memory", type=float, default=1.3, help="peak bound in n×n matrices (default 1.3)"
    )
    parser.add_argument(
        "--reference-loop",
        type=int,
        default=0,
        metavar="N",
        help="also time Algorithm 1 as Python loops at n = N and extrapolate (default off)",
    )
    parser.add_argument("--json", type=Path, metavar="OUT", help="write a JSON record here")
    args = parser.parse_args(argv)
    if min(args.n, args.m, args.d, args.repeats, args.threads) < 1:
        parser.error("--n, --m, --d, --repeats and --threads must be positive")
    return args


def main(argv=None):
    args = parse_args(argv)
    info = machine_info(args.threads)
    X_train, S_train, X_est, S_est = make_data(args.n, args.m, args.d, args.seed)
    nn_bytes = args.n * args.n * np.dtype(np.float64).itemsize

    print(
        f"oblivious Gram benchmark: n={args.n} m={args.m} d={args.d} RBF gamma={GAMMA} "
        f"dyadic {CELLS} cells on {list(BOUNDS)}, threads={args.threads}, "
        f"best of {args.repeats} (CPU seconds)"
    )
    print(
        f"  {info['platform']}, {info['cpu_count']} CPUs, numpy {info['numpy']}, "
        f"scipy {info['scipy']}, sklearn {info['sklearn']}"
    )
    with threadpool_limits(limits=args.threads):
        timings = time_both(X_train, S_train, X_est, S_est, args.repeats)
        peak = peak_memory(X_train, S_train, X_est, S_est)
        loop = (
            reference_loop(args.reference_loop, args.n, args.m, args.d, args.seed)
            if args.reference_loop
            else None
        )

    ratio = timings["oblivious_s"] / timings["plain_blocks_s"]
    memory_multiple = peak / nn_bytes
    time_ok = ratio <= args.max_ratio
    memory_ok = memory_multiple <= args.max_memory

    print(
        f"(a) ObliviousKernel fit + gram : {timings['oblivious_s']:8.3f} s "
        f"(fit {timings['oblivious_fit_s']:.3f} s, gram {timings['oblivious_gram_s']:.3f} s) CPU"
    )
    print(f"(b) rbf_kernel tt + te + ee    : {timings['plain_blocks_s']:8.3f} s CPU")
    print(f"ratio: {ratio:.3f}   (a/b; bound {args.max_ratio})")
    print(
        f"memory: {memory_multiple:.3f} n×n   (peak of (a) {peak / 2**20:.1f} MiB in n×n float64 "
        f"matrices, the returned one included; bound {args.max_memory})"
    )
    if loop is not None:
        print(
            f"Algorithm 1 loop at n={loop['n']}, m={loop['m']}: {loop['total_s']:.3f} s "
            f"(precompute {loop['precompute_s']:.3f} s, pair loop {loop['pair_loop_s']:.3f} s, "
            f"{loop['total_us_per_pair']:.2f} µs per (i, j) pair in all); "
            f"max |O_loop − gram| = {loop['max_abs_diff_vs_gram']:.1e}"
        )
        print(
            f"    extrapolated to n={args.n}, m={args.m} (n² scaling): "
            f"{loop['extrapolated_total_s']:.1f} s = "
            f"{loop['extrapolated_total_s'] / timings['oblivious_s']:.0f}× (a)"
        )

    failures = []
    if not time_ok:
        failures.append(f"time ratio {ratio:.3f} > {args.max_ratio}")
    if not memory_ok:
        failures.append(f"peak memory {memory_multiple:.2f} n×n > {args.max_memory}")
    verdict = "PASS" if not failures else "FAIL"
    detail = "; ".join(failures) or (
        f"time ratio {ratio:.3f} <= {args.max_ratio}, "
        f"peak memory {memory_multiple:.2f} n×n <= {args.max_memory}"
    )
    print(f"{verdict}: {detail}")

    if args.json is not None:
        record = {
            "benchmark": "oblivious_gram",
            "config": {
                "n": args.n,
                "m": args.m,
                "d": args.d,
                "kernel": "rbf",
                "gamma": GAMMA,
                "partition": "dyadic",
                "partition_bounds": list(BOUNDS),
                "cells_per_axis": CELLS,
                "repeats": args.repeats,
                "seed": args.seed,
            },
            "machine": info,
            "timings": timings,
            "ratio": ratio,
            "max_ratio": args.max_ratio,
            "peak_memory_bytes": peak,
            "peak_memory_nxn": memory_multiple,
            "max_memory_nxn": args.max_memory,
            "reference_loop": loop,
            "passed": not failures,
            "verdict": verdict,
            "command": [sys.executable, *sys.argv],
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(record, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
