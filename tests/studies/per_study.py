"""The per-study test modules that shared tests read, found through the registry.

A shared test that needs something of every study (its config cases, what a run of it is
expected to schedule and write) reads it from a module of the study's own test folder,
``tests/studies/<name>/<module>.py``, for every study of :data:`krepro.studies.STUDIES`:
adding a study adds its folder, and no shared test lists it.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from krepro.studies import STUDIES


def study_modules(module: str) -> dict[str, ModuleType]:
    """``{name: tests.studies.<name>.<module>}`` in the registry's order, for the studies
    whose test folder has that module."""
    found = {}
    for name in STUDIES:
        dotted = f"tests.studies.{name}.{module}"
        if importlib.util.find_spec(dotted) is not None:
            found[name] = importlib.import_module(dotted)
    return found
