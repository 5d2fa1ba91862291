"""Checksummed, atomic downloads: mirror, refusal of wrong bytes, nothing left behind."""

import hashlib
import os
from pathlib import Path

import pytest

from krepro.data import download
from krepro.data.download import (
    DATASETS,
    ChecksumError,
    dataset_sources,
    fetch_dataset_file,
    fetch_verified,
)

# The offline UCI mirror (tests/conftest.py defaults it to shared/data beside the checkout).
MIRROR = os.environ.get("KREPRO_DATA_MIRROR", "")


def _sha(data):
    return hashlib.sha256(data).hexdigest()


def test_mirror_file_is_verified_and_written(tmp_path):
    source = tmp_path / "src.bin"
    source.write_bytes(b"hello")
    dest = tmp_path / "out" / "file.bin"
    used = fetch_verified(dest, _sha(b"hello"), [{"kind": "file", "path": source}])
    assert used == str(source)
    assert dest.read_bytes() == b"hello"
    assert fetch_verified(dest, _sha(b"hello"), []) == "cached"


def test_wrong_checksum_is_refused_and_nothing_is_cached(tmp_path):
    source = tmp_path / "corrupt.bin"
    source.write_bytes(b"corrupt")
    dest = tmp_path / "out" / "file.bin"
    with pytest.raises(ChecksumError) as info:
        fetch_verified(dest, _sha(b"good"), [{"kind": "file", "path": source}])
    message = str(info.value)
    assert "file.bin" in message and _sha(b"good") in message and _sha(b"corrupt") in message
    assert list((tmp_path / "out").iterdir()) == []


def test_a_corrupt_existing_file_is_replaced(tmp_path):
    good = tmp_path / "good.bin"
    good.write_bytes(b"good")
    dest = tmp_path / "file.bin"
    dest.write_bytes(b"truncated")
    fetch_verified(dest, _sha(b"good"), [{"kind": "file", "path": good}])
    assert dest.read_bytes() == b"good"


def test_falls_through_to_the_next_source(tmp_path):
    good = tmp_path / "good.bin"
    good.write_bytes(b"good")
    sources = [
        {"kind": "file", "path": tmp_path / "missing.bin"},
        {"kind": "url", "url": "file:///nonexistent/krepro/file.bin"},
        {"kind": "url", "url": good.as_uri()},
    ]
    dest = tmp_path / "out.bin"
    assert fetch_verified(dest, _sha(b"good"), sources) == good.as_uri()
    with pytest.raises(OSError, match="No source delivered"):
        fetch_verified(tmp_path / "other.bin", _sha(b"x"), sources[:2])


def test_any_error_of_a_source_moves_on_to_the_next(tmp_path):
    """A mirror URL with a bad port raises http.client.InvalidURL (not an OSError)."""
    good = tmp_path / "good.bin"
    good.write_bytes(b"good")
    sources = [
        {"kind": "url", "url": "http://127.0.0.1:port/krepro/file.bin"},
        {"kind": "zip", "url": good.as_uri(), "member": "file.bin"},  # not a zip archive
        {"kind": "url", "url": good.as_uri()},
    ]
    assert fetch_verified(tmp_path / "out.bin", _sha(b"good"), sources) == good.as_uri()
    with pytest.raises(OSError) as info:
        fetch_verified(tmp_path / "other.bin", _sha(b"good"), sources[:2])
    assert "InvalidURL" in str(info.value) and "BadZipFile" in str(info.value)
    assert not (tmp_path / "other.bin").exists()


