"""The package's architecture, checked on its static import graph.

Layers, from the bottom: the shared base (kernels, kernel_safety, matern, validation,
metrics, stats, seeding, spectral, content_key, records, config_rules), the method families
(fairness, dcm, distributed, cme), the studies, and the workflow plumbing. A module may
import its own layer or a lower one, never a higher one, and no import cycle may exist
anywhere. No study imports another study (what two share lies beside the registry or in
the families), and a study imports none of the workflow plumbing (:mod:`krepro.workflow`): the
plumbing drives the studies, and what they write with (run records, atomic writes) is the
base module :mod:`krepro.records`. The edges are the imports a module executes
(:func:`krepro.workflow.codedeps.imported_modules`, at any depth of the file), so a
function-level import counts as well.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from krepro.studies import STUDIES
from krepro.workflow.codedeps import imported_modules

SRC = Path(__file__).resolve().parents[1] / "src"
BASE = {
    "krepro._exports",
    "krepro.kernels",
    "krepro.kernel_safety",
    "krepro.matern",
    "krepro.validation",
    "krepro.metrics",
    "krepro.stats",
    "krepro.seeding",
    "krepro.spectral",
    "krepro.content_key",
    "krepro.records",
    "krepro.config_rules",
}
FAMILIES = ("krepro.fairness", "krepro.dcm", "krepro.distributed", "krepro.cme")


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(src: Path = SRC) -> dict[str, set[str]]:
    """``{module: modules it imports}`` for every module of krepro under ``src``."""
    return {
        module_name(path): imported_modules(path, "krepro", src)
        for path in sorted((src / "krepro").rglob("*.py"))
    }


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle (``[a, b, …, a]``) of ``graph``, or ``None`` (iterative DFS)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    for root in sorted(graph):
        if state.get(root):
            continue
        path, stack = [root], [iter(sorted(graph.get(root, ())))]
        state[root] = 1
        while stack:
            child = next(stack[-1], None)
            if child is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(child) == 1:
                return [*path[path.index(child) :], child]
            elif not state.get(child):
                state[child] = 1
                path.append(child)
                stack.append(iter(sorted(graph.get(child, ()))))
    return None


def layer(module: str) -> str:
    if module in BASE:
        return "base"
    if module.startswith(tuple(f"{family}." for family in FAMILIES)) or module in FAMILIES:
        return "family"
    if module == "krepro.data" or module.startswith("krepro.data."):
        return "data"
    if module.startswith("krepro.studies."):
        parts = module.split(".")
        is_study = len(parts) > 2 and (SRC / "krepro" / "studies" / parts[2]).is_dir()
        return "study" if is_study else "studies-shared"
    if module == "krepro.studies":
        return "registry"
    if module == "krepro.workflow" or module.startswith("krepro.workflow."):
        return "workflow"
    return "top"


# layer -> the layers it must never import
FORBIDDEN = {
    "base": {"family", "data", "study", "studies-shared", "registry", "workflow", "top"},
    "family": {"data", "study", "studies-shared", "registry", "workflow", "top"},
    "data": {"family", "study", "studies-shared", "registry", "workflow", "top"},
    "studies-shared": {"study", "top"},
    # krepro.workflow (config checks, code digests, provenance, snapshot, job set-up) drives
    # the studies; a study importing it would tie the science to the plumbing that runs it.
    "study": {"workflow", "top"},
    "workflow": {"family", "data", "study", "studies-shared", "registry", "top"},
}


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    problems = []
    for module, imports in sorted(graph.items()):
        for imported in sorted(imports):
            if layer(imported) in FORBIDDEN.get(layer(module), ()):
                problems.append(f"{module} ({layer(module)}) imports {imported}")
            if layer(module) == "study" and imported in {"krepro.studies.assemble"}:
                problems.append(f"{module} (a study) imports the report's assembly {imported}")
            if (
                layer(module) == layer(imported) == "study"
                and module.split(".")[2] != imported.split(".")[2]
            ):
                problems.append(f"{module} (a study) imports another study's {imported}")
    return problems


@pytest.fixture(scope="module")
def graph():
    return import_graph()


def test_the_package_has_no_import_cycle(graph):
    assert find_cycle(graph) is None, " → ".join(find_cycle(graph))


def test_each_layer_imports_only_lower_layers(graph):
    assert layer_violations(graph) == []


def test_the_layers_are_populated(graph):
    """Every module has a layer, and each layer holds the modules it should."""
    layers = {layer(module) for module in graph}
    assert {"base", "family", "data", "study", "registry", "workflow"} <= layers
    assert layer("krepro.fairness.oblivious") == "family"
    assert layer("krepro.records") == "base"
    assert all(layer(f"krepro.studies.{name}") == "study" for name in STUDIES)
    assert layer("krepro.studies.verdicts") == "studies-shared"


def test_the_checks_fail_on_a_cycle_and_on_an_upward_import():
    """The detectors themselves: a planted cycle and planted violations are found."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None
    one, other = (f"krepro.studies.{name}" for name in list(STUDIES)[:2])  # two studies
    planted = {
        "krepro.kernels": {"krepro.fairness.oblivious"},
        "krepro.fairness.ferm": {f"{other}.run"},
        f"{one}.report": {"krepro.records", "krepro.workflow.codedeps"},
        f"{one}.run": {"krepro.workflow"},
        f"{one}.figures": {f"{one}.tables", f"{other}.tables"},
    }
    assert layer_violations(planted) == [
        f"krepro.fairness.ferm (family) imports {other}.run",
        "krepro.kernels (base) imports krepro.fairness.oblivious",
        f"{one}.figures (a study) imports another study's {other}.tables",
        f"{one}.report (study) imports krepro.workflow.codedeps",
        f"{one}.run (study) imports krepro.workflow",
    ]


def test_every_public_estimator_is_importable_from_the_top_level():
    import krepro

    names = [
        "ObliviousKernel", "ObliviousFeatures", "ObliviousRidge", "FERMClassifier",
        "FERMFeatures", "LinearFERM", "LinearHingeSVC", "LinearEpsilonSVR", "DCM", "FastDCM",
        "DICA", "COIR", "DistributedKernelRidge", "ConditionalMeanEmbedding",
        "CMEConditionalMean", "HSICRidge", "StreamingObliviousRidge",
    ]  # fmt: skip
    for name in names:
        assert name in krepro.__all__, name
        cls = getattr(krepro, name)
        assert cls.__name__ == name
        assert cls.__module__.startswith(FAMILIES), cls.__module__
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        krepro.Nope  # noqa: B018
