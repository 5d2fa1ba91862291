"""The fair_regression section's config checks (krepro.studies.fair_regression.checks): every
constraint config/README.md states on the section is refused when the workflow reads the
config (schema or check). The shared part: tests/workflow/config_cases.py."""

from tests.workflow.config_cases import (
    default_base,
    refused_at_parse_time_test,
    set_key,
)

base = default_base

README_CASES = {
    17: ("λ, α and C grids are ordered", "check", set_key("fair_regression.cme.log10_alpha_min", 1),
         [r"fair_regression\.cme\.log10_alpha_min = 1 must be at most"]),
    18: ("`fair_regression.sweeps` hold the claims' settings", "check",
         set_key("fair_regression.sweeps.oblivious", [0.0, 0.5]),
         [r"fair_regression\.sweeps\.oblivious = \[0\.0, 0\.5\] must contain 1"]),
    19: ("`fair_regression.sweeps` hold the claims' settings", "check",
         set_key("fair_regression.sweeps.correlation_remover", [0.5]),
         [r"fair_regression\.sweeps\.correlation_remover = \[0\.5\] must contain 1"]),
}  # fmt: skip


test_each_readme_constraint_is_refused_at_parse_time = refused_at_parse_time_test(
    README_CASES, base
)
