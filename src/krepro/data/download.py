"""Checksummed, atomic downloads of the UCI data sets, with an offline mirror.

Every file is identified by its SHA-256. :func:`fetch_verified` tries, in order, an offline
mirror (the directory named by ``KREPRO_DATA_MIRROR``, laid out as ``<dataset>/<file>``), the
UCI per-file URLs, and the UCI zip archive (extracting one member). A source whose bytes do
not hash to the expected value is refused; a file is written only after it verified, via a
temporary file in the destination directory and :func:`os.replace`, so a failed or killed
download never leaves anything in ``resources/``.

Any error of a source (unreachable host, a mirror URL with a bad port, a missing file, a
broken archive, wrong bytes) moves on to the next source; the final error lists every
source with its error and, when no mirror was set, says to set ``KREPRO_DATA_MIRROR``.
Readers of the files (:func:`krepro.data.adult.load_adult`,
:func:`krepro.data.parkinsons.load_parkinsons`) check the SHA-256 again on every load with
:func:`verify_sha256`, so a copy edited after the download is refused as well.

The standard library (``urllib``, ``hashlib``, ``zipfile``) is enough for this. pooch
(1.9) was considered: it verifies and atomically writes single http(s)/ftp downloads, but
it has no ``file://`` or directory source (the offline mirror), no fallback between sources,
checks the hash of a whole archive rather than of the member extracted from it (only the
members' hashes are stable here), leaves cached files owner-only (0600) and adds three
dependencies; what it would replace is the one ``urlopen`` call below.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import tempfile
import urllib.request
import zipfile
from pathlib import Path

from krepro.records import publish

__all__ = [
    "DATASETS",
    "MIRROR_VARIABLE",
    "ChecksumError",
    "fetch_dataset_file",
    "fetch_verified",
    "registered_sha256",
    "verify_sha256",
]

MIRROR_VARIABLE = "KREPRO_DATA_MIRROR"
_UCI = "https://archive.ics.uci.edu"

# Files of each data set: expected SHA-256 and sources (per-file URL, then zip member).
DATASETS = {
    "adult": {
        "zip": f"{_UCI}/static/public/2/adult.zip",
        "files": {
            "adult.data": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
            "adult.test": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
            "adult.names": "c248284c0b5de30c9e1958d6cdd168a34a654758b620e68f46aefa83fc0a576a",
        },
        "base_url": f"{_UCI}/ml/machine-learning-databases/adult",
    },
    "parkinsons": {
        "zip": f"{_UCI}/static/public/189/parkinsons+telemonitoring.zip",
        "files": {
            "parkinsons_updrs.data": (
                "f2c7d5025dec4e92e7feae367a5f7ccf58789a10ac6b54bdf15976c599f9dd39"
            ),
            "parkinsons_updrs.names": (
                "744dc2835eab5c0fc744c638e5e6b05e656788f60f8aa2aba9d48e21c629f7c2"
            ),
        },
        "base_url": f"{_UCI}/ml/machine-learning-databases/parkinsons/telemonitoring",
    },
}


class ChecksumError(ValueError):
    """A source delivered bytes whose SHA-256 is not the expected one."""


def sha256_of(path):
    """SHA-256 hex digest of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def registered_sha256(dataset, filename):
    """Known SHA-256 of one file of a registered data set (:data:`DATASETS`)."""
    if dataset not in DATASETS:
        raise KeyError(f"Unknown data set {dataset!r}; known: {sorted(DATASETS)}.")
    files = DATASETS[dataset]["files"]
    if filename not in files:
        raise KeyError(f"{dataset} has no file {filename!r}; known: {sorted(files)}.")
    return files[filename]


def verify_sha256(path, expected):
    """Refuse a file whose bytes do not hash to ``expected``.

    Parameters
    ----------
    path : path-like
    expected : str
        SHA-256 (hex).

    Raises
    ------
    ChecksumError
        Naming the file, the expected and the actual hash.
    """
    actual = sha256_of(path)
    if actual != expected:
        raise ChecksumError(
            f"Refused {path}: expected sha256 {expected}, got {actual} (the file was changed "
            "after its download; delete it to fetch it again)."
        )


