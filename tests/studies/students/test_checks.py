"""The students section's config checks (krepro.studies.students.checks): each cross-field
rule names its keys, and every constraint config/README.md states on the section is refused
when the workflow reads the config (schema or check). The shared part:
tests/workflow/config_cases.py."""

import copy

from tests.workflow.config_cases import (
    DEFAULT,
    config_problems,
    default_base,
    names_its_keys_test,
    refused_at_parse_time_test,
    set_key,
)


def base():
    """The default config with a training set small enough that the fold check bites."""
    config = default_base()
    config["students"]["n_train"] = 10
    return config


CASES = {
    "students-C": (
        set_key("students.c_selections.cv.log2_C_min", 5),
        ["students.c_selections.cv.log2_C_min = 5", "students.c_selections.cv.log2_C_max = 4"],
    ),
    "students-range": (
        set_key("students.variants.paper.low", 4.0),
        ["students.variants.paper.low = 4.0", "students.variants.paper.high = 4.0"],
    ),
    "students-primary-c-selection": (
        set_key("students.primary_c_selection", "nope"),
        ["students.primary_c_selection = 'nope'", "students.c_selections"],
    ),
    "students-c-selection-variant": (
        set_key("students.c_selections.cv.variants", ["paper", "nope"]),
        ["students.c_selections.cv.variants ['nope']"],
    ),
    "students-primary": (
        set_key("students.primary_variant", "nope"),
        ["students.primary_variant = 'nope'", "students.variants"],
    ),
    "students-folds": (
        set_key("students.n_folds", 20),
        ["students.n_folds = 20", "students.n_train = 10"],
    ),
}

README_CASES = {
    20: ("λ, α and C grids are ordered", "check", CASES["students-C"][0],
         [r"students\.c_selections\.cv\.log2_C_min = 5"]),
    25: ("ranges have `low < high`", "check", CASES["students-range"][0],
         [r"students\.variants\.paper\.low"]),
    27: ("primary variants exist", "check", CASES["students-primary"][0],
         [r"students\.primary_variant"]),
    31: ("students C selections are consistent", "check", CASES["students-primary-c-selection"][0],
         [r"students\.primary_c_selection = 'nope'"]),
    32: ("students C selections are consistent", "check", CASES["students-c-selection-variant"][0],
         [r"students\.c_selections\.cv\.variants \['nope'\]"]),
    33: ("students C selections are consistent", "check",
         set_key("students.c_selections.cv.variants", ["authors_code"]),
         [r"students\.primary_variant = 'paper' is not run under"]),
    38: ("folds have training points", "check", CASES["students-folds"][0], [r"students\.n_folds"]),
}  # fmt: skip


test_each_cross_field_rule_names_its_keys = names_its_keys_test(CASES, base)


test_each_readme_constraint_is_refused_at_parse_time = refused_at_parse_time_test(
    README_CASES, base
)


def test_equal_bounds_of_a_grid_are_a_single_point():
    config = copy.deepcopy(DEFAULT)
    config["students"]["log2_C_min"] = config["students"]["log2_C_max"] = 0
    assert config_problems(config) == []