def test_a_mirror_url_with_a_bad_port_falls_through_to_uci(tmp_path, monkeypatch):
    tried = []

    def no_uci(source, out, timeout):
        tried.append(source["url"])
        if "archive.ics.uci.edu" in source["url"]:
            raise OSError("network disabled in tests")
        return copy(source, out, timeout)

    copy = download._copy_source
    monkeypatch.setattr(download, "_copy_source", no_uci)
    monkeypatch.setenv(download.MIRROR_VARIABLE, "http://127.0.0.1:port/data")
    with pytest.raises(OSError) as info:
        fetch_dataset_file("adult", "adult.names", tmp_path / "adult.names")
    assert len(tried) == 3  # the mirror, then both UCI sources
    assert "InvalidURL" in str(info.value) and "network disabled" in str(info.value)


def test_offline_without_a_mirror_says_to_set_the_mirror(tmp_path, monkeypatch):
    monkeypatch.delenv(download.MIRROR_VARIABLE, raising=False)
    monkeypatch.setattr(download, "_copy_source", _offline(download._copy_source))
    with pytest.raises(OSError, match=download.MIRROR_VARIABLE) as info:
        fetch_dataset_file("adult", "adult.data", tmp_path / "adult.data")
    assert "adult/adult.data" in str(info.value)
    assert list(tmp_path.iterdir()) == []
    # with a mirror set, the error lists it among the sources instead
    empty = tmp_path / "mirror"
    empty.mkdir()
    with pytest.raises(OSError) as info:
        fetch_dataset_file("adult", "adult.data", tmp_path / "adult.data", mirror=str(empty))
    assert str(empty / "adult" / "adult.data") in str(info.value)


def test_verify_sha256_names_file_expected_and_actual(tmp_path):
    path = tmp_path / "data.csv"
    path.write_bytes(b"edited")
    download.verify_sha256(tmp_path / "data.csv", _sha(b"edited"))
    with pytest.raises(ChecksumError) as info:
        download.verify_sha256(path, _sha(b"original"))
    message = str(info.value)
    assert str(path) in message and _sha(b"original") in message and _sha(b"edited") in message
    with pytest.raises(KeyError, match=r"adult\.csv"):
        download.registered_sha256("adult", "adult.csv")


def test_zip_member_source(tmp_path):
    import zipfile

    archive = tmp_path / "data.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("adult.names", b"names")
    dest = tmp_path / "adult.names"
    source = {"kind": "zip", "url": archive.as_uri(), "member": "adult.names"}
    fetch_verified(dest, _sha(b"names"), [source])
    assert dest.read_bytes() == b"names"


def test_sources_order_and_environment_mirror(tmp_path, monkeypatch):
    sources = dataset_sources("adult", "adult.data", mirror=str(tmp_path))
    assert [s["kind"] for s in sources] == ["file", "url", "zip"]
    assert sources[0]["path"] == tmp_path / "adult" / "adult.data"
    assert sources[1]["url"].endswith("/adult/adult.data")
    with pytest.raises(KeyError):
        dataset_sources("adult", "adult.csv")
    (tmp_path / "adult").mkdir()
    (tmp_path / "adult" / "adult.names").write_bytes(b"not the UCI file")
    monkeypatch.setenv(download.MIRROR_VARIABLE, str(tmp_path))
    monkeypatch.setattr(download, "_copy_source", _offline(download._copy_source))
    with pytest.raises(ChecksumError):
        fetch_dataset_file("adult", "adult.names", tmp_path / "out" / "adult.names")


def _offline(copy):
    def guarded(source, out, timeout):
        if source["kind"] != "file":
            raise OSError("network disabled in tests")
        return copy(source, out, timeout)

    return guarded


@pytest.mark.skipif(not MIRROR or not Path(MIRROR).is_dir(), reason="no KREPRO_DATA_MIRROR")
@pytest.mark.parametrize(
    ("dataset", "filename"),
    [(d, f) for d, spec in DATASETS.items() for f in spec["files"]],
)
def test_registered_checksums_match_the_mirror(dataset, filename, tmp_path):
    dest = tmp_path / filename
    assert fetch_dataset_file(dataset, filename, dest, mirror=MIRROR) != "cached"
    assert download.sha256_of(dest) == DATASETS[dataset]["files"][filename]
