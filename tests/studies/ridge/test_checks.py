"""The ridge section's config checks (krepro.studies.ridge.checks): each cross-field rule
names its keys, and every constraint config/README.md states on the section is refused when
the workflow reads the config (schema or check). The shared part:
tests/workflow/config_cases.py."""

import copy

from tests.workflow.config_cases import (
    DEFAULT,
    config_problems,
    default_base,
    names_its_keys_test,
    parse_time_refusal,
    refused_at_parse_time_test,
    set_key,
)

base = default_base

CASES = {
    "ridge-primary": (
        set_key("ridge.primary_variant", "nope"),
        ["ridge.primary_variant = 'nope'", "ridge.variants"],
    ),
    "ridge-lambda": (
        set_key("ridge.variants.paper_text.log2_lambda_min", 6),
        ["ridge.variants.paper_text.log2_lambda_min = 6", "log2_lambda_max = 5"],
    ),
    "ridge-range": (
        set_key("ridge.partition.low", 5.0),
        ["ridge.partition.low = 5.0", "ridge.partition.high = 5.0"],
    ),
}

README_CASES = {
    5: ("`ridge.gammas` in [0, 1]", "schema", set_key("ridge.gammas", [0.0, 1.0, 1.5]),
        [r"ridge\.gammas\.2: 1\.5 is greater than the maximum of 1"]),
    8: ("`ridge.gammas` contains 0 and 1", "check", set_key("ridge.gammas", [0.5]),
        [r"ridge\.gammas = \[0\.5\] must contain 0 and 1 \(missing 0, 1\)"]),
    9: ("`ridge.gammas` contains 0 and 1", "check", set_key("ridge.gammas", [0.0, 0.5]),
        [r"ridge\.gammas = \[0\.0, 0\.5\] must contain 0 and 1 \(missing 1\)"]),
    10: ("`ridge.experiments` contains 1 and 2", "check", set_key("ridge.experiments", [1]),
         [r"ridge\.experiments = \[1\] must contain 1 and 2 \(missing \[2\]\)"]),
    11: ("`ridge.experiments` contains 1 and 2", "check", set_key("ridge.experiments", [2]),
         [r"ridge\.experiments = \[2\] must contain 1 and 2 \(missing \[1\]\)"]),
    13: ("λ, α and C grids are ordered", "check", CASES["ridge-lambda"][0],
         [r"ridge\.variants\.paper_text\.log2_lambda_min = 6"]),
    21: ("ranges have `low < high`", "check", CASES["ridge-range"][0], [r"ridge\.partition\.low"]),
    26: ("primary variants exist", "check", CASES["ridge-primary"][0], [r"ridge\.primary_variant"]),
}  # fmt: skip


test_each_cross_field_rule_names_its_keys = names_its_keys_test(CASES, base)


test_each_readme_constraint_is_refused_at_parse_time = refused_at_parse_time_test(
    README_CASES, base
)


def test_equal_bounds_of_a_grid_are_a_single_point():
    config = copy.deepcopy(DEFAULT)
    config["ridge"]["variants"]["paper_text"]["log2_lambda_min"] = 5
    assert config_problems(config) == []


def test_the_issue_example_is_refused_before_any_job():
    """``--config 'ridge={"gammas": [0.5], "n_repetitions": 2}'`` used to pass, run every
    fit job and fail in ridge_summary (KeyError: the report needs γ = 0 and γ = 1)."""
    config = copy.deepcopy(DEFAULT)
    config["ridge"] |= {"gammas": [0.5], "n_repetitions": 2}
    refused_by, messages = parse_time_refusal(config)
    assert refused_by == "check"
    assert messages == [
        "ridge.gammas = [0.5] must contain 0 and 1 (missing 0, 1): the report compares the"
        " methods at both ends."
    ]
