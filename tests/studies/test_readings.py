"""Readings declared once (krepro.studies.readings)."""

from __future__ import annotations

import pandas as pd
import pytest

from krepro.studies.readings import (
    Reading,
    counted_readings,
    grid_readings,
    job_repetitions,
    present,
    primary_first,
    readings_markdown,
    the_primary,
)


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


def test_job_repetitions_run_the_most_repetitions_of_the_readings_a_job_fits():
    readings = grid_readings(
        {"centring": ["centred", "uncentred"], "kernel": ["rbf", "linear"]},
        {"centring": "centred", "kernel": "rbf"},
        repetitions=20,
        other_repetitions=3,
    )
    assert job_repetitions(readings, ("centring",)) == {("centred",): 20, ("uncentred",): 3}
    assert list(job_repetitions(readings, ("kernel", "centring"))) == [
        ("rbf", "centred"),
        ("linear", "centred"),
        ("rbf", "uncentred"),
        ("linear", "uncentred"),
    ]


def test_readings_markdown_one_table_per_reading_with_rows():
    frame = pd.DataFrame({"variant": ["b", "a", "b"], "value": [1, 2, 3]})
    readings = [Reading("a", {"variant": "a"}), Reading("b", {"variant": "b"}, primary=False)]
    readings.append(Reading("c", {"variant": "c"}, primary=False))
    text = readings_markdown(frame, readings, lambda rows: str(list(rows["value"])))
    assert text == "**a**\n\n[2]\n\n**b**\n\n[1, 3]"


def test_counted_readings_take_their_repetitions_from_the_table_and_need_the_primary():
    runs = pd.DataFrame({"variant": ["a", "a", "b"], "value": [1, 2, 3]})
    table = pd.DataFrame({"variant": ["a", "a", "b"], "n_reps": [5, 4, 2]})
    a = Reading("a", {"variant": "a"}, repetitions=20)
    b = Reading("b", {"variant": "b"}, primary=False)
    c = Reading("c", {"variant": "c"}, primary=False)
    assert counted_readings([a, b, c], runs, table) == [
        a.with_repetitions(4),
        b.with_repetitions(2),
    ]
    with pytest.raises(ValueError, match="exactly one reading must be primary"):
        counted_readings([a, b], runs[runs["variant"] == "b"], table)


def test_readings_in_the_primarys_fit_job_run_its_repetitions():
    readings = grid_readings(
        {"centring": ["centred", "uncentred"], "kernel": ["rbf", "linear"]},
        {"centring": "centred", "kernel": "rbf"},
        repetitions=20,
        other_repetitions=3,
        fit_axes=["centring"],
    )
    assert [(r.name, r.repetitions) for r in readings] == [
        ("centring=centred, kernel=rbf", 20),
        ("centring=centred, kernel=linear", 20),
        ("centring=uncentred, kernel=rbf", 3),
        ("centring=uncentred, kernel=linear", 3),
    ]
