"""Config checks of the coverage study (``STUDY.config_checks``): what the schema cannot say
about the ``coverage`` section, checked before the workflow builds its DAG."""

from __future__ import annotations

from krepro.config_rules import primary_variant

__all__ = ["check"]


def check(problems, config):
    """Append the problems of ``config["coverage"]`` to ``problems``: a primary variant among
    the variants, strictly increasing partitions and targets, and nested partitions that
    divide the sample."""
    coverage = config["coverage"]
    primary_variant(problems, coverage, "coverage")
    for key in ("partitions", "targets"):
        if coverage[key] != sorted(set(coverage[key])):
            problems.append(f"coverage.{key} = {coverage[key]} must be strictly increasing.")
    n, partitions = coverage["n_samples"], coverage["partitions"]
    bad = [p for p in partitions if n % p or p % min(partitions)]
    if bad:
        problems.append(
            f"coverage.partitions {bad}: every P must divide coverage.n_samples = {n} and be "
            f"a multiple of the smallest P = {min(partitions)} (nested partitions)."
        )
