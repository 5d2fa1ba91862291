"""Config checks of the fair-regression study (``STUDY.config_checks``): what the schema
cannot say about the ``fair_regression`` section, checked before the workflow builds its
DAG."""

from __future__ import annotations

import math

from krepro.config_rules import ordered

__all__ = ["check"]


def check(problems, config):
    """Append the problems of ``config["fair_regression"]`` to ``problems``: an ordered α grid
    of the CME, and sweeps that hold the claims' full setting."""
    fair_regression = config["fair_regression"]
    ordered(
        problems,
        fair_regression["cme"],
        "log10_alpha_min",
        "log10_alpha_max",
        strict=False,
        prefix="fair_regression.cme",
    )
    sweeps = fair_regression["sweeps"]
    # The claims of oblivious.fair_regression compare t = 1 with CorrelationRemover's α = 1.
    for key in ("oblivious", "correlation_remover"):
        if not any(math.isclose(value, 1.0, abs_tol=1e-9) for value in sweeps[key]):
            problems.append(
                f"fair_regression.sweeps.{key} = {sweeps[key]} must contain 1: the claims"
                " compare the full setting (t = 1, α = 1)."
            )
