"""The adult section's config checks (krepro.studies.adult.checks): each cross-field rule
names its keys, and every constraint config/README.md states on the section is refused when
the workflow reads the config (schema or check). The shared part:
tests/workflow/config_cases.py."""

import pytest

from tests.workflow.config_cases import (
    DEFAULT,
    both,
    default_base,
    load,
    merged,
    names_its_keys_test,
    parse_time_refusal,
    refused_at_parse_time_test,
    set_key,
)


def base():
    """The base of the cross-field cases: the default config with a training set small enough
    that the fold check bites (below the schema's minimum, which the README cases keep to:
    the cross-field checks alone see it)."""
    config = default_base()
    config["adult"]["n_train_corrected"] = 19
    return config


CASES = {
    "adult-primary-grid": (
        set_key("adult.primary_grid", "nope"),
        ["adult.primary_grid = 'nope'", "adult.run_grids"],
    ),
    "adult-primary-protocol": (
        set_key("adult.primary_protocol", "nope"),
        ["adult.primary_protocol = 'nope'", "adult.protocols"],
    ),
    "adult-variant-reading": (
        set_key("adult.variants.cv_misaligned.grid", "huge"),
        ["adult.variants.cv_misaligned reads reference/huge"],
    ),
    "adult-run-grids": (
        set_key("adult.run_grids", ["paper", "huge"]),
        ["adult.run_grids ['huge']", "adult.grids"],
    ),
    "adult-folds": (
        set_key("adult.n_folds", 20),
        ["adult.n_folds = 20", "adult.n_train_corrected = 19"],
    ),
}

README_CASES = {
    34: ("adult readings exist", "check", CASES["adult-run-grids"][0],
         [r"adult\.run_grids \['huge'\]"]),
    35: ("adult readings exist", "check",
         both(set_key("adult.run_grids", ["paper"]), set_key("adult.primary_grid", "repository")),
         [r"adult\.primary_grid = 'repository' is not one of adult\.run_grids \['paper'\]"]),
    36: ("adult readings exist", "check", set_key("adult.primary_protocol", "corrected"),
         [r"adult\.primary_protocol = 'corrected' is not one of adult\.protocols \['reference'\]"]),
    37: ("adult readings exist", "check", CASES["adult-variant-reading"][0],
         [r"adult\.variants\.cv_misaligned reads reference/huge"]),
    39: ("folds have training points", "schema", set_key("adult.n_folds", 21),
         [r"adult\.n_folds: 21 is greater than the maximum of 20"]),
    40: ("folds have training points", "schema", set_key("adult.n_train_corrected", 19),
         [r"adult\.n_train_corrected: 19 is less than the minimum of 20"]),
}  # fmt: skip


test_each_cross_field_rule_names_its_keys = names_its_keys_test(CASES, base)


test_each_readme_constraint_is_refused_at_parse_time = refused_at_parse_time_test(
    README_CASES, default_base
)


@pytest.mark.parametrize("value", ["smo", "Exact", None, True])
def test_an_unknown_adult_linear_solver_is_refused_by_the_schema(value):
    """``adult.protocols.<p>.linear_solver`` is libsvm or exact (the paper config sets exact
    for both protocols, the quick config leaves the reference on libsvm); anything else is a
    schema error naming the key."""
    paper = merged(DEFAULT, load("config/paper.yaml"))
    assert paper["adult"]["protocols"]["corrected"]["linear_solver"] == "exact"
    assert paper["adult"]["protocols"]["reference"]["linear_solver"] == "exact"
    assert "linear_solver" not in DEFAULT["adult"]["protocols"]["reference"]  # libsvm
    assert parse_time_refusal(paper) == ("check", [])
    paper["adult"]["protocols"]["corrected"]["linear_solver"] = value
    refused_by, messages = parse_time_refusal(paper)
    assert refused_by == "schema"
    assert len(messages) == 1
    assert messages[0].startswith("adult.protocols.corrected.linear_solver: "), messages
