"""Job set-up shared by the workflow's scripts: logging to the rule's log, BLAS threads.

Scripts wrap their body in :func:`job`, which sends ``logging`` output and warnings to the
rule's log file and caps BLAS/OpenMP thread pools at the job's ``threads`` (so a job never
uses more cores than the scheduler gave it, and the numbers do not depend on ``--cores``).
"""

from __future__ import annotations

import contextlib
import logging
import sys
import time

from threadpoolctl import threadpool_limits

__all__ = ["job", "job_label"]


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
    logger.info("done in %.2f s", time.perf_counter() - start)
