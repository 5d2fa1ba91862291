"""The readings of the synthetic DCM study (``Study.readings``), declared once from its config
section: the rule file expands its fit jobs from them and the report judges the claim under
each."""

from __future__ import annotations

from krepro.studies.readings import grid_readings

__all__ = ["AXES", "FIT_AXES", "readings"]

#: Protocol axes (config lists) → the values they may take, in the readings' order.
AXES = {
    "centring": ("centred", "uncentred"),
    "classifier": ("rbf", "linear"),
    "b_scale": ("gaussian", "unit"),
}
#: The axes of one fit job (the data and the dimension reduction depend on them); every
#: classifier is fitted inside the job, on the same projections.
FIT_AXES = ("centring", "b_scale")


def readings(settings):
    """Every combination of the configured values of :data:`AXES`, in that order; the primary
    one is ``settings["primary"]``.

    A reading runs the repetitions of its fit job: ``n_repetitions`` where its
    (centring, b_scale) is the primary's, ``reading_repetitions`` elsewhere.
    """
    return grid_readings(
        {axis: [v for v in values if v in settings[axis]] for axis, values in AXES.items()},
        settings["primary"],
        repetitions=settings["n_repetitions"],
        other_repetitions=settings["reading_repetitions"],
        fit_axes=FIT_AXES,
    )
