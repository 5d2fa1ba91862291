"""Cross-field config checks (krepro.workflow.config_checks): one test per rule, shipped configs."""

import copy
import re
from pathlib import Path

import pytest
import yaml

from krepro.workflow.config_checks import check_config, config_problems

REPO = Path(__file__).resolve().parents[1]


def _load(name):
    with open(REPO / name, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _merged(base, overlay):
    """``--configfile`` semantics: overlay deep-merged into base."""
    out = copy.deepcopy(base)
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merged(out[key], value)
        else:
            out[key] = value
    return out


DEFAULT = _load("config/config.yaml")


@pytest.mark.parametrize(
    "config",
    [
        DEFAULT,
        _merged(DEFAULT, _load("config/paper.yaml")),
        _load("tests/config/tiny.yaml"),
    ],
    ids=["default", "paper", "tiny"],
)
def test_shipped_configs_pass(config):
    assert config_problems(config) == []
    check_config(config)


def _set(path, value):
    def change(config):
        *parents, last = path.split(".")
        section = config
        for key in parents:
            section = section[key]
        section[last] = value

    return change


CASES = {
    "ridge-lambda": (
        _set("ridge.variants.paper_text.log2_lambda_min", 6),
        ["ridge.variants.paper_text.log2_lambda_min = 6", "log2_lambda_max = 5"],
    ),
    "cme-oblivious-lambda": (
        _set("cme_oblivious.log2_lambda_min", 9),
        ["cme_oblivious.log2_lambda_min = 9", "cme_oblivious.log2_lambda_max"],
    ),
    "cme-oblivious-alpha": (
        _set("cme_oblivious.cme.log10_alpha_min", 0),
        ["cme_oblivious.cme.log10_alpha_min = 0", "cme_oblivious.cme.log10_alpha_max = -1"],
    ),
    "students-C": (
        _set("students.c_selections.cv.log2_C_min", 5),
        ["students.c_selections.cv.log2_C_min = 5", "students.c_selections.cv.log2_C_max = 4"],
    ),
    "ridge-range": (
        _set("ridge.partition.low", 5.0),
        ["ridge.partition.low = 5.0", "ridge.partition.high = 5.0"],
    ),
    "cme-oblivious-range": (
        _set("cme_oblivious.partition.high", -6.0),
        ["cme_oblivious.partition.low = -5.0", "cme_oblivious.partition.high = -6.0"],
    ),
    "students-range": (
        _set("students.variants.paper.low", 4.0),
        ["students.variants.paper.low = 4.0", "students.variants.paper.high = 4.0"],
    ),
    "ridge-primary": (
        _set("ridge.primary_variant", "nope"),
        ["ridge.primary_variant = 'nope'", "ridge.variants"],
    ),
    "students-primary-c-selection": (
        _set("students.primary_c_selection", "nope"),
        ["students.primary_c_selection = 'nope'", "students.c_selections"],
    ),
    "students-c-selection-variant": (
        _set("students.c_selections.cv.variants", ["paper", "nope"]),
        ["students.c_selections.cv.variants ['nope']"],
    ),
    "adult-primary-grid": (
        _set("adult.primary_grid", "nope"),
        ["adult.primary_grid = 'nope'", "adult.run_grids"],
    ),
    "adult-primary-protocol": (
        _set("adult.primary_protocol", "nope"),
        ["adult.primary_protocol = 'nope'", "adult.protocols"],
    ),
    "dcm-primary-reading": (
        _set("dcm_synthetic.primary.centring", "nope"),
        ["dcm_synthetic.primary.centring = 'nope'", "dcm_synthetic.centring"],
    ),
    "students-primary": (
        _set("students.primary_variant", "nope"),
        ["students.primary_variant = 'nope'", "students.variants"],
    ),
    "coverage-primary": (
        _set("coverage.primary_variant", "nope"),
        ["coverage.primary_variant = 'nope'", "coverage.variants"],
    ),
    "adult-run-grids": (
        _set("adult.run_grids", ["paper", "huge"]),
        ["adult.run_grids ['huge']", "adult.grids"],
    ),
    "students-folds": (
        _set("students.n_folds", 20),
        ["students.n_folds = 20", "students.n_train = 10"],
    ),
    "adult-folds": (
        _set("adult.n_folds", 20),
        ["adult.n_folds = 20", "adult.n_train_corrected = 19"],
    ),
    "dcm-domains": (
        _set("dcm_synthetic.n_train_domains", 10),
        ["dcm_synthetic.n_train_domains = 10", "dcm_synthetic.n_domains = 10"],
    ),
    "dcm-wishart": (
        _set("dcm_synthetic.wishart_df", 8),
        ["dcm_synthetic.wishart_df = 8", "dcm_synthetic.dim − 1 = 9"],
    ),
    "dcm-fig2-wishart": (
        _set("dcm_synthetic.fig2.wishart_df", 3.5),
        ["dcm_synthetic.fig2.wishart_df = 3.5", "dcm_synthetic.fig2.dim − 1 = 4"],
    ),
    "cme-contrast": (
        _set("cme.contrast_x", [0.5, 0.5]),
        ["cme.contrast_x = [0.5, 0.5]"],
    ),
    "coverage-increasing": (
        _set("coverage.targets", [4, 2, 8]),
        ["coverage.targets = [4, 2, 8]", "strictly increasing"],
    ),
    "coverage-nested": (
        _set("coverage.partitions", [64, 96]),
        ["coverage.partitions [96]", "coverage.n_samples = 65536", "smallest P = 64"],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_each_cross_field_rule_names_its_keys(name):
    change, expected = CASES[name]
    config = copy.deepcopy(DEFAULT)
    # small enough that the fold checks bite; valid for every other rule
    config["students"]["n_train"] = 10
    config["adult"]["n_train_corrected"] = 19
    assert config_problems(config) == [], "the base of the cases must be valid"
    change(config)
    problems = config_problems(config)
    assert len(problems) == 1, problems
    with pytest.raises(ValueError) as info:
        check_config(config)
    for text in expected:
        assert text in str(info.value), (text, str(info.value))


def test_equal_bounds_of_a_grid_are_a_single_point():
    config = copy.deepcopy(DEFAULT)
    config["students"]["log2_C_min"] = config["students"]["log2_C_max"] = 0
    config["ridge"]["variants"]["paper_text"]["log2_lambda_min"] = 5
    assert config_problems(config) == []


def test_every_problem_is_listed_at_once():
    config = copy.deepcopy(DEFAULT)
    for change, _ in (CASES["students-C"], CASES["dcm-domains"], CASES["ridge-primary"]):
        change(config)
    with pytest.raises(ValueError) as info:
        check_config(config)
    assert len(re.findall(r"^  - ", str(info.value), flags=re.M)) == 3, str(info.value)
