"""The coverage section's config checks (krepro.studies.coverage.checks): each cross-field
rule names its keys, and every constraint config/README.md states on the section is refused
when the workflow reads the config (schema or check). The shared part:
tests/workflow/config_cases.py."""

from tests.workflow.config_cases import (
    default_base,
    names_its_keys_test,
    refused_at_parse_time_test,
    set_key,
)

base = default_base

CASES = {
    "coverage-primary": (
        set_key("coverage.primary_variant", "nope"),
        ["coverage.primary_variant = 'nope'", "coverage.variants"],
    ),
    "coverage-increasing": (
        set_key("coverage.targets", [4, 2, 8]),
        ["coverage.targets = [4, 2, 8]", "strictly increasing"],
    ),
    "coverage-nested": (
        set_key("coverage.partitions", [64, 96]),
        ["coverage.partitions [96]", "coverage.n_samples = 65536", "smallest P = 64"],
    ),
}

README_CASES = {
    28: ("primary variants exist", "check", CASES["coverage-primary"][0],
         [r"coverage\.primary_variant"]),
    60: ("confidence levels lie in (0, 1)", "schema", set_key("coverage.confidence_level", 0),
         [r"coverage\.confidence_level: 0 is less than or equal to the minimum of 0"]),
    66: ("coverage lists are strictly increasing", "check",
         set_key("coverage.partitions", [128, 64]),
         [r"coverage\.partitions = \[128, 64\] must be strictly increasing"]),
    67: ("coverage lists are strictly increasing", "check", CASES["coverage-increasing"][0],
         [r"coverage\.targets = \[4, 2, 8\] must be strictly increasing"]),
    68: ("coverage partitions are nested", "check", CASES["coverage-nested"][0],
         [r"coverage\.partitions \[96\]"]),
}  # fmt: skip


test_each_cross_field_rule_names_its_keys = names_its_keys_test(CASES, base)


test_each_readme_constraint_is_refused_at_parse_time = refused_at_parse_time_test(
    README_CASES, base
)
