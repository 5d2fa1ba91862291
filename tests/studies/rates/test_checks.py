"""The rates section's config checks (krepro.studies.rates.checks): every constraint
config/README.md states on the section is refused when the workflow reads the config (schema
or check). The shared part: tests/workflow/config_cases.py."""

import re

from tests.workflow.config_cases import (
    default_base,
    refused_at_parse_time_test,
    set_key,
)

base = default_base


def _at_least_two(key):
    return ("repetitions allow a standard deviation", "schema", set_key(key, 1),
            [rf"{re.escape(key)}: 1 is less than the minimum of 2"])  # fmt: skip


def _two_sizes(key):
    return ("sample-size lists have two values", "schema", set_key(key, [100]),
            [rf"{re.escape(key)}: \[100\] (should be non-empty|is too short)"])  # fmt: skip


README_CASES = {
    16: ("λ, α and C grids are ordered", "check", set_key("rates.cme.log10_alpha_min", 0),
         [r"rates\.cme\.log10_alpha_min = 0 must be at most rates\.cme\.log10_alpha_max = -1"]),
    24: ("ranges have `low < high`", "check", set_key("rates.gram_cost.low", 6.0),
         [r"rates\.gram_cost\.low = 6\.0 must be smaller than rates\.gram_cost\.high = 5"]),
    46: _at_least_two("rates.n_repetitions"),
    47: _at_least_two("rates.gram_cost.n_repetitions"),
    53: ("`rates.finite.n_values` are at least 2", "schema",
         set_key("rates.finite.n_values", [1, 5]),
         [r"rates\.finite\.n_values\.0: 1 is less than the minimum of 2"]),
    54: _two_sizes("rates.finite.sizes"),
    55: _two_sizes("rates.continuous.sizes"),
    56: _two_sizes("rates.cme.sizes"),
    57: _two_sizes("rates.gram_cost.sizes"),
    58: ("`rates.cme.dims` are among `rates.continuous.dims`", "check",
         set_key("rates.continuous.dims", [1]),
         [r"rates\.cme\.dims \[2\] are not among rates\.continuous\.dims \[1\]"]),
    59: ("confidence levels lie in (0, 1)", "schema", set_key("rates.confidence", 1.0),
         [r"rates\.confidence: 1\.0 is greater than or equal to the maximum of 1"]),
}  # fmt: skip


test_each_readme_constraint_is_refused_at_parse_time = refused_at_parse_time_test(
    README_CASES, base
)
