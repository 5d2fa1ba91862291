"""Config checks of the projection study (``STUDY.config_checks``): what the schema cannot
say about the ``projection`` section, checked before the workflow builds its DAG."""

from __future__ import annotations

from krepro.config_rules import ordered

__all__ = ["check"]


def check(problems, config):
    """Append the problems of ``config["projection"]`` to ``problems``: a partition with
    ``low < high``."""
    ordered(
        problems,
        config["projection"]["partition"],
        "low",
        "high",
        strict=True,
        prefix="projection.partition",
    )
