r"""Benchmark: CPU time and memory of one paper-scale repetition of the coverage study.

Target (project issue): one repetition of Avanesov's simulation study at paper scale — N =
2^16, all 63 (P, T) configurations (P = 2^6..2^12, T = 2..2^9), B = 5000 bootstrap resamples,
both band variants — costs at most ``--max-cpu`` (0.8) CPU-seconds single-threaded, and a
worker's peak memory (max RSS) stays below ``--max-memory-mb`` (2048). A straightforward
implementation that refits every configuration costs ~45 CPU-s (``--baseline`` measures one
such repetition with the library's estimator and ``bootstrap_band``); ``--dense`` times the
repetition with the O(n^3) dense Cholesky solver instead of the O(n) state-space one.

Run (from the repository root)::

    .venv/bin/python benchmarks/coverage.py --reps 5
    .venv/bin/python benchmarks/coverage.py --reps 20 --json benchmarks/out/coverage.json
    .venv/bin/python benchmarks/coverage.py --reps 2 --stages --baseline
    .venv/bin/python benchmarks/coverage.py --reps 3 --dense   # the O(n^3) solver, to compare

BLAS/OpenMP pools are capped at ``--threads`` (default 1) with threadpoolctl; CPU time is
``time.process_time`` of the whole repetition (data draw, fits, bootstrap, bands, coverage),
after one untimed warm-up repetition. The last line of the output is
``cpu_seconds_per_repetition: X`` (the mean over ``--reps``); a ``PASS:`` or ``FAIL:`` line
before it compares with the bounds, and the exit status is 1 on FAIL.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy
import threadpoolctl

from krepro.distributed import DistributedKernelRidge, local_predictions_nested

# Import the library (and with it SciPy's BLAS) before capping the thread pools.
from krepro.distributed.bands import select_bands
from krepro.distributed.bootstrap import bootstrap_band, bootstrap_deviations
from krepro.seeding import generator
from krepro.studies.coverage.run import (
    CoverageSettings,
    draw_sample,
    penalty,
    run_repetition,
    true_function,
)

PARTITIONS = (64, 128, 256, 512, 1024, 2048, 4096)
TARGETS = (2, 4, 8, 16, 32, 64, 128, 256, 512)


def paper_settings(n_samples):
    return CoverageSettings(
        n_samples=n_samples,
        partitions=PARTITIONS,
        targets=TARGETS,
        n_resamples=5000,
        confidence_level=0.95,
        rho=penalty(n_samples, 1e-3, 3),
    )


def stage_times(seed, repetition, settings, solver="statespace"):
    """CPU seconds of the stages of one repetition (the same calls as run_repetition)."""
    clock = time.process_time
    times = {}
    start = clock()
    x, y, targets = draw_sample(seed, repetition, settings.n_samples, max(settings.targets))
    times["draw"] = clock() - start
    start = clock()
    local = local_predictions_nested(
        x, y, targets, settings.partitions, settings.rho, solver=solver
    )
    times[f"local KRR fits + predictions ({solver})"] = clock() - start
    times["bootstrap counts + product"] = times["band selection"] = 0.0
    for p in settings.partitions:
        start = clock()
        deviations = bootstrap_deviations(
            local[p],
            settings.n_resamples,
            generator(seed, "coverage", repetition, "bootstrap", p),
            dtype=np.float32,
            rank_tolerance=1e-6,
        )
        middle = clock()
        select_bands(deviations, settings.confidence_level, sizes=settings.targets)
        times["bootstrap counts + product"] += middle - start
        times["band selection"] += clock() - middle
    return times


def straightforward_repetition(seed, repetition, settings):
    """The reference protocol as written: every (P, T) draws fresh data and refits."""
    start = time.process_time()
    for p in settings.partitions:
        for t in settings.targets:
            rng = generator(seed, "baseline", repetition, p, t)
            x = rng.random(settings.n_samples)
            y = true_function(x) + np.exp(2 * np.abs(x - 0.5)) * rng.standard_normal(len(x))
            targets = rng.random(t)
            model = DistributedKernelRidge(n_partitions=p, rho=settings.rho)
            local = model.fit(x[:, None], y).predict_local(targets[:, None])
            band = bootstrap_band(local, settings.confidence_level, settings.n_resamples, rng)
            band.covers(true_function(targets))
    return time.process_time() - start


def git_state():
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = bool(
            subprocess.run(
                ["git", "status", "--porcelain"], capture_output=True, text=True, check=True
            ).stdout.strip()
        )
        return {"commit": commit, "dirty": dirty}
    except (OSError, subprocess.CalledProcessError):
        return {"commit": None, "dirty": None}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=3, help="timed repetitions (default 3)")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1)")
    parser.add_argument("--n-samples", type=int, default=65536, help="N (default 2^16)")
    parser.add_argument("--seed", type=int, default=20211208)
    parser.add_argument("--max-cpu", type=float, default=0.8, help="bound, CPU-s per rep")
    parser.add_argument("--max-memory-mb", type=float, default=2048.0, help="bound, max RSS")
    parser.add_argument("--stages", action="store_true", help="also time the stages")
    parser.add_argument(
        "--dense", action="store_true", help="dense Cholesky local solves (the old path)"
    )
    parser.add_argument(
        "--baseline", action="store_true", help="also time one straightforward repetition"
    )
    parser.add_argument("--json", type=Path, help="write a record of the run here")
    args = parser.parse_args(argv)
    if args.reps < 1:
        parser.error("--reps must be at least 1")

    settings = paper_settings(args.n_samples)
    solver = "dense" if args.dense else "statespace"
    record = {
        "settings": {**settings.__dict__},
        "reps": args.reps,
        "threads": args.threads,
        "solver": solver,
    }
    with threadpoolctl.threadpool_limits(limits=args.threads):
        run_repetition(args.seed, 10**6, settings, solver=solver)  # warm-up: page-in, buffers
        cpu, wall = [], []
        for repetition in range(args.reps):
            start_wall = time.perf_counter()
            result = run_repetition(args.seed, repetition, settings, solver=solver)
            wall.append(time.perf_counter() - start_wall)
            cpu.append(result["cpu_seconds"])
            print(f"repetition {repetition}: {cpu[-1]:.3f} CPU-s, {wall[-1]:.3f} s wall")
        if args.stages:
            record["stages_cpu_seconds"] = stage_times(args.seed, 0, settings, solver)
            for stage, seconds in record["stages_cpu_seconds"].items():
                print(f"  stage {stage}: {seconds:.3f} CPU-s")
        if args.baseline:
            record["baseline_cpu_seconds"] = straightforward_repetition(args.seed, 0, settings)
            print(
                f"straightforward refit per (P, T): {record['baseline_cpu_seconds']:.1f} CPU-s"
                f" per repetition ({record['baseline_cpu_seconds'] / np.mean(cpu):.1f}x)"
            )
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    mean_cpu = float(np.mean(cpu))
    record |= {
        "cpu_seconds": cpu,
        "wall_seconds": wall,
        "cpu_seconds_per_repetition": mean_cpu,
        "peak_memory_mb": peak_mb,
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "cpu_count": os.cpu_count(),
            "blas": threadpoolctl.threadpool_info(),
            "load_average": os.getloadavg(),
        },
        "git": git_state(),
    }
    print(f"cpu seconds per repetition: min {min(cpu):.3f}, max {max(cpu):.3f}")
    print(f"peak_memory_mb: {peak_mb:.0f}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(record, indent=1, default=str) + "\n")
    failures = []
    if mean_cpu > args.max_cpu:
        failures.append(f"{mean_cpu:.3f} CPU-s per repetition > {args.max_cpu:g}")
    if peak_mb > args.max_memory_mb:
        failures.append(f"peak memory {peak_mb:.0f} MB > {args.max_memory_mb:g}")
    print(("FAIL: " + "; ".join(failures)) if failures else "PASS: time and memory bounds")
    print(f"cpu_seconds_per_repetition: {mean_cpu:.3f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
