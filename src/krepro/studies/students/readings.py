"""The readings of the students study, declared once from its config section (``students``).

A reading is a generator variant under a C-selection rule, ``<variant>/<C selection>``: every
variant a C selection of ``students.c_selections`` lists, in config order; the primary one is
``students.primary_variant`` under ``students.primary_c_selection``. Each runs
``students.n_repetitions`` draws in one job. The rule file expands its jobs from these
readings and the report judges every claim under each, the primary first.
"""

from __future__ import annotations

from krepro.studies.readings import Reading, the_primary

__all__ = ["readings"]


def readings(settings) -> list[Reading]:
    """Every (variant, C selection) the config runs, in config order (C selection first).

    ``settings``: the ``students`` config section.
    """
    primary = (settings["primary_variant"], settings["primary_c_selection"])
    found = [
        Reading(
            f"{variant}/{c_selection}",
            {"variant": variant, "c_selection": c_selection},
            primary=(variant, c_selection) == primary,
            repetitions=settings["n_repetitions"],
        )
        for c_selection, spec in settings["c_selections"].items()
        for variant in spec["variants"]
    ]
    the_primary(found)
    return found
