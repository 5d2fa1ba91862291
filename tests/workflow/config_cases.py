"""What the config-check tests share: the shipped configs, changes to a config, and the
refusal a config meets when the workflow reads it.

Each study's cases live in its own test folder, ``tests/studies/<name>/test_checks.py``:

* ``CASES``: ``{name: (change, expected texts)}``, one per cross-field rule of its section,
  each breaking that rule alone on ``base()`` (:func:`assert_names_its_keys`);
* ``README_CASES``: ``{number: (constraint, stage, change, patterns)}``, one or more breaks
  per constraint config/README.md states (:func:`assert_refused_at_parse_time`). The number
  is the case's id across the suite (test id ``<number>-<constraint>``), so that a case keeps
  its id wherever it lives;
* ``base()``: the default config, adjusted where a case needs it (e.g. a training set small
  enough that a fold check bites).

The shared tests (tests/workflow/test_config_checks.py) find them through the registry
(:func:`study_checks`, through :data:`krepro.studies.STUDIES`).
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml
from jsonschema import validators

from krepro.studies import STUDIES
from krepro.workflow import config_checks
from krepro.workflow.configuration import load_schema
from tests.studies.per_study import study_modules

REPO = Path(__file__).resolve().parents[2]


def load(name):
    """A YAML file of the repository (``config/config.yaml``, ...)."""
    with open(REPO / name, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def merged(base, overlay):
    """``--configfile`` semantics: overlay deep-merged into base."""
    out = copy.deepcopy(base)
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out


DEFAULT = load("config/config.yaml")


def config_problems(config):
    """The problems the workflow finds: the spanning checks and every study's."""
    return config_checks.config_problems(config, STUDIES.values())


def check_config(config):
    return config_checks.check_config(config, STUDIES.values())


def set_key(path, value):
    """A change of a config: the dotted key ``path`` set to ``value``."""

    def change(config):
        *parents, last = path.split(".")
        section = config
        for key in parents:
            section = section[key]
        section[last] = value

    return change


def both(*changes):
    """The changes one after the other."""

    def change(config):
        for each in changes:
            each(config)

    return change


def default_base():
    """The default config (a study's ``base()`` where its cases need nothing else)."""
    return copy.deepcopy(DEFAULT)


# --------------------------------------------------------------------------- cross-field rules


def assert_names_its_keys(change, expected, base):
    """``change`` breaks one cross-field rule of the valid config ``base``: one problem, and
    the refusal names the keys (``expected``: texts of the message)."""
    config = base
    assert config_problems(config) == [], "the base of the cases must be valid"
    change(config)
    problems = config_problems(config)
    assert len(problems) == 1, problems
    with pytest.raises(ValueError) as info:
        check_config(config)
    for text in expected:
        assert text in str(info.value), (text, str(info.value))


# --------------------------------------------------------------------------- README constraints

SCHEMA = load_schema(REPO / "workflow" / "schemas" / "config.schema.yaml")
VALIDATOR = validators.validator_for(SCHEMA)(SCHEMA)


def readme_constraints():
    """``{name: text}`` of the bullets under config/README.md's "## Constraints" heading; the
    name is the bullet's text before its first ": "."""
    text = (REPO / "config" / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Constraints\n", 1)[1].split("\n## ", 1)[0]
    bullets = re.findall(r"(?m)^- (.+)$", section)
    return dict(bullet.split(": ", 1) for bullet in bullets)


def stated(ending):
    """The name of the one constraint of config/README.md that ends with ``ending`` (a case
    of a constraint the README names after another section's key)."""
    names = [name for name in readme_constraints() if name.endswith(ending)]
    assert len(names) == 1, (ending, names)
    return names[0]


def parse_time_refusal(config):
    """What the workflow refuses when it reads ``config``, before any job: schema errors
    (step 2, as ``snakemake.utils.validate``), else cross-field problems (step 3)."""
    errors = list(VALIDATOR.iter_errors(config))
    if errors:
        return "schema", [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in errors]
    return "check", config_problems(config)


def case_ids(cases):
    """Test ids of README cases ``{number: case}``: ``<number>-<constraint>``."""
    return [f"{number}-{case[0]}" for number, case in cases.items()]


def assert_refused_at_parse_time(case, base):
    """The README case ``(constraint, stage, change, patterns)`` applied to the valid config
    ``base`` is refused by ``stage`` with one message matching every pattern."""
    _, stage, change, patterns = case
    config = base
    assert parse_time_refusal(config) == ("check", []), "the base of the cases must be valid"
    change(config)
    refused_by, messages = parse_time_refusal(config)
    assert refused_by == stage, messages
    assert len(messages) == 1, messages
    for pattern in patterns:
        assert re.search(pattern, messages[0]), (pattern, messages[0])
    if stage == "check":
        with pytest.raises(ValueError, match="Invalid config"):
            check_config(config)


# --------------------------------------------------------------------------- the studies' cases


def study_checks():
    """``{name: module}``: each study's ``tests/studies/<name>/test_checks.py``, in the
    registry's order (studies without config cases have none)."""
    return study_modules("test_checks")


def names_its_keys_test(cases, base=default_base):
    """``test_each_cross_field_rule_names_its_keys`` over a study's ``CASES`` (a new function
    for each study's test module to bind)."""

    @pytest.mark.parametrize("name", list(cases))
    def test_each_cross_field_rule_names_its_keys(name):
        assert_names_its_keys(*cases[name], base())

    return test_each_cross_field_rule_names_its_keys


def refused_at_parse_time_test(readme_cases, base=default_base):
    """``test_each_readme_constraint_is_refused_at_parse_time`` over a study's
    ``README_CASES`` (a new function for each study's test module to bind)."""

    @pytest.mark.parametrize("case", readme_cases.values(), ids=case_ids(readme_cases))
    def test_each_readme_constraint_is_refused_at_parse_time(case):
        assert_refused_at_parse_time(case, base())

    return test_each_readme_constraint_is_refused_at_parse_time
