"""Readings of a protocol, declared once per study.

A paper's protocol is often ambiguous (which kernel centring, which penalty, which grid):
a study runs it under each plausible **reading** and every claim gets one verdict per
reading (:mod:`krepro.studies.judging`). A :class:`Reading` is a name (the ``protocol``
column of ``verdicts.csv``), the config values that identify it (its axes), whether it is the
primary reading (the one the scorecard counts) and its repetitions.

Each study declares its readings in one function of its config section
(``Study.readings``, by convention in the study's ``readings.py``); the rule files expand
their run lists from it and the report judges the claims over it, so that a reading added to
the config appears in both with no other edit.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

__all__ = [
    "Reading",
    "axes_name",
    "counted_readings",
    "grid_readings",
    "job_repetitions",
    "present",
    "primary_first",
    "readings_markdown",
    "the_primary",
]


@dataclasses.dataclass(frozen=True)
class Reading:
    """One reading of a study's protocol.

    Parameters
    ----------
    name : str
        How the verdicts name it (their ``protocol`` column) and the stability seed's name.
    axes : mapping of str to object
        The config values that identify it: column name → value in the study's run tables
        (e.g. ``{"variant": "paper_text"}``); empty for a study with one reading.
    primary : bool
        Whether it is the reading the scorecard counts.
    repetitions : int or None
        Independent repetitions it runs (``None``: not a repeated experiment).
    """

    name: str
    axes: Mapping = dataclasses.field(default_factory=dict)
    primary: bool = True
    repetitions: int | None = None

    def select(self, frame):
        """The rows of ``frame`` under this reading (axes that are not columns are ignored)."""
        mask = np.ones(len(frame), dtype=bool)
        for axis, value in self.axes.items():
            if axis in frame.columns:
                mask &= (frame[axis] == value).to_numpy()
        return frame[mask]

    def with_repetitions(self, repetitions: int | None) -> Reading:
        """The same reading with the repetitions actually run (e.g. counted in its runs)."""
        return dataclasses.replace(self, repetitions=repetitions)


def axes_name(axes: Mapping) -> str:
    """``"axis=value, axis=value"``: the name of a reading on a grid of axes."""
    return ", ".join(f"{axis}={value}" for axis, value in axes.items())


def grid_readings(
    axes: Mapping[str, Sequence],
    primary: Mapping,
    *,
    repetitions: int,
    other_repetitions: int | None = None,
    fit_axes: Sequence[str] | None = None,
) -> list[Reading]:
    """Every combination of the values of ``axes``, in axis order (the last axis fastest).

    Parameters
    ----------
    axes : mapping of str to sequence
        The values of each axis, in order.
    primary : mapping
        The primary value of each axis.
    repetitions : int
        Repetitions of the primary reading.
    other_repetitions : int, optional
        Repetitions of every other reading (default ``repetitions``).
    fit_axes : sequence of str, optional
        The axes that name a fit job, where one job serves several readings: a reading with
        the primary's values on these axes runs in the primary's job, so it has
        ``repetitions`` too (default: only the primary has).

    Raises
    ------
    ValueError
        When the primary reading is not on the grid.
    """
    other = repetitions if other_repetitions is None else other_repetitions
    readings = []
    for values in itertools.product(*axes.values()):
        point = dict(zip(axes, values, strict=True))
        is_primary = all(primary.get(axis) == value for axis, value in point.items())
        in_primary_job = fit_axes is not None and all(
            primary.get(axis) == point[axis] for axis in fit_axes
        )
        runs = repetitions if is_primary or in_primary_job else other
        readings.append(Reading(axes_name(point), point, is_primary, runs))
    the_primary(readings)
    return readings


def the_primary(readings: Iterable[Reading]) -> Reading:
    """The one primary reading.

    Raises
    ------
    ValueError
        When there is not exactly one.
    """
    readings = list(readings)
    primaries = [r for r in readings if r.primary]
    if len(primaries) != 1:
        raise ValueError(
            f"exactly one reading must be primary, got {[r.name for r in primaries]} among"
            f" {[r.name for r in readings]}."
        )
    return primaries[0]


def primary_first(readings: Iterable[Reading]) -> list[Reading]:
    """The readings with the primary one first, the others in their order."""
    readings = list(readings)
    primary = the_primary(readings)
    return [primary] + [r for r in readings if r is not primary]


def present(readings: Iterable[Reading], frame) -> list[Reading]:
    """The readings that have rows in ``frame``, in their order."""
    return [r for r in readings if len(r.select(frame))]


def counted_readings(
    readings: Iterable[Reading], runs, table, column: str = "n_reps"
) -> list[Reading]:
    """The readings that have rows in ``runs``, each with the repetitions its rows of
    ``table`` count (the least of ``column``).

    Raises
    ------
    ValueError
        When the primary reading has no rows.
    """
    counted = [
        r.with_repetitions(int(r.select(table)[column].min())) for r in present(readings, runs)
    ]
    the_primary(counted)
    return counted


def job_repetitions(readings: Iterable[Reading], axes: Sequence[str]) -> dict[tuple, int]:
    """The repetitions of each job where one job runs every reading that shares its values of
    ``axes`` (the other axes fitted inside the job, on the same draws).

    Returns
    -------
    dict of tuple to int
        The job's values of ``axes`` → the most repetitions of its readings, in the readings'
        order.
    """
    jobs: dict[tuple, int] = {}
    for reading in readings:
        key = tuple(reading.axes[axis] for axis in axes)
        jobs[key] = max(jobs.get(key, 0), reading.repetitions)
    return jobs


def readings_markdown(table, readings: Iterable[Reading], render: Callable) -> str:
    """One Markdown table per reading that has rows in ``table`` (``render(rows)``), each
    under the reading's name in bold."""
    out = []
    for reading in present(readings, table):
        out += [f"**{reading.name}**", "", render(reading.select(table)), ""]
    return "\n".join(out).rstrip()
