"""The dcm_parkinsons section's config checks (the spanning check of primary readings and
the schema): every constraint config/README.md states on the section is refused when the
workflow reads the config. The shared part: tests/workflow/config_cases.py."""

from tests.workflow.config_cases import (
    default_base,
    refused_at_parse_time_test,
    set_key,
)

base = default_base

README_CASES = {
    30: ("primary readings exist", "check", set_key("dcm_parkinsons.svr_kernel", ["linear"]),
         [r"dcm_parkinsons\.primary\.svr_kernel = 'rbf' is not one of the readings"]),
    42: ("unseen domains remain", "schema", set_key("dcm_parkinsons.n_train_subjects", 42),
         [r"dcm_parkinsons\.n_train_subjects: 42 is greater than the maximum of 41"]),
    50: ("repetitions allow a standard deviation", "schema",
         set_key("dcm_parkinsons.n_repetitions", 1),
         [r"dcm_parkinsons\.n_repetitions: 1 is less than the minimum of 2"]),
    52: ("repetitions allow a standard deviation", "schema",
         set_key("dcm_parkinsons.reading_repetitions", 1),
         [r"dcm_parkinsons\.reading_repetitions: 1 is less than the minimum of 2"]),
}  # fmt: skip


test_each_readme_constraint_is_refused_at_parse_time = refused_at_parse_time_test(
    README_CASES, base
)
