"""The readings of the Adult study, declared once from its config section (``adult``).

Every (protocol, grid) of ``adult.protocols`` × ``adult.run_grids`` is a reading named
``<protocol>/<grid>``; the primary one (``adult.primary_protocol``, ``adult.primary_grid``)
runs ``adult.n_splits`` random splits, every other one the first ``adult.reading_splits`` of
them (unset: all). A variant row (``adult.variants``) is a reading of its own,
``<protocol>/<grid>+<variant>``, run in the jobs of its (protocol, grid) on their first
``reading_splits`` splits. The rule file expands its jobs from these readings
(:func:`fit_jobs`, :func:`job_methods`) and the report judges every claim under each.
"""

from __future__ import annotations

import dataclasses

from krepro.studies.readings import Reading, grid_readings

__all__ = ["fit_jobs", "job_methods", "reading_methods", "readings"]


def readings(settings) -> list[Reading]:
    """The (protocol, grid) readings in run order, then the variant readings.

    ``settings``: the ``adult`` config section. A variant reading's axes add ``variant``
    (its key in ``adult.variants``) to its (protocol, grid).
    """
    n_splits = settings["n_splits"]
    secondary = min(settings.get("reading_splits") or n_splits, n_splits)
    grid = grid_readings(
        {"protocol": list(settings["protocols"]), "grid": list(settings["run_grids"])},
        {"protocol": settings["primary_protocol"], "grid": settings["primary_grid"]},
        repetitions=n_splits,
        other_repetitions=secondary,
    )
    variants = [
        Reading(
            f"{v['protocol']}/{v['grid']}+{name}",
            {"protocol": v["protocol"], "grid": v["grid"], "variant": name},
            primary=False,
            repetitions=secondary,
        )
        for name, v in settings.get("variants", {}).items()
    ]
    return [dataclasses.replace(r, name="/".join(r.axes.values())) for r in grid] + variants


def reading_methods(reading: Reading, settings) -> list[str]:
    """The methods a reading runs: ``adult.methods`` (and, in the primary reading,
    ``adult.primary_methods``), or a variant reading's variant method."""
    if "variant" in reading.axes:
        return [settings["variants"][reading.axes["variant"]]["method"]]
    return list(settings["methods"]) + (
        settings.get("primary_methods", []) if reading.primary else []
    )


def fit_jobs(readings: list[Reading]) -> list[tuple[str, str, int]]:
    """The (protocol, grid, split) of every fit job, in run order: one per split of each
    reading, a variant reading's splits in the jobs of its (protocol, grid)."""
    return list(
        dict.fromkeys(
            (r.axes["protocol"], r.axes["grid"], split)
            for r in readings
            for split in range(r.repetitions)
        )
    )


def job_methods(readings: list[Reading], settings, protocol, grid, split) -> list[str]:
    """The methods of one fit job: those of every reading that runs split ``split`` of
    (``protocol``, ``grid``), in reading order, each once."""
    methods = [
        method
        for r in readings
        if (r.axes["protocol"], r.axes["grid"]) == (protocol, grid) and split < r.repetitions
        for method in reading_methods(r, settings)
    ]
    return list(dict.fromkeys(methods))
