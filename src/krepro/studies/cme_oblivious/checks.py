"""Config checks of the CME-oblivious study (``STUDY.config_checks``): what the schema cannot
say about the ``cme_oblivious`` section, checked before the workflow builds its DAG."""

from __future__ import annotations

from krepro.config_rules import ordered

__all__ = ["check"]


def check(problems, config):
    """Append the problems of ``config["cme_oblivious"]`` to ``problems``: ordered λ and α
    grids and a partition with ``low < high``."""
    cme_oblivious = config["cme_oblivious"]
    ordered(
        problems,
        cme_oblivious,
        "log2_lambda_min",
        "log2_lambda_max",
        strict=False,
        prefix="cme_oblivious",
    )
    ordered(
        problems,
        cme_oblivious["cme"],
        "log10_alpha_min",
        "log10_alpha_max",
        strict=False,
        prefix="cme_oblivious.cme",
    )
    ordered(
        problems,
        cme_oblivious["partition"],
        "low",
        "high",
        strict=True,
        prefix="cme_oblivious.partition",
    )
