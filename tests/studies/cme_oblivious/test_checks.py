"""The cme_oblivious section's config checks (krepro.studies.cme_oblivious.checks): each
cross-field rule names its keys, and every constraint config/README.md states on the section
is refused when the workflow reads the config (schema or check). The shared part:
tests/workflow/config_cases.py."""

from tests.workflow.config_cases import (
    default_base,
    names_its_keys_test,
    refused_at_parse_time_test,
    set_key,
    stated,
)

base = default_base

CASES = {
    "cme-oblivious-lambda": (
        set_key("cme_oblivious.log2_lambda_min", 9),
        ["cme_oblivious.log2_lambda_min = 9", "cme_oblivious.log2_lambda_max"],
    ),
    "cme-oblivious-alpha": (
        set_key("cme_oblivious.cme.log10_alpha_min", 0),
        ["cme_oblivious.cme.log10_alpha_min = 0", "cme_oblivious.cme.log10_alpha_max = -1"],
    ),
    "cme-oblivious-range": (
        set_key("cme_oblivious.partition.high", -6.0),
        ["cme_oblivious.partition.low = -5.0", "cme_oblivious.partition.high = -6.0"],
    ),
}

README_CASES = {
    6: (stated(".gammas` in [0, 1]"), "schema", set_key("cme_oblivious.gammas", [-0.5, 1.0]),
        [r"cme_oblivious\.gammas\.0: -0\.5 is less than the minimum of 0"]),
    14: ("λ, α and C grids are ordered", "check", CASES["cme-oblivious-lambda"][0],
         [r"cme_oblivious\.log2_lambda_min = 9"]),
    15: ("λ, α and C grids are ordered", "check", CASES["cme-oblivious-alpha"][0],
         [r"cme_oblivious\.cme\.log10_alpha_min = 0"]),
    22: ("ranges have `low < high`", "check", CASES["cme-oblivious-range"][0],
         [r"cme_oblivious\.partition\.low"]),
}  # fmt: skip


test_each_cross_field_rule_names_its_keys = names_its_keys_test(CASES, base)


test_each_readme_constraint_is_refused_at_parse_time = refused_at_parse_time_test(
    README_CASES, base
)
