"""The studies registry: one folder per study, found without a hand-kept list."""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

import pytest
import yaml

from krepro.studies import PAPERS, STUDIES, Study, discover

REPO = Path(__file__).resolve().parents[2]
STUDIES_DIR = REPO / "src" / "krepro" / "studies"
TIME = r"\d+(?:\.\d+)? (?:s|min|h)"


def test_every_study_folder_is_registered_in_order():
    folders = {path.parent.name for path in STUDIES_DIR.glob("*/__init__.py")}
    assert set(STUDIES) == folders
    orders = [study.order for study in STUDIES.values()]
    assert orders == sorted(orders) and len(set(orders)) == len(orders)


@pytest.mark.parametrize("name", list(STUDIES))
def test_a_study_record_is_complete(name):
    study = STUDIES[name]
    assert study.name == name and study.paper in PAPERS.values()
    assert study.outputs and all(not path.startswith(("/", "results/")) for path in study.outputs)
    assert re.fullmatch(TIME, study.quick_run_time), study.quick_run_time
    assert study.section == f"report/{name}.json"
    described = study.describe(1234.4)
    assert "Outputs: results/" in described
    assert f"quick scale about {study.quick_run_time} on 2 cores" in described
    assert "paper scale 1,234 CPU-s in the committed snapshot's run" in described
    assert "not in the committed snapshot" in study.describe()


@pytest.mark.parametrize("name", list(STUDIES))
def test_every_job_is_a_function_of_the_job_and_its_logger_and_has_a_rule(name):
    """Each job resolves to ``f(job, log)``, and the study's own rule file runs it."""
    study = STUDIES[name]
    rules = (REPO / "workflow" / "rules" / f"{name}.smk").read_text(encoding="utf-8")
    for job in study.jobs:
        function = study.job_function(job)
        assert list(inspect.signature(function).parameters) == ["job", "log"], function
        assert study.entry(job).startswith(f"krepro.studies.{name}.")
        assert f'entry=job_entry("{name}", "{job}")' in rules, (name, job)
        assert f'code=job_code("{name}", "{job}")' in rules, (name, job)


@pytest.mark.parametrize("name", list(STUDIES))
def test_config_checks_are_a_function_of_the_problems_and_the_config(name):
    """A study's config checks live in its own folder, in ``checks.py`` (the convention), and
    find nothing wrong with the shipped config."""
    study = STUDIES[name]
    if study.config_checks is None:
        assert study.config_check() is None
        return
    assert study.config_checks == "checks:check"
    check = study.config_check()
    assert check.__module__ == f"krepro.studies.{name}.checks"
    assert list(inspect.signature(check).parameters) == ["problems", "config"], check
    with open(REPO / "config" / "config.yaml", encoding="utf-8") as handle:
        config = yaml.safe_load(handle)
    problems = []
    check(problems, config)
    assert problems == []


def write_study(root: Path, name: str, body: str) -> None:
    (root / name).mkdir(parents=True)
    (root / name / "__init__.py").write_text(body, encoding="utf-8")


def test_discover_finds_a_new_folder_and_refuses_a_folder_without_a_record(tmp_path):
    package = "toy_studies_for_discover"
    root = tmp_path / package
    root.mkdir()
    (root / "__init__.py").write_text("", encoding="utf-8")
    record = (
        "from krepro.studies import PAPERS, Study\n"
        "STUDY = Study(name={name!r}, paper=PAPERS['cme'], order={order}, summary='s',"
        " outputs=('tables/x.csv',), quick_run_time='1 s', jobs={{}})\n"
    )
    write_study(root, "second", record.format(name="second", order=2))
    write_study(root, "first", record.format(name="first", order=1))
    (root / "helpers.py").write_text("", encoding="utf-8")  # a module, not a study
    sys.path.insert(0, str(tmp_path))
    try:
        found = discover([str(root)], package)
        assert list(found) == ["first", "second"]
        assert all(isinstance(study, Study) for study in found.values())

        write_study(root, "misnamed", record.format(name="other", order=3))
        with pytest.raises(TypeError, match=r"STUDY\.name is 'other', not 'misnamed'"):
            discover([str(root)], package)
        (root / "misnamed" / "__init__.py").unlink()
        (root / "misnamed").rmdir()
        write_study(root, "empty", "")
        with pytest.raises(TypeError, match=r"empty defines no STUDY"):
            discover([str(root)], package)
    finally:
        sys.path.remove(str(tmp_path))
        for module in [m for m in sys.modules if m.startswith(package)]:
            del sys.modules[module]
