"""The cme section's config checks (krepro.studies.cme.checks): each cross-field rule names
its keys, and every constraint config/README.md states on the section is refused when the
workflow reads the config (schema or check). The shared part: tests/workflow/config_cases.py."""

from tests.workflow.config_cases import (
    default_base,
    names_its_keys_test,
    refused_at_parse_time_test,
    set_key,
)

base = default_base

CASES = {
    "cme-contrast": (
        set_key("cme.contrast_x", [0.5, 0.5]),
        ["cme.contrast_x = [0.5, 0.5]"],
    ),
}

README_CASES = {
    48: ("repetitions allow a standard deviation", "schema", set_key("cme.n_repetitions", 1),
         [r"cme\.n_repetitions: 1 is less than the minimum of 2"]),
    61: ("`cme.contrast_x` holds two different points", "schema", set_key("cme.contrast_x", [0.5]),
         [r"cme\.contrast_x: \[0\.5\] (should be non-empty|is too short)"]),
    62: ("`cme.contrast_x` holds two different points", "schema",
         set_key("cme.contrast_x", [0.1, 1.5]), [r"cme\.contrast_x\.1: 1\.5 is greater"]),
    63: ("`cme.contrast_x` holds two different points", "check", CASES["cme-contrast"][0],
         [r"cme\.contrast_x = \[0\.5, 0\.5\] must hold two different points"]),
    64: ("`cme.lambdas` holds two positive values", "schema", set_key("cme.lambdas", [1e-3]),
         [r"cme\.lambdas: \[0\.001\] (should be non-empty|is too short)"]),
    65: ("`cme.lambdas` holds two positive values", "schema", set_key("cme.lambdas", [0.0, 1.0]),
         [r"cme\.lambdas\.0: 0\.0 is less than or equal to the minimum of 0"]),
}  # fmt: skip


test_each_cross_field_rule_names_its_keys = names_its_keys_test(CASES, base)


test_each_readme_constraint_is_refused_at_parse_time = refused_at_parse_time_test(
    README_CASES, base
)
