"""The readings of the Parkinson's DCM study (``Study.readings``), declared once from its
config section: the rule file expands its fit jobs from them and the report judges every
claim under each."""

from __future__ import annotations

from krepro.studies.readings import grid_readings

__all__ = ["AXES", "FIT_AXES", "readings"]

#: Protocol axes (config lists) → the values they may take, in the readings' order.
AXES = {"centring": ("centred", "uncentred"), "svr_kernel": ("rbf", "linear")}
#: The axes of one fit job (the dimension reduction depends on them); every SVR kernel is
#: fitted inside the job, on the same projections.
FIT_AXES = ("centring",)


def readings(settings):
    """Every combination of the configured values of :data:`AXES`, in that order; the primary
    one is ``settings["primary"]``.

    A reading runs the repetitions (subject splits) of its centring: ``n_repetitions`` for
    the primary's, ``reading_repetitions`` for the others.
    """
    return grid_readings(
        {axis: [v for v in values if v in settings[axis]] for axis, values in AXES.items()},
        settings["primary"],
        repetitions=settings["n_repetitions"],
        other_repetitions=settings["reading_repetitions"],
        fit_axes=FIT_AXES,
    )
