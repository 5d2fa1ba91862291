"""Coverage study readings (krepro.studies.coverage.readings): variant × band, shards."""

from __future__ import annotations

from krepro.studies.coverage.readings import (
    BANDS,
    readings,
    shard_ranges,
    shards,
    variant_readings,
)

SETTINGS = {
    "primary_variant": "main",
    "variants": {"zeta": {"n_repetitions": 3}, "alpha": {"n_repetitions": 5}},
}
SETTINGS["variants"]["main"] = {"n_repetitions": 10}


def test_readings_are_variant_by_band_primary_first():
    found = readings(SETTINGS)
    assert [r.name for r in found] == [
        f"{v}, {band} band" for v in ("main", "alpha", "zeta") for band in BANDS
    ]
    assert [r.name for r in found if r.primary] == ["main, percentile band"]
    assert found[2].axes == {"variant": "alpha", "band": "percentile"}
    assert [r.repetitions for r in found] == [10, 10, 5, 5, 3, 3]


def test_variant_readings_drop_the_band():
    found = variant_readings(readings(SETTINGS))
    assert [(r.name, r.primary, r.repetitions) for r in found] == [
        ("main", True, 10),
        ("alpha", False, 5),
        ("zeta", False, 3),
    ]
    assert found[1].axes == {"variant": "alpha"}


def test_shards_split_each_variant_into_blocks():
    assert shard_ranges(10, 4) == [(0, 4), (4, 8), (8, 10)]
    assert shards(readings(SETTINGS), 4) == [
        ("main", 0, 3),
        ("main", 4, 7),
        ("main", 8, 9),
        ("alpha", 0, 3),
        ("alpha", 4, 4),
        ("zeta", 0, 2),
    ]
