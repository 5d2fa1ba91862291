r"""Benchmark: CPU seconds of paper-scale ``dcm_synthetic_fit`` and ``cme_oblivious_fit`` jobs.

Target (project issue): the whole paper-scale workflow fits in 30 minutes on 2 cores. These
two rules have many jobs (24 and 4); each job's CPU time should stay below ``--max-dcm``
(25) and ``--max-cme`` (45) CPU-s.

Each job is run the way its job function runs it: ``run_setting`` of
:mod:`krepro.studies.dcm_synthetic.run` (one (centring, b_scale, η, γ) job) or of
:mod:`krepro.studies.cme_oblivious.run` (one (d, experiment) job: every γ), with
``config/paper.yaml`` deep-merged over ``config/config.yaml`` as Snakemake merges them, but
with ``--reps`` repetitions instead of the paper's n_repetitions; the CPU time
(``time.process_time``, BLAS capped at ``--threads``, default 1) is scaled by
n_repetitions / reps (the repetitions are independent draws of the same sizes).

Run (from the repository root)::

    .venv/bin/python benchmarks/workflow_jobs.py                       # both, 5 reps per job
    .venv/bin/python benchmarks/workflow_jobs.py --job dcm_synthetic_fit --reps 20
    .venv/bin/python benchmarks/workflow_jobs.py --json benchmarks/out/workflow_jobs.json

The last lines are ``cpu_seconds_per_paper_job: <rule> X`` (mean over the jobs timed); a
``PASS:`` or ``FAIL:`` line before them compares with the bounds (exit status 1 on FAIL).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import threadpoolctl
import yaml

from krepro.studies.cme_oblivious import run as cme_oblivious
from krepro.studies.dcm_synthetic import run as dcm_synthetic

ROOT = Path(__file__).resolve().parents[1]
# Keys of the dcm_synthetic config that are wildcards/readings, not settings (dcm_synthetic.smk).
DCM_READING_KEYS = (
    "fig2", "etas", "gammas", "centring", "b_scale", "n_repetitions", "reading_repetitions",
)  # fmt: skip
DCM_READINGS = (("centred", "gaussian"), ("uncentred", "unit"))


def deep_merge(base, override):
    """``override`` merged into a copy of ``base``, nested mappings key by key (Snakemake)."""
    merged = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def paper_config():
    base = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    return deep_merge(base, yaml.safe_load((ROOT / "config" / "paper.yaml").read_text()))


def dcm_jobs(config, reps):
    """(name, paper repetitions, call) per dcm_synthetic_fit job timed."""
    settings = config["dcm_synthetic"]
    common = {k: v for k, v in settings.items() if k not in DCM_READING_KEYS}
    for centring, b_scale in DCM_READINGS:
        primary = settings["primary"]
        is_primary = (centring, b_scale) == (primary["centring"], primary["b_scale"])
        n_paper = settings["n_repetitions" if is_primary else "reading_repetitions"]
        for eta in settings["etas"]:
            for gamma in settings["gammas"]:
                yield (
                    f"{centring}_b-{b_scale}/eta-{eta}_gamma-{gamma}",
                    n_paper,
                    lambda eta=eta, gamma=gamma, c=centring, b=b_scale: dcm_synthetic.run_setting(
                        seed=config["seed"], eta=float(eta), gamma=float(gamma),
                        n_repetitions=reps, settings=common, centring=c, b_scale=b,
                    ),
                )  # fmt: skip


def cme_jobs(config, reps):
    """(name, paper repetitions, call) per cme_oblivious_fit job (as its workflow script)."""
    s = config["cme_oblivious"]
    partition, cme = s["partition"], s["cme"]
    common = {
        "sizes": {k: s[k] for k in ("n_train", "n_estimation", "n_validation", "n_test")},
        "n_repetitions": reps,
        "noise_variance": s["noise_variance"],
        "lambdas": 2.0 ** np.arange(s["log2_lambda_min"], s["log2_lambda_max"] + 1),
        "kernel_gamma": s["kernel_gamma"],
        "partition": {
            "low": partition["low"],
            "high": partition["high"],
            "cells_per_axis": {
                1: partition["cells_per_axis_1d"],
                2: partition["cells_per_axis_2d"],
            },
        },
        "n_permutations": s["hsic_permutations"],
        "cme": {
            "gamma": cme["gamma"],
            "alphas": 10.0 ** np.arange(cme["log10_alpha_min"], cme["log10_alpha_max"] + 1),
        },
    }
    for dim in s["sensitive_dims"]:
        for experiment in s["experiments"]:

            def job(dim=dim, experiment=experiment):
                for gamma in s["gammas"]:
                    cme_oblivious.run_setting(
                        seed=config["seed"], sensitive_dim=int(dim), experiment=int(experiment),
                        gamma=float(gamma), **common,
                    )  # fmt: skip

            yield f"d-{dim}/experiment-{experiment}", s["n_repetitions"], job


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--job", choices=("dcm_synthetic_fit", "cme_oblivious_fit", "all"), default="all"
    )
    parser.add_argument("--reps", type=int, default=5, help="repetitions per job (default 5)")
    parser.add_argument("--match", default="", help="time only jobs whose name contains this")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1)")
    parser.add_argument("--max-dcm", type=float, default=25.0, help="bound, CPU-s per job")
    parser.add_argument("--max-cme", type=float, default=45.0, help="bound, CPU-s per job")
    parser.add_argument("--json", type=Path, help="write a record of the run here")
    args = parser.parse_args(argv)
    if args.reps < 1:
        parser.error("--reps must be at least 1")

    config = paper_config()
    rules = {
        "dcm_synthetic_fit": (dcm_jobs(config, args.reps), args.max_dcm),
        "cme_oblivious_fit": (cme_jobs(config, args.reps), args.max_cme),
    }
    if args.job != "all":
        rules = {args.job: rules[args.job]}
    record = {"reps": args.reps, "threads": args.threads, "jobs": {}, "per_paper_job": {}}
    failures = []
    with threadpoolctl.threadpool_limits(limits=args.threads):
        for rule, (jobs, bound) in rules.items():
            per_job = []
            for name, n_paper, call in jobs:
                if args.match not in f"{rule}/{name}":
                    continue
                start = time.process_time()
                call()
                seconds = (time.process_time() - start) * n_paper / args.reps
                per_job.append(seconds)
                record["jobs"][f"{rule}/{name}"] = seconds
                print(f"{rule} {name}: {seconds:.1f} CPU-s per paper job", flush=True)
            if not per_job:
                continue
            mean = float(np.mean(per_job))
            record["per_paper_job"][rule] = mean
            if mean > bound:
                failures.append(f"{rule} {mean:.1f} CPU-s per job > {bound:g}")
    record["machine"] = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "load_average": os.getloadavg(),
    }
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(record, indent=1, default=str) + "\n")
    print(("FAIL: " + "; ".join(failures)) if failures else "PASS: CPU-s per job bounds")
    for rule, mean in record["per_paper_job"].items():
        print(f"cpu_seconds_per_paper_job: {rule} {mean:.1f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
