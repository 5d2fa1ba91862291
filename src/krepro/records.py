"""Run records and atomic artifact writes.

A run record is one JSON object per (experiment, method, setting, repetition): what was run
(params, seed keys, sizes), what came out (metrics, selected hyper-parameters), how long it
took and with which package versions. Files are written atomically (temporary file in the
destination directory, then :func:`os.replace`), so a killed job never leaves a half-written
artifact that a resumed run would take for a finished one.
"""

from __future__ import annotations

import json
import os
import platform
import tempfile
from importlib import metadata
from pathlib import Path

__all__ = [
    "atomic_write_bytes",
    "atomic_write_text",
    "package_versions",
    "publish",
    "read_records",
    "write_records",
]

_PACKAGES = ("krepro", "numpy", "scipy", "scikit-learn", "pandas")


def publish(tmp, path):
    """Give a finished temporary file the usual permissions and rename it onto ``path``.

    :func:`tempfile.mkstemp` creates files readable by the owner only; results and downloads
    on a shared cluster file system should follow the umask like any other file.
    """
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    os.replace(tmp, path)


def atomic_write_bytes(path, data):
    """Write ``data`` to ``path`` atomically (all or nothing)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        publish(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_text(path, text):
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))


def package_versions():
    """Versions of the packages that determine the numbers, plus the Python version."""
    versions = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def write_records(path, records, **header):
    """Write a list of run records (dicts) with a header (e.g. config) as JSON, atomically."""
    payload = {"header": {**header, "versions": package_versions()}, "records": list(records)}
    atomic_write_text(path, json.dumps(payload, indent=1, sort_keys=True) + "\n")


def read_records(paths):
    """Concatenate the records of several JSON record files."""
    records = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            records.extend(json.load(handle)["records"])
    return records
