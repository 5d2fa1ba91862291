"""The readings of the coverage study, declared once from its config section (``coverage``),
and the shards that run them.

The protocol has two ambiguities, run side by side: the penalty variant (``coverage.variants``;
``coverage.primary_variant`` primary) and the band (:data:`BANDS`: percentile, the authors'
code, primary; basic, the paper's eqs. (7)/(10)). A reading is a (variant, band), named
``"<variant>, <band> band"``; a claim the band plays no part in (accuracy) is judged under
:func:`variant_readings`, one per variant, named by it. A variant runs its
``n_repetitions`` in shards of ``coverage.shard_size`` (:func:`shards`), every band from the
same shards. The rule file expands its shards from these readings and the report judges
every claim under each.
"""

from __future__ import annotations

from krepro.studies.readings import Reading

__all__ = ["BANDS", "readings", "shard_ranges", "shards", "variant_readings"]

#: The bands a repetition records, in the shards' order; the first is the primary reading's.
BANDS = ("percentile", "basic")


def readings(settings) -> list[Reading]:
    """Every (variant, band): the primary variant first, the others by name, each band in
    :data:`BANDS` order.

    ``settings``: the ``coverage`` config section. A reading's axes are ``variant`` (a column
    of the per-repetition table) and ``band``; its repetitions its variant's.
    """
    primary = settings["primary_variant"]
    variants = [primary, *sorted(set(settings["variants"]) - {primary})]
    return [
        Reading(
            f"{variant}, {band} band",
            {"variant": variant, "band": band},
            primary=variant == primary and band == BANDS[0],
            repetitions=settings["variants"][variant]["n_repetitions"],
        )
        for variant in variants
        for band in BANDS
    ]


def variant_readings(readings: list[Reading]) -> list[Reading]:
    """One reading per variant, named by it: the readings of a claim the band plays no part
    in (its primary band's reading without the band)."""
    return [
        Reading(r.axes["variant"], {"variant": r.axes["variant"]}, r.primary, r.repetitions)
        for r in readings
        if r.axes["band"] == BANDS[0]
    ]


def shard_ranges(n_repetitions, shard_size):
    """``[(first, stop), ...]``: repetitions split into blocks of ``shard_size``."""
    return [
        (first, min(first + shard_size, n_repetitions))
        for first in range(0, n_repetitions, shard_size)
    ]


def shards(readings: list[Reading], shard_size) -> list[tuple[str, int, int]]:
    """``(variant, first, last)`` of every shard: each variant's repetitions in blocks of
    ``shard_size`` (:func:`shard_ranges`); a larger run keeps the shards it already has
    (except a partial last one)."""
    return [
        (r.name, first, stop - 1)
        for r in variant_readings(readings)
        for first, stop in shard_ranges(r.repetitions, shard_size)
    ]
