"""Cross-field config checks (krepro.workflow.config_checks and each study's checks.py): the
shipped configs pass, every problem is listed at once, and every constraint config/README.md
states has a case, each refused at parse time (schema or check).

The cases of a study's section live in its folder (``tests/studies/<name>/test_checks.py``,
found through the registry); the helpers they share in tests/workflow/config_cases.py.
"""

import re

import pytest

from tests.workflow.config_cases import (
    DEFAULT,
    assert_refused_at_parse_time,
    case_ids,
    check_config,
    config_problems,
    default_base,
    load,
    merged,
    readme_constraints,
    set_key,
    study_checks,
)


@pytest.mark.parametrize(
    "config",
    [
        DEFAULT,
        merged(DEFAULT, load("config/paper.yaml")),
        load("tests/config/tiny.yaml"),
    ],
    ids=["default", "paper", "tiny"],
)
def test_shipped_configs_pass(config):
    assert config_problems(config) == []
    check_config(config)


def test_every_problem_is_listed_at_once():
    """One cross-field case of each study with cases, on the bases of all of them: one
    refusal that lists each problem."""
    studies = [module for module in study_checks().values() if getattr(module, "CASES", None)]
    assert len(studies) >= 3, "the case needs problems in several sections"
    config = default_base()
    for module in studies:
        base = module.base()
        config = merged(config, {key: base[key] for key in base if base[key] != DEFAULT[key]})
    assert config_problems(config) == [], "the base of the cases must be valid"
    for module in studies:
        change, _ = next(iter(module.CASES.values()))
        change(config)
    with pytest.raises(ValueError) as info:
        check_config(config)
    assert len(re.findall(r"^  - ", str(info.value), flags=re.M)) == len(studies), str(info.value)


# --------------------------------------------------------------------------- README constraints

# The cases of the keys outside the studies' sections; each study's are in its folder.
README_CASES = {
    0: ("`results_dir` is relative", "schema", set_key("results_dir", "../out"), ["results_dir"]),
    1: ("`results_dir` is relative", "schema", set_key("results_dir", "/tmp/out"), ["results_dir"]),
    2: ("`results_dir` is relative", "schema", set_key("results_dir", "out/.x"), ["results_dir"]),
    3: ("`results_dir` is relative", "schema", set_key("results_dir", "snapshots/x"),
        ["results_dir"]),
    4: ("`results_dir` is relative", "schema", set_key("results_dir", "resources"),
        ["results_dir"]),
}  # fmt: skip


def all_readme_cases():
    """``{number: case}`` of this file and of every study's folder; a number is used once."""
    cases = dict(README_CASES)
    for name, module in study_checks().items():
        for number, case in getattr(module, "README_CASES", {}).items():
            assert number not in cases, f"README case {number} of {name} is numbered twice"
            cases[number] = case
    return cases


def test_every_readme_constraint_has_a_case_and_every_case_a_readme_constraint():
    stated = readme_constraints()
    cases = all_readme_cases().values()
    tested = {name for name, *_ in cases}
    assert sorted(set(stated) - tested) == [], "constraints in config/README.md without a case"
    assert sorted(tested - set(stated)) == [], "cases without a constraint in config/README.md"
    for name, stage, *_ in cases:
        assert f"({stage})" in stated[name], f"README does not say {name!r} is a {stage} refusal"


@pytest.mark.parametrize("case", README_CASES.values(), ids=case_ids(README_CASES))
def test_each_readme_constraint_is_refused_at_parse_time(case):
    assert_refused_at_parse_time(case, default_base())