def _copy_source(source, out, timeout):
    """Write the bytes of one source to the open file ``out``."""
    kind = source["kind"]
    if kind == "file":
        with open(source["path"], "rb") as handle:
            shutil.copyfileobj(handle, out)
    elif kind == "url":
        with urllib.request.urlopen(source["url"], timeout=timeout) as response:
            shutil.copyfileobj(response, out)
    elif kind == "zip":
        with urllib.request.urlopen(source["url"], timeout=timeout) as response:
            archive = zipfile.ZipFile(io.BytesIO(response.read()))
        with archive.open(source["member"]) as member:
            shutil.copyfileobj(member, out)
    else:  # pragma: no cover - sources are built below
        raise ValueError(f"Unknown source kind {kind!r}.")


def _describe(source):
    if source["kind"] == "file":
        return str(source["path"])
    if source["kind"] == "zip":
        return f"{source['url']} (member {source['member']})"
    return source["url"]


def fetch_verified(dest, sha256, sources, timeout=60):
    """Fetch ``dest`` from the first source whose bytes hash to ``sha256``.

    Parameters
    ----------
    dest : path-like
        Destination file; left untouched unless a source verifies.
    sha256 : str
        Expected SHA-256 (hex).
    sources : list of dict
        ``{"kind": "file", "path": ...}``, ``{"kind": "url", "url": ...}`` or
        ``{"kind": "zip", "url": ..., "member": ...}``, tried in order.
    timeout : float, default=60
        Network timeout per source, seconds.

    Returns
    -------
    str
        ``"cached"`` when ``dest`` already verified, otherwise the source used.

    Raises
    ------
    ChecksumError
        When every source failed and at least one delivered wrong bytes (the message names
        the file, the expected and the actual hash).
    OSError
        When no source could be read at all (the message lists each source's error).
    """
    dest = Path(dest)
    if dest.exists() and sha256_of(dest) == sha256:
        return "cached"
    dest.parent.mkdir(parents=True, exist_ok=True)
    errors, mismatches = [], []
    for source in sources:
        fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
        try:
            with os.fdopen(fd, "wb") as out:
                _copy_source(source, out, timeout)
            actual = sha256_of(tmp)
            if actual != sha256:
                mismatches.append(
                    f"{dest.name} from {_describe(source)}: expected sha256 {sha256}, got {actual}"
                )
                continue
            publish(tmp, dest)
            return _describe(source)
        except Exception as exc:  # any failure of one source: try the next one
            errors.append(f"{_describe(source)}: {type(exc).__name__}: {exc}")
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    if mismatches:
        raise ChecksumError("Refused (checksum mismatch): " + "; ".join(mismatches + errors))
    raise OSError(f"No source delivered {dest.name}: " + "; ".join(errors))


def dataset_sources(dataset, filename, mirror=None):
    """Sources of one data-set file: mirror (if any), UCI per-file URL, UCI zip member."""
    registered_sha256(dataset, filename)
    spec = DATASETS[dataset]
    sources = []
    if mirror:
        if "://" in mirror:
            sources.append({"kind": "url", "url": f"{mirror.rstrip('/')}/{dataset}/{filename}"})
        else:
            sources.append({"kind": "file", "path": Path(mirror) / dataset / filename})
    sources.append({"kind": "url", "url": f"{spec['base_url']}/{filename}"})
    sources.append({"kind": "zip", "url": spec["zip"], "member": filename})
    return sources


def fetch_dataset_file(dataset, filename, dest, mirror=None, timeout=60):
    """Fetch one file of a registered data set, verified against its known SHA-256.

    ``mirror`` defaults to the ``KREPRO_DATA_MIRROR`` environment variable: a directory or
    a base URL holding ``<dataset>/<file>``.
    """
    mirror = os.environ.get(MIRROR_VARIABLE) if mirror is None else mirror
    sha256 = registered_sha256(dataset, filename)
    sources = dataset_sources(dataset, filename, mirror)
    try:
        return fetch_verified(dest, sha256, sources, timeout)
    except ChecksumError:
        raise
    except OSError as exc:
        if mirror:
            raise
        raise OSError(
            f"{exc}. Offline? Set {MIRROR_VARIABLE} to a directory (or base URL) holding "
            f"{dataset}/{filename}, e.g. a copy of the UCI files."
        ) from exc
