"""Readings of ``ridge`` (``Study.readings``): one per protocol variant of ``ridge.variants``
(noise variance and λ grid, from the paper's text or the authors' code), the primary one
``ridge.primary_variant``."""

from __future__ import annotations

from krepro.studies.readings import Reading

__all__ = ["readings"]


def readings(settings):
    """The study's readings under its config section ``settings``: one per variant, named by
    it, in the config's order, each with ``n_repetitions`` repetitions per γ."""
    return [
        Reading(
            variant,
            {"variant": variant},
            primary=variant == settings["primary_variant"],
            repetitions=settings["n_repetitions"],
        )
        for variant in settings["variants"]
    ]
