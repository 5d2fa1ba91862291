"""environment.yml, requirements/lock.txt and pyproject.toml do not drift apart.

pyproject.toml is the single source of the dependency ranges; environment.yml only provides
Python (and pip) and installs the project itself, editable, with its extras;
requirements/lock.txt pins exact versions (with hashes) inside those ranges for every extra,
for the Python version of environment.yml.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

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


# --------------------------------------------------------------------------- the lock file

LOCK = REPO / "requirements" / "lock.txt"
# The command in the lock's header, which regenerates it (see README, "Exact versions").
LOCK_COMMAND = re.compile(r"^#\s+(uv pip compile .*)$", flags=re.MULTILINE)


def lock_pins() -> dict[str, Requirement]:
    """The lock's requirements by normalised name (continuation lines joined)."""
    text = LOCK.read_text(encoding="utf-8").replace("\\\n", " ")
    pins = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        requirement = Requirement(re.sub(r"\s--hash=\S+", "", line))
        assert requirement.name, line
        pins[canonicalize_name(requirement.name)] = requirement
    return pins


def declared_requirements(pyproject: dict) -> list[Requirement]:
    """Every requirement of pyproject.toml (dependencies and all extras) but the project."""
    project = pyproject["project"]
    lines = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        lines += extra
    requirements = [Requirement(line) for line in lines]
    own = canonicalize_name(project["name"])
    return [req for req in requirements if canonicalize_name(req.name) != own]


def test_lock_pins_every_package_exactly_with_hashes():
    pins = lock_pins()
    assert len(pins) > 20, sorted(pins)
    for name, requirement in pins.items():
        (specifier,) = requirement.specifier
        assert specifier.operator == "==", f"{name}: pin exact versions, found {requirement}"
    text = LOCK.read_text(encoding="utf-8").replace("\\\n", " ")
    entries = [line for line in text.splitlines() if line and not line.startswith(" ")]
    unhashed = [line.split()[0] for line in entries if "--hash=sha256:" not in line]
    assert not [line for line in unhashed if not line.startswith("#")], unhashed


def test_lock_satisfies_every_requirement_of_pyproject(pyproject):
    """A range changed in pyproject.toml without regenerating the lock fails here."""
    pins = lock_pins()
    for requirement in declared_requirements(pyproject):
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement} (pyproject.toml) is not in {LOCK.name}"
        (version,) = [spec.version for spec in pins[name].specifier]
        assert requirement.specifier.contains(version, prereleases=True), (
            f"{LOCK.name} pins {name}=={version}, outside pyproject.toml's {requirement}: "
            "regenerate the lock with the command in its header"
        )
    assert canonicalize_name(pyproject["project"]["name"]) not in pins


def test_lock_covers_all_extras_for_the_python_of_environment_yml(pyproject, environment):
    (command,) = LOCK_COMMAND.findall(LOCK.read_text(encoding="utf-8"))
    assert "pyproject.toml" in command.split(), command
    extras = set(re.findall(r"--extra[ =](\S+)", command))
    assert "--all-extras" in command.split() or extras, command
    # Extras reach others through self-references, e.g. test = ["krepro[workflow]", ...].
    defined = pyproject["project"].get("optional-dependencies", {})
    own = canonicalize_name(pyproject["project"]["name"])
    reached, todo = set(), list(defined if "--all-extras" in command.split() else extras)
    while todo:
        extra = todo.pop()
        if extra in reached:
            continue
        reached.add(extra)
        for line in defined[extra]:
            requirement = Requirement(line)
            if canonicalize_name(requirement.name) == own:
                todo += requirement.extras
    assert reached == set(defined), f"the lock covers extras {reached}, pyproject has {defined}"

    (python,) = [dep for dep in conda_dependencies(environment) if package_name(dep) == "python"]
    version = re.search(r"--python-version[ =](\S+)", command)
    assert version, f"the lock command names no --python-version: {command}"
    assert python.replace(" ", "") == f"python={version.group(1)}", (python, command)
