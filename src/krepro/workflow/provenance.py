"""Provenance of a run: code version, resolved config, scale, software versions, machine."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import platform
import subprocess
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path

__all__ = ["PACKAGES", "collect_provenance", "config_sha256", "git_state"]

PACKAGES = ("numpy", "scipy", "scikit-learn", "pandas", "snakemake", "krepro")


def config_sha256(config: Mapping) -> str:
    """SHA-256 of the resolved config as canonical JSON (sorted keys, no whitespace)."""
    canonical = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def git_state(directory) -> tuple[str, bool]:
    """Commit of the git checkout holding ``directory`` and whether tracked files differ.

    Returns ``("unknown", False)`` outside a git checkout or without git. Untracked files
    (results, downloads) do not make the tree dirty.
    """
    try:
        commit = subprocess.run(
            ["git", "-C", str(directory), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        status = subprocess.run(
            ["git", "-C", str(directory), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown", False
    return commit, bool(status.strip())


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def collect_provenance(
    config: Mapping, config_files: Sequence[str], code_directory, *, date=None
) -> dict:
    """The provenance record written to ``results/provenance.json`` and atop ``report.md``.

    Parameters
    ----------
    config : mapping
        The resolved config (after every ``--configfile`` and ``--config``).
    config_files : sequence of str
        The config files, in the order they were merged.
    code_directory : path
        Directory of the workflow (the git checkout whose commit is recorded).
    date : datetime, optional
        Time of the run (default: now, UTC).

    Returns
    -------
    dict
        Keys ``commit``, ``dirty``, ``scale``, ``config_files``, ``config_sha256``, ``date``,
        ``versions`` (Python and :data:`PACKAGES`) and ``cpu_count``.
    """
    commit, dirty = git_state(code_directory)
    date = date or dt.datetime.now(dt.UTC)
    root = Path(code_directory).resolve()
    files = []
    for path in config_files:
        resolved = Path(path).resolve()
        files.append(str(resolved.relative_to(root)) if resolved.is_relative_to(root) else path)
    return {
        "commit": commit,
        "dirty": dirty,
        "scale": str(config.get("scale", "custom")),
        "config_files": files,
        "config_sha256": config_sha256(config),
        "date": date.isoformat(timespec="seconds"),
        "versions": {"python": platform.python_version()}
        | {package: _version(package) for package in PACKAGES},
        "cpu_count": os.cpu_count(),
    }
