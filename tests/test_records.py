"""Atomic run-record files (krepro.records)."""

import json
import os

import numpy as np
import pytest

from krepro.records import atomic_write_text, read_records, write_records


def test_records_round_trip_with_versions(tmp_path):
    path = tmp_path / "runs" / "a.json"
    write_records(path, [{"method": "KRR", "test_mse": 0.5}], rule="study_fit")
    payload = json.loads(path.read_text())
    assert payload["header"]["rule"] == "study_fit"
    assert payload["header"]["versions"]["numpy"] == np.__version__
    assert read_records([path, path]) == [{"method": "KRR", "test_mse": 0.5}] * 2


def test_atomic_write_leaves_nothing_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "out.txt"
    atomic_write_text(target, "old")

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    assert oct(target.stat().st_mode & 0o777) != oct(0o600)  # follows the umask, not mkstemp
    with pytest.raises(OSError, match="disk full"):
        atomic_write_text(target, "new")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]
