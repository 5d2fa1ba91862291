"""Readings declared once (krepro.studies.readings)."""

from __future__ import annotations

import pandas as pd
import pytest

from krepro.studies.readings import Reading, grid_readings, present, primary_first, the_primary


def test_grid_readings_in_axis_order_with_one_primary():
    readings = grid_readings(
        {"centring": ["none", "domain"], "kernel": ["rbf", "linear"]},
        {"centring": "domain", "kernel": "rbf"},
        repetitions=20,
        other_repetitions=5,
    )
    assert [r.name for r in readings] == [
        "centring=none, kernel=rbf",
        "centring=none, kernel=linear",
        "centring=domain, kernel=rbf",
        "centring=domain, kernel=linear",
    ]
    assert [r.primary for r in readings] == [False, False, True, False]
    assert [r.repetitions for r in readings] == [5, 5, 20, 5]
    assert primary_first(readings)[0].name == "centring=domain, kernel=rbf"


def test_a_primary_off_the_grid_or_two_primaries_are_refused():
    with pytest.raises(ValueError, match="exactly one reading must be primary"):
        grid_readings({"kernel": ["rbf"]}, {"kernel": "linear"}, repetitions=3)
    with pytest.raises(ValueError, match="exactly one reading must be primary"):
        the_primary([Reading("a"), Reading("b")])


def test_select_and_present_read_the_axes_that_are_columns():
    frame = pd.DataFrame({"variant": ["a", "a", "b"], "value": [1, 2, 3]})
    a = Reading("a", {"variant": "a", "not_a_column": 1})
    c = Reading("c", {"variant": "c"}, primary=False)
    assert list(a.select(frame)["value"]) == [1, 2]
    assert present([a, c], frame) == [a]
    assert a.with_repetitions(2).repetitions == 2 and a.repetitions is None
