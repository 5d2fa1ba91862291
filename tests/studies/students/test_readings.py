"""The students readings (krepro.studies.students.readings): generator variant × C selection."""

import pytest

from krepro.studies.students.readings import readings

SETTINGS = {
    "c_selections": {
        "cv": {"variants": ["paper", "authors_code"]},
        "test_set": {"variants": ["authors_code"]},
    },
    "primary_variant": "paper",
    "primary_c_selection": "cv",
    "n_repetitions": 10,
}


def test_readings_in_config_order_with_one_primary():
    found = readings(SETTINGS)
    assert [(r.name, r.primary, r.repetitions) for r in found] == [
        ("paper/cv", True, 10),
        ("authors_code/cv", False, 10),
        ("authors_code/test_set", False, 10),
    ]
    assert found[2].axes == {"variant": "authors_code", "c_selection": "test_set"}


def test_the_primary_must_be_run():
    with pytest.raises(ValueError, match="primary"):
        readings({**SETTINGS, "primary_c_selection": "test_set"})
