"""The one reading of ``adult_full`` (``Study.readings``): every method fitted once, on one
split, so the verdicts rest on one repetition (their intervals come from the test-set
bootstrap, :mod:`.bootstrap`)."""

from __future__ import annotations

from krepro.studies.readings import Reading

__all__ = ["readings"]


def readings(settings):
    """The study's readings under its config section ``settings``: one, ``primary``, with one
    repetition."""
    return [Reading("primary", repetitions=1)]
