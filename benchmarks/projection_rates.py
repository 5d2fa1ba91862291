r"""Benchmark: CPU-s of the paper-scale ``projection_run`` and ``rates_run`` jobs.

Goal: at paper scale (``config/paper.yaml`` deep-merged over ``config/config.yaml``) a
``projection_run`` job (one γ, 20 repetitions) and every ``rates_run`` job (one setting, all
sizes, 50 repetitions) cost at most a third of the CPU time of the direct computation
(pre-image search by plain optimisation, errors of the rates by full Gram matrices), with
the same outputs (``tests/studies/{projection,rates}/test_regression.py``). ``REFERENCE``
holds the direct computation's cost, whole jobs on the shared 2-core machine, one BLAS thread.

Run (from the repository root)::

    .venv/bin/python benchmarks/projection_rates.py                       # ~30 s
    .venv/bin/python benchmarks/projection_rates.py --projection-reps 20 --rates-reps 50
    .venv/bin/python benchmarks/projection_rates.py --only rates --json benchmarks/out/pr.json

Each job is run with fewer repetitions (``--projection-reps``, ``--rates-reps``) and its CPU
time (``time.process_time``, data draws included) is scaled to the configured number of
repetitions: the repetitions of a job are alike, so the cost is linear in their number. The
BLAS/OpenMP pools are capped at ``--threads`` (default 1) with threadpoolctl. One line per
job gives ``cpu_seconds_per_job: X (reference B, ratio R)``; a ``PASS:`` or ``FAIL:`` line
compares each with its bound, and the exit status is 1 on FAIL.
"""

from __future__ import annotations

import argparse
import copy
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import threadpoolctl
import yaml

from krepro.studies.projection.run import run_gamma
from krepro.studies.rates import setting_names
from krepro.studies.rates.run import run_setting

ROOT = Path(__file__).resolve().parents[1]

# Whole paper-scale jobs computed directly, CPU-s, 1 BLAS thread, shared 2-core machine:
# projection_run at γ = 0.5 (all 20 repetitions), rates_run per setting (all 50 repetitions).
REFERENCE = {
    "projection_run gamma-0.5": 56.1,
    "rates_run finite_k2": 58.5,
    "rates_run finite_k5": 19.4,
    "rates_run finite_k10": 9.7,
    "rates_run continuous_d1": 108.1,
    "rates_run continuous_d2": 205.6,
}


def _merge(base, override):
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = value
    return base


def paper_config():
    """``config/paper.yaml`` deep-merged over ``config/config.yaml`` (as Snakemake does)."""
    base = yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))
    paper = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text(encoding="utf-8"))
    return _merge(copy.deepcopy(base), paper)


def time_job(function, settings, reps, **kwargs):
    """CPU seconds of ``function`` with ``reps`` repetitions, scaled to the configured count."""
    reduced = dict(settings, n_repetitions=reps)
    start = time.process_time()
    function(settings=reduced, **kwargs)
    return (time.process_time() - start) * settings["n_repetitions"] / reps


def _git_commit():
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        return commit, bool(dirty)
    except (OSError, subprocess.CalledProcessError):
        return None, None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("projection", "rates"), default=None)
    parser.add_argument("--gamma", type=float, default=0.5, help="γ of the projection job")
    parser.add_argument("--projection-reps", type=int, default=2)
    parser.add_argument("--rates-reps", type=int, default=3)
    parser.add_argument("--settings", nargs="*", default=None, help="rates settings")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--min-ratio", type=float, default=3.0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)

    config = paper_config()
    jobs = {}
    with threadpoolctl.threadpool_limits(args.threads):
        if args.only in (None, "projection"):
            name = f"projection_run gamma-{args.gamma:g}"
            jobs[name] = time_job(
                run_gamma,
                config["projection"],
                args.projection_reps,
                seed=config["seed"],
                gamma=args.gamma,
            )
            print(f"{name}: measured {args.projection_reps} repetition(s)", flush=True)
        if args.only in (None, "rates"):
            for setting in args.settings or setting_names(config["rates"]):
                jobs[f"rates_run {setting}"] = time_job(
                    run_setting,
                    config["rates"],
                    args.rates_reps,
                    seed=config["seed"],
                    setting=setting,
                )
                print(f"rates_run {setting}: measured {args.rates_reps} repetition(s)", flush=True)

    failed = []
    for name, seconds in jobs.items():
        before = REFERENCE.get(name)
        ratio = f", ratio {before / seconds:.1f}" if before else ""
        print(f"{name}: cpu_seconds_per_job: {seconds:.1f} (reference {before}{ratio})")
        if before and before / seconds < args.min_ratio:
            failed.append(name)
    verdict = "FAIL" if failed else "PASS"
    print(
        f"{verdict}: every job ≥ {args.min_ratio}× cheaper than the reference"
        + (f" except {', '.join(failed)}" if failed else "")
    )
    if args.json:
        commit, dirty = _git_commit()
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps(
                {
                    "jobs_cpu_seconds": jobs,
                    "reference_cpu_seconds": REFERENCE,
                    "projection_reps": args.projection_reps,
                    "rates_reps": args.rates_reps,
                    "threads": args.threads,
                    "machine": {
                        "platform": platform.platform(),
                        "python": sys.version.split()[0],
                        "numpy": np.__version__,
                        "blas": threadpoolctl.threadpool_info(),
                    },
                    "git_commit": commit,
                    "dirty": dirty,
                },
                indent=1,
            )
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
