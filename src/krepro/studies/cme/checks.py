"""Config checks of the CME study (``STUDY.config_checks``): what the schema cannot say about
the ``cme`` section, checked before the workflow builds its DAG."""

from __future__ import annotations

__all__ = ["check"]


def check(problems, config):
    """Append the problems of ``config["cme"]`` to ``problems``: two different contrast
    points."""
    first, second = config["cme"]["contrast_x"]
    if first == second:
        problems.append(
            f"cme.contrast_x = {config['cme']['contrast_x']} must hold two different points "
            "(the claim compares the conditional laws at two x)."
        )
