"""Job set-up shared by the workflow's scripts: logging to the rule's log, BLAS threads.

Scripts wrap their body in :func:`job`, which sends ``logging`` output and warnings to the
rule's log file and caps BLAS/OpenMP thread pools at the job's ``threads`` (so a job never
uses more cores than the scheduler gave it, and the numbers do not depend on ``--cores``).
At the end it writes the job's exact CPU seconds beside the log (:data:`CPU_RECORD_SUFFIX`),
which the snapshot sums per rule (:mod:`krepro.workflow.snapshot`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import resource
import sys
import time
from pathlib import Path

from threadpoolctl import threadpool_limits

__all__ = [
    "CPU_RECORD_SUFFIX",
    "job",
    "job_cpu_seconds",
    "job_label",
]

#: Suffix of the file beside a job's log that records the job's exact CPU time.
CPU_RECORD_SUFFIX = ".cpu.json"


def job_cpu_seconds():
    """CPU seconds (user + system) of this process, all its threads, and its waited-for children.

    Exact, unlike Snakemake's ``benchmark:`` ``cpu_time``, which samples the job's processes
    (every 0.5 s for 15 s, then every 30 s) and so misses up to the last 30 s of a job.
    """
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def job_label(snakemake):
    """``rule[key=value, ...]``: the rule and wildcards of a job, as its log lines show it."""
    wildcards = ", ".join(f"{key}={value}" for key, value in dict(snakemake.wildcards).items())
    return f"{snakemake.rule}[{wildcards}]" if wildcards else snakemake.rule


@contextlib.contextmanager
def job(snakemake):
    """Context for one workflow job: log file, thread cap, timing line at the end.

    Every line goes to the rule's log file and to stderr, which Snakemake shows on the
    console; each carries the job's rule and wildcards (:func:`job_label`), so that lines of
    jobs running side by side can be told apart.
    """
    log_path = snakemake.log[0] if len(snakemake.log) else None
    handlers = [logging.FileHandler(log_path, mode="w")] if log_path else []
    handlers.append(logging.StreamHandler(sys.stderr))
    logging.basicConfig(
        level=logging.INFO,
        format=f"%(asctime)s %(levelname)s {job_label(snakemake).replace('%', '%%')}: %(message)s",
        handlers=handlers,
        force=True,
    )
    logging.captureWarnings(True)
    logger = logging.getLogger("krepro")
    start = time.perf_counter()
    logger.info("threads %d", snakemake.threads)
    with threadpool_limits(limits=snakemake.threads):
        try:
            yield logger
        except Exception:
            logger.exception("job failed")
            raise
    wall, cpu = time.perf_counter() - start, job_cpu_seconds()
    logger.info("done in %.2f s, %.2f CPU-s", wall, cpu)
    if log_path:
        _write_cpu_record(log_path, snakemake, wall, cpu)


def _write_cpu_record(log_path, snakemake, wall, cpu):
    """``<log>.cpu.json``: the job's rule, wildcards, wall and exact CPU seconds (atomic)."""
    record = {
        "rule": snakemake.rule,
        "wildcards": {key: str(value) for key, value in dict(snakemake.wildcards).items()},
        "wall_seconds": round(wall, 3),
        "cpu_seconds": round(cpu, 3),
    }
    target = Path(str(log_path) + CPU_RECORD_SUFFIX)
    partial = target.with_name(f".{target.name}.{os.getpid()}.part")
    partial.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    os.replace(partial, target)
