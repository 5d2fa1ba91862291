"""environment.yml and pyproject.toml do not drift apart.

pyproject.toml is the single source of the dependency pins; environment.yml only provides
Python (and pip) and installs the project itself, editable, with its extras.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.specifiers import SpecifierSet

REPO = Path(__file__).resolve().parents[1]
# "-e .[workflow,test]", optionally quoted: the project itself, editable, with extras.
EDITABLE_SELF = re.compile(r"""^-e\s+(["']?)\.\[(?P<extras>[^\]]*)\]\1$""")


@pytest.fixture(scope="module")
def pyproject() -> dict:
    with open(REPO / "pyproject.toml", "rb") as handle:
        return tomllib.load(handle)


@pytest.fixture(scope="module")
def environment() -> dict:
    with open(REPO / "environment.yml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def conda_dependencies(environment: dict) -> list[str]:
    return [dep for dep in environment["dependencies"] if isinstance(dep, str)]


def pip_section(environment: dict) -> list[str]:
    sections = [dep["pip"] for dep in environment["dependencies"] if isinstance(dep, dict)]
    assert len(sections) == 1, f"expected one pip section, found {sections}"
    return [str(line).strip() for line in sections[0]]


def package_name(spec: str) -> str:
    return re.split(r"[\s=<>!~]", spec.strip(), maxsplit=1)[0]


def test_conda_dependencies_are_only_python_and_pip(environment):
    names = [package_name(dep) for dep in conda_dependencies(environment)]
    assert sorted(names) == ["pip", "python"], names
    non_strings = [dep for dep in environment["dependencies"] if not isinstance(dep, str)]
    assert all(isinstance(dep, dict) and set(dep) == {"pip"} for dep in non_strings), non_strings


def test_python_version_is_allowed_by_requires_python(environment, pyproject):
    (python,) = [dep for dep in conda_dependencies(environment) if package_name(dep) == "python"]
    # conda's "python=3.11" (or "python=3.11.*") means every 3.11.x release.
    match = re.fullmatch(r"python\s*=\s*(\d+)\.(\d+)(?:\.\*)?", python.strip())
    assert match, f"pin Python to one minor version, e.g. python=3.11 (found {python!r})"
    requires = SpecifierSet(pyproject["project"]["requires-python"])
    major, minor = match.groups()
    for patch in (0, 99):
        version = f"{major}.{minor}.{patch}"
        assert requires.contains(version), f"{version} not allowed by requires-python {requires}"


def test_pip_installs_the_project_with_its_extras(environment, pyproject):
    lines = pip_section(environment)
    assert len(lines) == 1, f"the pip section should only install the project itself: {lines}"
    match = EDITABLE_SELF.match(lines[0])
    assert match, f"expected '-e .[extra,...]', found {lines[0]!r}"
    extras = [extra.strip() for extra in match.group("extras").split(",") if extra.strip()]
    defined = set(pyproject["project"].get("optional-dependencies", {}))
    unknown = sorted(set(extras) - defined)
    assert not unknown, f"extras {unknown} are not in [project.optional-dependencies] {defined}"
    assert set(extras) == defined, f"environment.yml installs {extras}, pyproject defines {defined}"
