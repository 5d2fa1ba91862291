"""Job set-up shared by the workflow's scripts: logging to the rule's log, BLAS threads.

Scripts wrap their body in :func:`job`, which sends ``logging`` output and warnings to the
rule's log file and caps BLAS/OpenMP thread pools at the job's ``threads`` (so a job never
uses more cores than the scheduler gave it, and the numbers do not depend on ``--cores``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import time
from pathlib import Path

from threadpoolctl import threadpool_limits

__all__ = ["FAIL_ONCE_VARIABLE", "job"]

# Fault injection for testing retries: "<marker directory>:<rule>[,<rule>...]" makes the first
# attempt of each listed rule (per wildcard set) fail; later attempts run normally.
FAIL_ONCE_VARIABLE = "KREPRO_FAIL_ONCE"


def _fail_once(snakemake):
    setting = os.environ.get(FAIL_ONCE_VARIABLE)
    if not setting:
        return
    marker_dir, _, rules = setting.rpartition(":")
    if snakemake.rule not in rules.split(","):
        return
    label = "_".join(f"{k}-{v}" for k, v in dict(snakemake.wildcards).items()) or "all"
    marker = Path(marker_dir) / f"{snakemake.rule}.{label}"
    if not marker.exists():
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
        raise RuntimeError(f"injected failure of {snakemake.rule} ({FAIL_ONCE_VARIABLE})")


@contextlib.contextmanager
def job(snakemake):
    """Context for one workflow job: log file, thread cap, timing line at the end."""
    log_path = snakemake.log[0] if len(snakemake.log) else None
    handlers = [logging.FileHandler(log_path, mode="w")] if log_path else []
    handlers.append(logging.StreamHandler(sys.stderr))
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(message)s",
        handlers=handlers,
        force=True,
    )
    logging.captureWarnings(True)
    logger = logging.getLogger("krepro")
    start = time.perf_counter()
    logger.info("rule %s, threads %d", snakemake.rule, snakemake.threads)
    _fail_once(snakemake)
    with threadpool_limits(limits=snakemake.threads):
        try:
            yield logger
        except Exception:
            logger.exception("job failed")
            raise
    logger.info("done in %.2f s", time.perf_counter() - start)
