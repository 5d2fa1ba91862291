"""Cross-field config checks (krepro.workflow.config_checks and each study's checks.py): one test
per rule, shipped configs, and every constraint config/README.md states, each refused at parse
time (schema or check)."""

import copy
import re
from pathlib import Path

import pytest
import yaml
from jsonschema import validators

from krepro.studies import STUDIES
from krepro.workflow import config_checks
from krepro.workflow.configuration import load_schema

REPO = Path(__file__).resolve().parents[2]


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


def config_problems(config):
    """The problems the workflow finds: the spanning checks and every study's."""
    return config_checks.config_problems(config, STUDIES.values())


def check_config(config):
    return config_checks.check_config(config, STUDIES.values())


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
    "adult-variant-reading": (
        _set("adult.variants.cv_misaligned.grid", "huge"),
        ["adult.variants.cv_misaligned reads reference/huge"],
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


def parse_time_refusal(config):
    """What the workflow refuses when it reads ``config``, before any job: schema errors
    (step 2, as ``snakemake.utils.validate``), else cross-field problems (step 3)."""
    errors = list(VALIDATOR.iter_errors(config))
    if errors:
        return "schema", [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in errors]
    return "check", config_problems(config)


def _both(*changes):
    def change(config):
        for each in changes:
            each(config)

    return change


# One or more breaks per README constraint: (constraint, stage that refuses it, change,
# patterns the refusal must contain). Every key a constraint names is broken once.
README_CASES = [
    ("`results_dir` is relative", "schema", _set("results_dir", "../out"), ["results_dir"]),
    ("`results_dir` is relative", "schema", _set("results_dir", "/tmp/out"), ["results_dir"]),
    ("`results_dir` is relative", "schema", _set("results_dir", "out/.x"), ["results_dir"]),
    ("`results_dir` is relative", "schema", _set("results_dir", "snapshots/x"), ["results_dir"]),
    ("`results_dir` is relative", "schema", _set("results_dir", "resources"), ["results_dir"]),
    ("`ridge.gammas` in [0, 1]", "schema", _set("ridge.gammas", [0.0, 1.0, 1.5]),
     [r"ridge\.gammas\.2: 1\.5 is greater than the maximum of 1"]),
    ("`ridge.gammas` in [0, 1]", "schema", _set("cme_oblivious.gammas", [-0.5, 1.0]),
     [r"cme_oblivious\.gammas\.0: -0\.5 is less than the minimum of 0"]),
    ("`ridge.gammas` in [0, 1]", "schema", _set("projection.gammas", [0.0, 2.0]),
     [r"projection\.gammas\.1: 2\.0 is greater"]),
    ("`ridge.gammas` contains 0 and 1", "check", _set("ridge.gammas", [0.5]),
     [r"ridge\.gammas = \[0\.5\] must contain 0 and 1 \(missing 0, 1\)"]),
    ("`ridge.gammas` contains 0 and 1", "check", _set("ridge.gammas", [0.0, 0.5]),
     [r"ridge\.gammas = \[0\.0, 0\.5\] must contain 0 and 1 \(missing 1\)"]),
    ("`ridge.experiments` contains 1 and 2", "check", _set("ridge.experiments", [1]),
     [r"ridge\.experiments = \[1\] must contain 1 and 2 \(missing \[2\]\)"]),
    ("`ridge.experiments` contains 1 and 2", "check", _set("ridge.experiments", [2]),
     [r"ridge\.experiments = \[2\] must contain 1 and 2 \(missing \[1\]\)"]),
    ("`projection.gammas` has two values", "schema", _set("projection.gammas", [0.5]),
     [r"projection\.gammas: \[0\.5\] (should be non-empty|is too short)"]),
    ("λ, α and C grids are ordered", "check", CASES["ridge-lambda"][0],
     [r"ridge\.variants\.paper_text\.log2_lambda_min = 6"]),
    ("λ, α and C grids are ordered", "check", CASES["cme-oblivious-lambda"][0],
     [r"cme_oblivious\.log2_lambda_min = 9"]),
    ("λ, α and C grids are ordered", "check", CASES["cme-oblivious-alpha"][0],
     [r"cme_oblivious\.cme\.log10_alpha_min = 0"]),
    ("λ, α and C grids are ordered", "check", _set("rates.cme.log10_alpha_min", 0),
     [r"rates\.cme\.log10_alpha_min = 0 must be at most rates\.cme\.log10_alpha_max = -1"]),
    ("λ, α and C grids are ordered", "check", _set("fair_regression.cme.log10_alpha_min", 1),
     [r"fair_regression\.cme\.log10_alpha_min = 1 must be at most"]),
    ("`fair_regression.sweeps` hold the claims' settings", "check",
     _set("fair_regression.sweeps.oblivious", [0.0, 0.5]),
     [r"fair_regression\.sweeps\.oblivious = \[0\.0, 0\.5\] must contain 1"]),
    ("`fair_regression.sweeps` hold the claims' settings", "check",
     _set("fair_regression.sweeps.correlation_remover", [0.5]),
     [r"fair_regression\.sweeps\.correlation_remover = \[0\.5\] must contain 1"]),
    ("λ, α and C grids are ordered", "check", CASES["students-C"][0],
     [r"students\.c_selections\.cv\.log2_C_min = 5"]),
    ("ranges have `low < high`", "check", CASES["ridge-range"][0], [r"ridge\.partition\.low"]),
    ("ranges have `low < high`", "check", CASES["cme-oblivious-range"][0],
     [r"cme_oblivious\.partition\.low"]),
    ("ranges have `low < high`", "check", _set("projection.partition.low", 6.0),
     [r"projection\.partition\.low = 6\.0 must be smaller than projection\.partition\.high = 5"]),
    ("ranges have `low < high`", "check", _set("rates.gram_cost.low", 6.0),
     [r"rates\.gram_cost\.low = 6\.0 must be smaller than rates\.gram_cost\.high = 5"]),
    ("ranges have `low < high`", "check", CASES["students-range"][0],
     [r"students\.variants\.paper\.low"]),
    ("primary variants exist", "check", CASES["ridge-primary"][0], [r"ridge\.primary_variant"]),
    ("primary variants exist", "check", CASES["students-primary"][0],
     [r"students\.primary_variant"]),
    ("primary variants exist", "check", CASES["coverage-primary"][0],
     [r"coverage\.primary_variant"]),
    ("primary readings exist", "check", _set("dcm_synthetic.centring", ["uncentred"]),
     [r"dcm_synthetic\.primary\.centring = 'centred' is not one of the readings"]),
    ("primary readings exist", "check", _set("dcm_parkinsons.svr_kernel", ["linear"]),
     [r"dcm_parkinsons\.primary\.svr_kernel = 'rbf' is not one of the readings"]),
    ("students C selections are consistent", "check", CASES["students-primary-c-selection"][0],
     [r"students\.primary_c_selection = 'nope'"]),
    ("students C selections are consistent", "check", CASES["students-c-selection-variant"][0],
     [r"students\.c_selections\.cv\.variants \['nope'\]"]),
    ("students C selections are consistent", "check",
     _set("students.c_selections.cv.variants", ["authors_code"]),
     [r"students\.primary_variant = 'paper' is not run under"]),
    ("adult readings exist", "check", CASES["adult-run-grids"][0],
     [r"adult\.run_grids \['huge'\]"]),
    ("adult readings exist", "check",
     _both(_set("adult.run_grids", ["paper"]), _set("adult.primary_grid", "repository")),
     [r"adult\.primary_grid = 'repository' is not one of adult\.run_grids \['paper'\]"]),
    ("adult readings exist", "check", _set("adult.primary_protocol", "corrected"),
     [r"adult\.primary_protocol = 'corrected' is not one of adult\.protocols \['reference'\]"]),
    ("adult readings exist", "check", CASES["adult-variant-reading"][0],
     [r"adult\.variants\.cv_misaligned reads reference/huge"]),
    ("folds have training points", "check", CASES["students-folds"][0], [r"students\.n_folds"]),
    ("folds have training points", "schema", _set("adult.n_folds", 21),
     [r"adult\.n_folds: 21 is greater than the maximum of 20"]),
    ("folds have training points", "schema", _set("adult.n_train_corrected", 19),
     [r"adult\.n_train_corrected: 19 is less than the minimum of 20"]),
    ("unseen domains remain", "check", CASES["dcm-domains"][0],
     [r"dcm_synthetic\.n_train_domains = 10"]),
    ("unseen domains remain", "schema", _set("dcm_parkinsons.n_train_subjects", 42),
     [r"dcm_parkinsons\.n_train_subjects: 42 is greater than the maximum of 41"]),
    ("Wishart df exceeds dim − 1", "check", CASES["dcm-wishart"][0],
     [r"dcm_synthetic\.wishart_df = 8"]),
    ("Wishart df exceeds dim − 1", "check", CASES["dcm-fig2-wishart"][0],
     [r"dcm_synthetic\.fig2\.wishart_df = 3\.5"]),
    ("`dcm_synthetic.fig2.dim` is at least 2", "schema",
     _both(_set("dcm_synthetic.fig2.dim", 1), _set("dcm_synthetic.fig2.wishart_df", 1)),
     [r"dcm_synthetic\.fig2\.dim: 1 is less than the minimum of 2"]),
    *(
        ("repetitions allow a standard deviation", "schema", _set(key, 1),
         [rf"{re.escape(key)}: 1 is less than the minimum of 2"])
        for key in (
            "rates.n_repetitions",
            "rates.gram_cost.n_repetitions",
            "cme.n_repetitions",
            "dcm_synthetic.n_repetitions",
            "dcm_parkinsons.n_repetitions",
            "dcm_synthetic.reading_repetitions",
            "dcm_parkinsons.reading_repetitions",
        )
    ),
    ("`rates.finite.n_values` are at least 2", "schema", _set("rates.finite.n_values", [1, 5]),
     [r"rates\.finite\.n_values\.0: 1 is less than the minimum of 2"]),
    *(
        ("sample-size lists have two values", "schema", _set(key, [100]),
         [rf"{re.escape(key)}: \[100\] (should be non-empty|is too short)"])
        for key in (
            "rates.finite.sizes",
            "rates.continuous.sizes",
            "rates.cme.sizes",
            "rates.gram_cost.sizes",
        )
    ),
    ("`rates.cme.dims` are among `rates.continuous.dims`", "check",
     _set("rates.continuous.dims", [1]),
     [r"rates\.cme\.dims \[2\] are not among rates\.continuous\.dims \[1\]"]),
    ("confidence levels lie in (0, 1)", "schema", _set("rates.confidence", 1.0),
     [r"rates\.confidence: 1\.0 is greater than or equal to the maximum of 1"]),
    ("confidence levels lie in (0, 1)", "schema", _set("coverage.confidence_level", 0),
     [r"coverage\.confidence_level: 0 is less than or equal to the minimum of 0"]),
    ("`cme.contrast_x` holds two different points", "schema", _set("cme.contrast_x", [0.5]),
     [r"cme\.contrast_x: \[0\.5\] (should be non-empty|is too short)"]),
    ("`cme.contrast_x` holds two different points", "schema", _set("cme.contrast_x", [0.1, 1.5]),
     [r"cme\.contrast_x\.1: 1\.5 is greater"]),
    ("`cme.contrast_x` holds two different points", "check", CASES["cme-contrast"][0],
     [r"cme\.contrast_x = \[0\.5, 0\.5\] must hold two different points"]),
    ("`cme.lambdas` holds two positive values", "schema", _set("cme.lambdas", [1e-3]),
     [r"cme\.lambdas: \[0\.001\] (should be non-empty|is too short)"]),
    ("`cme.lambdas` holds two positive values", "schema", _set("cme.lambdas", [0.0, 1.0]),
     [r"cme\.lambdas\.0: 0\.0 is less than or equal to the minimum of 0"]),
    ("coverage lists are strictly increasing", "check", _set("coverage.partitions", [128, 64]),
     [r"coverage\.partitions = \[128, 64\] must be strictly increasing"]),
    ("coverage lists are strictly increasing", "check", CASES["coverage-increasing"][0],
     [r"coverage\.targets = \[4, 2, 8\] must be strictly increasing"]),
    ("coverage partitions are nested", "check", CASES["coverage-nested"][0],
     [r"coverage\.partitions \[96\]"]),
]  # fmt: skip


def _readme_base():
    config = copy.deepcopy(DEFAULT)
    config["students"]["n_train"] = 10  # small enough that the fold check bites
    return config


def test_every_readme_constraint_has_a_case_and_every_case_a_readme_constraint():
    stated = readme_constraints()
    tested = {name for name, *_ in README_CASES}
    assert sorted(set(stated) - tested) == [], "constraints in config/README.md without a case"
    assert sorted(tested - set(stated)) == [], "cases without a constraint in config/README.md"
    for name, stage, *_ in README_CASES:
        assert f"({stage})" in stated[name], f"README does not say {name!r} is a {stage} refusal"


@pytest.mark.parametrize(
    "case", README_CASES, ids=[f"{i}-{case[0]}" for i, case in enumerate(README_CASES)]
)
def test_each_readme_constraint_is_refused_at_parse_time(case):
    _, stage, change, patterns = case
    config = _readme_base()
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


def test_the_issue_example_is_refused_before_any_job():
    """``--config 'ridge={"gammas": [0.5], "n_repetitions": 2}'`` used to pass, run every
    fit job and fail in ridge_summary (KeyError: the report needs γ = 0 and γ = 1)."""
    config = copy.deepcopy(DEFAULT)
    config["ridge"] |= {"gammas": [0.5], "n_repetitions": 2}
    refused_by, messages = parse_time_refusal(config)
    assert refused_by == "check"
    assert messages == [
        "ridge.gammas = [0.5] must contain 0 and 1 (missing 0, 1): the report compares the"
        " methods at both ends."
    ]


@pytest.mark.parametrize("value", ["smo", "Exact", None, True])
def test_an_unknown_adult_linear_solver_is_refused_by_the_schema(value):
    """``adult.protocols.<p>.linear_solver`` is libsvm or exact (the paper config sets exact
    for both protocols, the quick config leaves the reference on libsvm); anything else is a
    schema error naming the key."""
    paper = _merged(DEFAULT, _load("config/paper.yaml"))
    assert paper["adult"]["protocols"]["corrected"]["linear_solver"] == "exact"
    assert paper["adult"]["protocols"]["reference"]["linear_solver"] == "exact"
    assert "linear_solver" not in DEFAULT["adult"]["protocols"]["reference"]  # libsvm
    assert parse_time_refusal(paper) == ("check", [])
    paper["adult"]["protocols"]["corrected"]["linear_solver"] = value
    refused_by, messages = parse_time_refusal(paper)
    assert refused_by == "schema"
    assert len(messages) == 1
    assert messages[0].startswith("adult.protocols.corrected.linear_solver: "), messages
