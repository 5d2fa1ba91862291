"""The projection section's config checks (krepro.studies.projection.checks): every
constraint config/README.md states on the section is refused when the workflow reads the
config (schema or check). The shared part: tests/workflow/config_cases.py."""

from tests.workflow.config_cases import (
    default_base,
    refused_at_parse_time_test,
    set_key,
    stated,
)

base = default_base

README_CASES = {
    7: (stated(".gammas` in [0, 1]"), "schema", set_key("projection.gammas", [0.0, 2.0]),
        [r"projection\.gammas\.1: 2\.0 is greater"]),
    12: ("`projection.gammas` has two values", "schema", set_key("projection.gammas", [0.5]),
         [r"projection\.gammas: \[0\.5\] (should be non-empty|is too short)"]),
    23: ("ranges have `low < high`", "check", set_key("projection.partition.low", 6.0),
         [r"projection\.partition\.low = 6\.0 must be smaller than"
          r" projection\.partition\.high = 5"]),
}  # fmt: skip


test_each_readme_constraint_is_refused_at_parse_time = refused_at_parse_time_test(
    README_CASES, base
)
