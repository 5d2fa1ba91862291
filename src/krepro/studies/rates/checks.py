"""Config checks of the rates study (``STUDY.config_checks``): what the schema cannot say
about the ``rates`` section, checked before the workflow builds its DAG."""

from __future__ import annotations

from krepro.config_rules import ordered

__all__ = ["check"]


def check(problems, config):
    """Append the problems of ``config["rates"]`` to ``problems``: an ordered α grid of the
    CME, a Gram-cost range with ``low < high``, and CME dimensions among the continuous
    settings'."""
    rates = config["rates"]
    ordered(
        problems,
        rates["cme"],
        "log10_alpha_min",
        "log10_alpha_max",
        strict=False,
        prefix="rates.cme",
    )
    ordered(problems, rates["gram_cost"], "low", "high", strict=True, prefix="rates.gram_cost")
    extra = [d for d in rates["cme"]["dims"] if d not in rates["continuous"]["dims"]]
    if extra:
        problems.append(
            f"rates.cme.dims {extra} are not among rates.continuous.dims"
            f" {rates['continuous']['dims']} (the CME runs on the continuous settings only)."
        )
