"""Run times of the study's targets, from a snapshot's exact per-rule CPU seconds.

A snapshot's ``provenance.json`` records ``rule_cpu_seconds`` (the CPU seconds of every
rule, summed over its jobs; :mod:`krepro.workflow.snapshot`) and ``wall_seconds``. This
module sums them per target: a rule belongs to the study whose rule file
``workflow/rules/<study>.smk`` defines it, or else — a rule renamed since the snapshot was
taken — to the study whose name is its longest prefix; the rest (downloads, the report) is
shared. The documentation's targets table and the README's run-time table are generated
from it, never typed by hand: ``python -m krepro.workflow.run_times --write README.md``
rewrites the README's block after a new snapshot, and ``tests/workflow/test_run_times.py``
fails while it is stale.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Iterable, Mapping
from pathlib import Path

from krepro.workflow.readme_blocks import replace_between, update_block

__all__ = [
    "README_BEGIN",
    "README_END",
    "SHARED",
    "SHARED_RULE_FILES",
    "readme_block",
    "replace_block",
    "rule_owners",
    "snapshot_run_times",
    "study_cpu_seconds",
    "study_names",
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
    ...     {"toy_fit": 300.0, "toy_full_fit": 200.0, "fig_fit": 5.0, "report": 1.0},
    ...     ["toy", "toy_full"],
    ...     {"fig_fit": "toy"},
    ... )
    {'toy': 305.0, 'toy_full': 200.0, 'shared': 1.0}
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


# --------------------------------------------------------------------------- README table

#: The README's generated block lies between these two lines.
README_BEGIN = (
    "<!-- run times: generated from snapshots/paper/provenance.json by"
    " `python -m krepro.workflow.run_times --write README.md`; do not edit by hand -->"
)
README_END = "<!-- end of run times -->"


def _seconds_text(seconds: float) -> str:
    """``"1,450 CPU-s (24 min)"``: exact seconds, then minutes from 2 min on."""
    text = f"{seconds:,.0f} CPU-s"
    if seconds >= 120:
        text += f" ({seconds / 60:,.0f} min)"
    return text


def readme_block(times: Mapping, names: Iterable[str]) -> str:
    """The README's run-time table of :func:`snapshot_run_times` (between the markers).

    One row per study, the largest CPU time first, then the shared rules and the total.
    """
    cpu = times["cpu_seconds"]
    total = sum(cpu.values())
    intro = (
        f"The committed {times['scale']}-scale run (`snapshots/paper/`) took"
        f" **{times['wall_seconds']:,.0f} s** wall-clock on {times['cpu_count']} cores for"
        f" **{total:,.0f} CPU-s** of jobs (`wall_seconds` and `rule_cpu_seconds` of its"
        " `provenance.json`). CPU time of each target's jobs in that run (a target alone takes"
        " at least its CPU time divided by the cores its jobs can share):"
    )
    lines = [
        README_BEGIN,
        *textwrap.wrap(intro, width=92, break_on_hyphens=False),
        "",
        "| target | CPU time | share |",
        "|---|---|---|",
    ]
    for name in sorted(names, key=lambda n: (-cpu[n], n)):
        lines.append(f"| `{name}` | {_seconds_text(cpu[name])} | {cpu[name] / total:.0%} |")
    lines += [
        f"| downloads, report | {_seconds_text(cpu[SHARED])} | {cpu[SHARED] / total:.0%} |",
        f"| `all` | {_seconds_text(total)} | 100% |",
        README_END,
    ]
    return "\n".join(lines)


def replace_block(text: str, block: str) -> str:
    """``text`` with the lines from :data:`README_BEGIN` to :data:`README_END` replaced."""
    return replace_between(text, block, README_BEGIN, README_END, "README.md has no run-time block")


#: Rule files that hold no study's jobs (helpers, downloads, the report).
SHARED_RULE_FILES = ("common", "data", "report")


def study_names(rules_dir) -> list[str]:
    """The studies with a rule file ``<rules_dir>/<study>.smk`` (one per study), sorted."""
    return sorted(
        path.stem for path in Path(rules_dir).glob("*.smk") if path.stem not in SHARED_RULE_FILES
    )


def main(argv=None) -> int:
    """``python -m krepro.workflow.run_times [--write | --check] [README.md]``."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("readme", nargs="?", default="README.md")
    parser.add_argument("--write", action="store_true", help="rewrite the README's block")
    parser.add_argument("--check", action="store_true", help="exit 1 if the block is stale")
    args = parser.parse_args(argv)
    readme = Path(args.readme)
    repo = readme.resolve().parent
    rules_dir = repo / "workflow" / "rules"
    names = study_names(rules_dir)
    times = snapshot_run_times(repo / "snapshots" / "paper" / "provenance.json", rules_dir, names)
    block = readme_block(times, names)
    return update_block(
        readme,
        block,
        begin=README_BEGIN,
        end=README_END,
        what="README.md has no run-time block",
        write=args.write,
        check=args.check,
    )


if __name__ == "__main__":
    raise SystemExit(main())
