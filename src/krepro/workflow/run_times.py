"""Run times of the study's targets, from a snapshot's exact per-rule CPU seconds.

A snapshot's ``provenance.json`` records ``rule_cpu_seconds`` (the CPU seconds of every
rule, summed over its jobs; :mod:`krepro.workflow.snapshot`) and ``wall_seconds``. This
module sums them per target: a rule belongs to the study whose rule file
``workflow/rules/<study>.smk`` defines it, or else — a rule renamed since the snapshot was
taken — to the study whose name is its longest prefix; the rest (downloads, the report) is
shared. The documentation's targets table and the README's run-time table are generated
from it, never typed by hand (``tests/test_run_times.py``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = [
    "SHARED",
    "rule_owners",
    "snapshot_run_times",
    "study_cpu_seconds",
]

#: Key of the CPU seconds that belong to no single study (downloads, the report).
SHARED = "shared"

_RULE = re.compile(r"^(?:rule|checkpoint)\s+(\w+)\s*:", flags=re.MULTILINE)


def rule_owners(rules_dir, studies: Iterable[str]) -> dict[str, str]:
    """Rule name to study name, for the rules defined in ``<rules_dir>/<study>.smk``."""
    owners = {}
    for study in studies:
        path = Path(rules_dir) / f"{study}.smk"
        if path.is_file():
            for rule in _RULE.findall(path.read_text(encoding="utf-8")):
                owners[rule] = study
    return owners


def study_cpu_seconds(
    rule_cpu_seconds: Mapping[str, float], studies: Iterable[str], owners: Mapping[str, str]
) -> dict[str, float]:
    """CPU seconds per study (in the order of ``studies``), then :data:`SHARED`.

    Parameters
    ----------
    rule_cpu_seconds : mapping of str to float
        A snapshot's ``rule_cpu_seconds``.
    studies : iterable of str
        The study names.
    owners : mapping of str to str
        :func:`rule_owners`; a rule it does not know goes to the study whose name is its
        longest prefix (followed by ``_``), else to :data:`SHARED`.

    Examples
    --------
    >>> study_cpu_seconds(
    ...     {"adult_fit": 300.0, "adult_full_fit": 200.0, "fig_fit": 5.0, "report": 1.0},
    ...     ["adult", "adult_full"],
    ...     {"fig_fit": "adult"},
    ... )
    {'adult': 305.0, 'adult_full': 200.0, 'shared': 1.0}
    """
    studies = list(studies)
    totals = dict.fromkeys([*studies, SHARED], 0.0)
    by_length = sorted(studies, key=len, reverse=True)
    for rule, seconds in rule_cpu_seconds.items():
        owner = owners.get(rule)
        if owner is None:
            owner = next((s for s in by_length if rule.startswith(f"{s}_")), SHARED)
        totals[owner] += float(seconds)
    return totals


def snapshot_run_times(provenance_path, rules_dir, studies: Iterable[str]) -> dict:
    """``{"cpu_seconds": {study: s, ..., "shared": s}, "wall_seconds": s, "scale": ...}``.

    From a snapshot's ``provenance.json`` and the workflow's rule files.
    """
    record = json.loads(Path(provenance_path).read_text(encoding="utf-8"))
    studies = list(studies)
    owners = rule_owners(rules_dir, studies)
    return {
        "scale": record.get("scale"),
        "cpu_count": record.get("cpu_count"),
        "wall_seconds": float(record.get("wall_seconds", 0.0)),
        "cpu_seconds": study_cpu_seconds(record.get("rule_cpu_seconds", {}), studies, owners),
    }
