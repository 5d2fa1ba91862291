"""Publish a finished run as a committed snapshot: report, verdicts, tables, figures, provenance.

``snakemake snapshot`` copies the run's ``report.md``, ``verdicts.csv``, tables and figures
from its ``results_dir`` into ``snapshots/<scale>/`` and writes ``provenance.json`` there: the
run's own provenance (:func:`krepro.workflow.provenance.collect_provenance`) plus

* ``wall_seconds``: the span from the earliest job start to the latest job end among the
  run's Snakemake benchmark records (:func:`run_timing`);
* ``rule_cpu_seconds``: CPU seconds per rule, summed over the rule's jobs: exact, from the
  record every job writes beside its log (:data:`krepro.workflow.runtime.CPU_RECORD_SUFFIX`), else
  Snakemake's sampled ``cpu_time`` (a lower bound);
* ``files``: the SHA-256 of every other file of the snapshot, by its path in the snapshot.

The snapshot is built in a staging directory beside the destination
(``.<name>.staging-*``); publishing then takes two renames on one file system: the previous
snapshot moves into a retired directory (``.<name>.retired-*``), the staging directory takes
its place, and the retired one is removed. A publish that fails between the renames moves the
previous snapshot back; one killed there (or anywhere else) is repaired by the next publish,
which first runs :func:`repair_snapshot`: a missing destination gets its retired snapshot back,
and every staging or retired directory is removed. So ``snapshots/<scale>/`` always holds the
old or the new snapshot, whole, never neither or a mix.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

from krepro.workflow.runtime import CPU_RECORD_SUFFIX

__all__ = [
    "SnapshotError",
    "check_snapshot",
    "file_sha256",
    "read_benchmarks",
    "read_cpu_records",
    "repair_snapshot",
    "run_timing",
    "verdict_disagreements",
    "write_snapshot",
]


class SnapshotError(RuntimeError):
    """A file the snapshot needs is missing or would be ambiguous."""


def file_sha256(path) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_benchmarks(directory) -> pd.DataFrame:
    """Every Snakemake benchmark record under ``directory``, one row per job.

    The workflow writes the record of a job of rule ``r`` to ``<directory>/r.tsv`` or
    ``<directory>/r/<wildcards>.tsv``; the rule is the first component of that path.
    Snakemake writes the file when the job ends, so its modification time is the job's end;
    its ``s`` column is the job's wall-clock time, ``cpu_time`` the CPU seconds (user +
    system) of the job's processes. Snakemake samples ``cpu_time`` (every 0.5 s for the first
    15 s of a job, every 30 s after that), so it is a lower bound that misses at most the
    last interval; "NA" (no sample taken) counts as 0.

    Parameters
    ----------
    directory : path-like
        The run's benchmark directory (``<results_dir>/benchmarks``); missing means no jobs.

    Returns
    -------
    pandas.DataFrame
        Columns ``rule``, ``path`` (relative to ``directory``), ``s``, ``cpu_time``,
        ``start``, ``end`` (seconds since the epoch; ``start = end - s``), sorted by path.
        Benchmark repeats (several rows in one file) are summed.
    """
    directory = Path(directory)
    rows = []
    for path in sorted(directory.rglob("*.tsv")) if directory.is_dir() else []:
        record = pd.read_csv(path, sep="\t", na_values=["NA", "-"])
        missing = {"s", "cpu_time"} - set(record.columns)
        if missing:
            raise SnapshotError(f"benchmark record {path} lacks the column(s) {sorted(missing)}")
        relative = path.relative_to(directory)
        seconds = float(record["s"].sum())
        end = path.stat().st_mtime
        rows.append(
            {
                "rule": relative.parts[0].removesuffix(".tsv"),
                "path": relative.as_posix(),
                "s": seconds,
                "cpu_time": float(record["cpu_time"].fillna(0).sum()),
                "start": end - seconds,
                "end": end,
            }
        )
    columns = ["rule", "path", "s", "cpu_time", "start", "end"]
    return pd.DataFrame(rows, columns=columns)


def read_cpu_records(directory) -> pd.DataFrame:
    """The exact CPU records of a run's jobs (``<log>.cpu.json``, written by ``runtime.job``).

    Parameters
    ----------
    directory : path-like
        The run's log directory (``<results_dir>/logs``); missing means no records.

    Returns
    -------
    pandas.DataFrame
        Columns ``rule``, ``path`` (relative to ``directory``), ``cpu_seconds``, sorted by path.
    """
    directory = Path(directory)
    rows = []
    pattern = f"*{CPU_RECORD_SUFFIX}"
    for path in sorted(directory.rglob(pattern)) if directory.is_dir() else []:
        record = json.loads(path.read_text(encoding="utf-8"))
        rows.append(
            {
                "rule": record["rule"],
                "path": path.relative_to(directory).as_posix(),
                "cpu_seconds": float(record["cpu_seconds"]),
            }
        )
    return pd.DataFrame(rows, columns=["rule", "path", "cpu_seconds"])


def run_timing(directory, logs=None) -> tuple[float, dict[str, float]]:
    """Wall-clock span of a run and its CPU seconds per rule, from its benchmark records.

    The span runs from the earliest job start to the latest job end (see
    :func:`read_benchmarks`), so it covers the jobs' parallel execution and the scheduler's
    gaps between them, not Snakemake's start-up before the first job. A results directory
    filled by several sessions (a resumed run, a partial rerun) spans all of them, from the
    first session's first job to the last session's last job; delete
    ``<results_dir>/benchmarks`` (or the whole results_dir) before a run to time it alone.

    Parameters
    ----------
    directory : path-like
        The run's benchmark directory (``<results_dir>/benchmarks``).
    logs : path-like, optional
        The run's log directory (``<results_dir>/logs``). A rule whose jobs left exact CPU
        records there (:func:`read_cpu_records`) is timed by them; any other rule by its
        benchmark records' sampled ``cpu_time``. Rules without benchmark records (the
        ``snapshot`` job itself) are left out.

    Returns
    -------
    wall_seconds : float
        ``max(end) - min(start)`` over the jobs; 0.0 without any record.
    rule_cpu_seconds : dict
        ``{rule: CPU seconds}``, sorted by rule.
    """
    jobs = read_benchmarks(directory)
    if jobs.empty:
        return 0.0, {}
    wall = float(jobs["end"].max() - jobs["start"].min())
    cpu = jobs.groupby("rule", sort=True)["cpu_time"].sum().to_dict()
    exact = read_cpu_records(logs) if logs is not None else None
    if exact is not None and not exact.empty:
        timed = exact.groupby("rule")["cpu_seconds"].sum()
        # Only rules with a benchmark record belong to the run (not the snapshot job itself).
        cpu |= {rule: seconds for rule, seconds in timed.items() if rule in cpu}
    return round(wall, 3), {rule: round(float(cpu[rule]), 3) for rule in sorted(cpu)}


def _flat(paths: Iterable, kind: str, suffixes: tuple[str, ...]) -> dict[str, Path]:
    """``{<kind>/<file name>: source}``; a missing file or a repeated name is an error."""
    placed: dict[str, Path] = {}
    for source in map(Path, paths):
        if source.suffix not in suffixes:
            raise SnapshotError(f"{source}: {kind} must end in one of {', '.join(suffixes)}")
        if not source.is_file():
            raise SnapshotError(f"missing {kind[:-1]} {source}: run the workflow first")
        name = f"{kind}/{source.name}"
        if name in placed:
            raise SnapshotError(f"{source} and {placed[name]} would both be {name} in the snapshot")
        placed[name] = source
    return placed


def write_snapshot(
    destination,
    *,
    report,
    verdicts,
    provenance,
    tables: Iterable,
    figures: Iterable,
    benchmarks,
    logs=None,
) -> dict:
    """Write ``destination`` (e.g. ``snapshots/paper``) from a finished run, atomically.

    Parameters
    ----------
    destination : path-like
        Snapshot directory; replaced as a whole.
    report, verdicts, provenance : path-like
        The run's ``report.md``, ``verdicts.csv`` and ``provenance.json``.
    tables : iterable of path-like
        ``.csv`` and ``.md`` tables, wherever the run wrote them; flattened into ``tables/``
        (two tables with one file name are an error).
    figures : iterable of path-like
        ``.png`` figures, flattened into ``figures/``.
    benchmarks : path-like
        The run's benchmark directory (:func:`run_timing`).
    logs : path-like, optional
        The run's log directory, for exact CPU seconds per rule (:func:`run_timing`).

    Returns
    -------
    dict
        The snapshot's ``provenance.json``: every key of the run's provenance, then
        ``wall_seconds``, ``rule_cpu_seconds`` and ``files`` (``{path in the snapshot:
        SHA-256}`` for every file but ``provenance.json``, sorted).

    Raises
    ------
    SnapshotError
        A missing input file, or two tables (figures) with the same name; nothing is written
        (but a previous publish that was killed is repaired first, see :func:`repair_snapshot`).
    """
    destination = Path(destination)
    repair_snapshot(destination)
    sources = {"report.md": Path(report), "verdicts.csv": Path(verdicts)}
    for source in sources.values():
        if not source.is_file():
            raise SnapshotError(f"missing {source}: run the workflow first")
    sources |= _flat(tables, "tables", (".csv", ".md"))
    sources |= _flat(figures, "figures", (".png",))
    if not Path(provenance).is_file():
        raise SnapshotError(f"missing {provenance}: run the workflow first")
    record = json.loads(Path(provenance).read_text(encoding="utf-8"))
    reserved = {"wall_seconds", "rule_cpu_seconds", "files"} & set(record)
    if reserved:
        raise SnapshotError(f"{provenance} already holds {sorted(reserved)}")
    wall_seconds, rule_cpu_seconds = run_timing(benchmarks, logs)

    destination.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=destination.parent, prefix=_prefix(destination, _STAGING)))
    try:
        files = {}
        for name, source in sorted(sources.items()):
            target = staging / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            files[name] = file_sha256(target)
        record |= {
            "wall_seconds": wall_seconds,
            "rule_cpu_seconds": rule_cpu_seconds,
            "files": files,
        }
        text = json.dumps(record, indent=1, ensure_ascii=False) + "\n"
        (staging / "provenance.json").write_text(text, encoding="utf-8")
        os.chmod(staging, 0o755)  # mkdtemp makes it private
        _replace_directory(staging, destination)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return record


# Staging and retired directories: hidden, beside the destination, named after it.
_STAGING, _RETIRED = "staging", "retired"


def _prefix(destination: Path, kind: str) -> str:
    return f".{destination.name}.{kind}-"


def _replace_directory(staging: Path, destination: Path) -> None:
    """Move ``staging`` to ``destination``, replacing it; the old one is removed last.

    Two renames on one file system: ``destination`` is briefly absent between them, but
    never partly written. If the second rename fails, the old directory is moved back; if
    the process dies between them, :func:`repair_snapshot` moves it back.
    """
    retired = None
    if destination.exists():
        retired = Path(
            tempfile.mkdtemp(dir=destination.parent, prefix=_prefix(destination, _RETIRED))
        )
        os.replace(destination, retired / destination.name)
    try:
        os.replace(staging, destination)
    except BaseException:
        if retired is not None:
            os.replace(retired / destination.name, destination)
            shutil.rmtree(retired)
        raise
    if retired is not None:
        shutil.rmtree(retired)


def _leftovers(destination: Path) -> tuple[list[Path], list[Path]]:
    """Staging and retired directories of earlier publishes of ``destination``.

    Besides the current names, a directory ``.<name>.<8 characters>`` (tempfile's names, which
    earlier versions used for both) counts as retired when it holds nothing but ``<name>/``,
    and as staging otherwise. Other directories beside the destination are left alone.
    """
    staging, retired = [], []
    if not destination.parent.is_dir():
        return staging, retired
    for path in sorted(destination.parent.glob(f".{destination.name}.*")):
        if not path.is_dir() or path.is_symlink():
            continue
        kind = path.name.removeprefix(f".{destination.name}.")
        legacy = re.fullmatch(r"[a-z0-9_]{8}", kind) is not None  # tempfile's random names
        if kind.startswith(f"{_RETIRED}-") or (
            legacy and [p.name for p in path.iterdir()] == [destination.name]
        ):
            retired.append(path)
        elif kind.startswith(f"{_STAGING}-") or legacy:
            staging.append(path)
    return staging, retired


def repair_snapshot(destination) -> list[str]:
    """Repair what a killed publish of ``destination`` left behind; a no-op after a clean one.

    A publish killed between its two renames leaves ``destination`` missing and the previous
    snapshot in a retired directory beside it; one killed earlier or later leaves a staging
    or a retired directory. This moves the previous snapshot back where the destination is
    missing (the newest retired one, if several), then removes every staging and retired
    directory. :func:`write_snapshot` calls it first.

    Parameters
    ----------
    destination : path-like
        The snapshot directory (e.g. ``snapshots/paper``).

    Returns
    -------
    list of str
        What was done, one line each (empty when there was nothing to repair).
    """
    destination = Path(destination)
    staging, retired = _leftovers(destination)
    done = []
    previous = [path for path in retired if (path / destination.name).is_dir()]
    if not destination.exists() and previous:
        newest = max(previous, key=lambda path: path.stat().st_mtime_ns)
        os.replace(newest / destination.name, destination)
        done.append(f"restored {destination} from {newest.name} (a publish was interrupted)")
    for path in [*staging, *retired]:
        shutil.rmtree(path)
        done.append(f"removed {path}")
    return done


def check_snapshot(directory) -> Mapping:
    """Problems of a snapshot directory: each listed file present with its SHA-256.

    Returns ``{path: problem}`` (empty when the snapshot is whole).
    """
    directory = Path(directory)
    record = json.loads((directory / "provenance.json").read_text(encoding="utf-8"))
    problems = {}
    for name, digest in record["files"].items():
        path = directory / name
        if not path.is_file():
            problems[name] = "missing"
        elif file_sha256(path) != digest:
            problems[name] = "SHA-256 differs"
    listed = set(record["files"]) | {"provenance.json"}
    for path in directory.rglob("*"):
        name = path.relative_to(directory).as_posix()
        if path.is_file() and name not in listed:
            problems[name] = "not listed in provenance.json"
    if not math.isfinite(record.get("wall_seconds", math.nan)):
        problems["provenance.json"] = "no finite wall_seconds"
    return problems


def verdict_disagreements(quick, paper) -> pd.DataFrame:
    """Primary claims where a quick run contradicts a robust paper-scale verdict.

    The quick scale is a preview: where it is ``inconclusive`` it says nothing, and a claim
    that is not ``robust`` at paper scale (it turns on the protocol reading, or has one
    reading) may differ for that reason. Every other difference is a disagreement.

    Parameters
    ----------
    quick, paper : path-like or pandas.DataFrame
        ``verdicts.csv`` of a quick run and of the paper-scale snapshot.

    Returns
    -------
    pandas.DataFrame
        One row per disagreement: ``experiment``, ``claim_id``, ``quick`` and ``paper``
        verdicts, ``robustness`` (at paper scale); empty when the two agree.
    """
    frames = [v if isinstance(v, pd.DataFrame) else pd.read_csv(v) for v in (quick, paper)]
    keys = ["experiment", "claim_id"]
    primary = [f[f["primary"].astype(str).str.lower() == "true"] for f in frames]
    both = primary[0][[*keys, "verdict"]].merge(
        primary[1][[*keys, "verdict", "robustness"]], on=keys, suffixes=("_quick", "_paper")
    )
    differ = (
        (both["robustness"] == "robust")
        & (both["verdict_quick"] != "inconclusive")
        & (both["verdict_quick"] != both["verdict_paper"])
    )
    out = both[differ].rename(columns={"verdict_quick": "quick", "verdict_paper": "paper"})
    return out[[*keys, "quick", "paper", "robustness"]].reset_index(drop=True)
