"""Test-only fault injection for the workflow's retry tests; never part of the library.

A test that wants the first attempt of some jobs to fail puts this directory first on
``PYTHONPATH`` and sets ``KREPRO_FAIL_ONCE=<marker directory>:<rule>[,<rule>...]``. Python
imports ``sitecustomize`` at start-up in every process that inherits that environment (the
Snakemake job processes, locally or under SLURM), and this one wraps
:func:`krepro.workflow.runtime.job`: the first attempt of each listed rule, per set of wildcards,
leaves a marker file and raises inside the job (so the job logs the failure as a real one);
later attempts find the marker and run normally.
"""

import os

FAIL_ONCE_VARIABLE = "KREPRO_FAIL_ONCE"


def _install(setting):
    import contextlib
    from pathlib import Path

    try:
        from krepro.workflow import runtime
    except ImportError:  # an interpreter without krepro (e.g. a helper tool): nothing to wrap
        return

    marker_dir, _, rules = setting.rpartition(":")
    rules = set(rules.split(","))
    real_job = runtime.job

    @contextlib.contextmanager
    def job(snakemake):
        with real_job(snakemake) as logger:
            if snakemake.rule in rules:
                wildcards = dict(snakemake.wildcards)
                label = "_".join(f"{k}-{v}" for k, v in wildcards.items()) or "all"
                marker = Path(marker_dir) / f"{snakemake.rule}.{label}"
                if not marker.exists():
                    marker.parent.mkdir(parents=True, exist_ok=True)
                    marker.touch()
                    raise RuntimeError(
                        f"injected failure of {snakemake.rule} ({FAIL_ONCE_VARIABLE})"
                    )
            yield logger

    runtime.job = job


if os.environ.get(FAIL_ONCE_VARIABLE):
    _install(os.environ[FAIL_ONCE_VARIABLE])
