"""The one reading of ``projection`` (``Study.readings``): the paper's protocol, its
repetitions counted per claim (the independent (γ, repetition) instances each rests on)."""

from __future__ import annotations

from krepro.studies.readings import Reading

__all__ = ["readings"]


def readings(settings):
    """The study's readings under its config section ``settings``: one, ``primary``."""
    return [Reading("primary")]
