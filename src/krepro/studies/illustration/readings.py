"""The one reading of ``illustration`` (``Study.readings``): the paper's construction, drawn
``n_repetitions`` times per setting."""

from __future__ import annotations

from krepro.studies.readings import Reading

__all__ = ["readings"]


def readings(settings):
    """The study's readings under its config section ``settings``: one, ``primary``, with
    ``n_repetitions`` repetitions."""
    return [Reading("primary", repetitions=settings["n_repetitions"])]
