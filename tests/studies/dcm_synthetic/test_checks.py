"""The dcm_synthetic section's config checks (krepro.studies.dcm_synthetic.checks and the
spanning check of primary readings): each cross-field rule names its keys, and every
constraint config/README.md states on the section is refused when the workflow reads the
config (schema or check). The shared part: tests/workflow/config_cases.py."""

from tests.workflow.config_cases import (
    both,
    default_base,
    names_its_keys_test,
    refused_at_parse_time_test,
    set_key,
)

base = default_base

CASES = {
    "dcm-domains": (
        set_key("dcm_synthetic.n_train_domains", 10),
        ["dcm_synthetic.n_train_domains = 10", "dcm_synthetic.n_domains = 10"],
    ),
    "dcm-primary-reading": (
        set_key("dcm_synthetic.primary.centring", "nope"),
        ["dcm_synthetic.primary.centring = 'nope'", "dcm_synthetic.centring"],
    ),
    "dcm-wishart": (
        set_key("dcm_synthetic.wishart_df", 8),
        ["dcm_synthetic.wishart_df = 8", "dcm_synthetic.dim − 1 = 9"],
    ),
    "dcm-fig2-wishart": (
        set_key("dcm_synthetic.fig2.wishart_df", 3.5),
        ["dcm_synthetic.fig2.wishart_df = 3.5", "dcm_synthetic.fig2.dim − 1 = 4"],
    ),
}

README_CASES = {
    29: ("primary readings exist", "check", set_key("dcm_synthetic.centring", ["uncentred"]),
         [r"dcm_synthetic\.primary\.centring = 'centred' is not one of the readings"]),
    41: ("unseen domains remain", "check", CASES["dcm-domains"][0],
         [r"dcm_synthetic\.n_train_domains = 10"]),
    43: ("Wishart df exceeds dim − 1", "check", CASES["dcm-wishart"][0],
         [r"dcm_synthetic\.wishart_df = 8"]),
    44: ("Wishart df exceeds dim − 1", "check", CASES["dcm-fig2-wishart"][0],
         [r"dcm_synthetic\.fig2\.wishart_df = 3\.5"]),
    45: ("`dcm_synthetic.fig2.dim` is at least 2", "schema",
         both(set_key("dcm_synthetic.fig2.dim", 1), set_key("dcm_synthetic.fig2.wishart_df", 1)),
         [r"dcm_synthetic\.fig2\.dim: 1 is less than the minimum of 2"]),
    49: ("repetitions allow a standard deviation", "schema",
         set_key("dcm_synthetic.n_repetitions", 1),
         [r"dcm_synthetic\.n_repetitions: 1 is less than the minimum of 2"]),
    51: ("repetitions allow a standard deviation", "schema",
         set_key("dcm_synthetic.reading_repetitions", 1),
         [r"dcm_synthetic\.reading_repetitions: 1 is less than the minimum of 2"]),
}  # fmt: skip


test_each_cross_field_rule_names_its_keys = names_its_keys_test(CASES, base)


test_each_readme_constraint_is_refused_at_parse_time = refused_at_parse_time_test(
    README_CASES, base
)
