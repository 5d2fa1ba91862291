"""A new claim is one check function and one reference entry; a new reading is one config entry.

In a copy of the repository, a claim added to the ridge study (a check appended to its
``report.py`` and the claim's entry in ``config/paper_reference.yaml``) and a reading added to
the tiny config (one more ``ridge.variants`` entry) each appear in ``verdicts.csv``, under every
reading, with no other edit: the judging driver and the declared readings do the rest.
"""

from __future__ import annotations

import shutil
import textwrap

import pandas as pd
import pytest

from tests.workflow.test_new_study import COPIED, run_copy
from tests.workflow.test_workflow import REPO, TINY_CONFIG, load_yaml, ok, write_yaml

pytestmark = [pytest.mark.workflow, pytest.mark.slow]

CHECK = '''

def _check_ends_included(ctx, claim, seed):
    """A toy claim: every experiment's paired runs hold both ends of the γ grid."""
    gammas = [set(ctx.paired[e].index.get_level_values("gamma")) for e in ctx.experiments]
    holds = bool(gammas) and all({0.0, 1.0} <= g for g in gammas)
    return Outcome(
        f"γ values run: {[sorted(g) for g in gammas]}.",
        verdict="reproduced" if holds else "not reproduced",
        n_repetitions=None,
    )


CHECKS["ends_included"] = _check_ends_included
'''
CLAIM = {"text": "The γ grid holds both ends.", "source": "a test", "kind": "sanity check"}


def copy_repository(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    for name in COPIED:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, repo / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, repo / name)
    return repo


def changed_files(repo):
    return sorted(
        str(path.relative_to(repo))
        for path in repo.rglob("*")
        if path.is_file()
        and "__pycache__" not in path.parts
        and (REPO / path.relative_to(repo)).read_bytes() != path.read_bytes()
    )


def ridge_rows(workdir):
    verdicts = pd.read_csv(workdir / "results" / "verdicts.csv", keep_default_na=False)
    return verdicts[verdicts["experiment"] == "ridge"]


def test_a_new_claim_is_one_check_and_one_reference_entry(tiny_run, tmp_path):
    repo, workdir = copy_repository(tmp_path), tmp_path / "work"
    report = repo / "src" / "krepro" / "studies" / "ridge" / "report.py"
    text = report.read_text(encoding="utf-8")
    if "from krepro.studies.judging import" not in text or "Outcome" not in text:
        pytest.fail("the ridge report does not build its verdicts with the judging driver")
    report.write_text(text + textwrap.dedent(CHECK), encoding="utf-8")
    reference = repo / "config" / "paper_reference.yaml"
    data = load_yaml(reference)
    data["oblivious"]["ridge"]["claims"]["ends_included"] = CLAIM
    write_yaml(reference, data)
    assert changed_files(repo) == [
        "config/paper_reference.yaml",
        "src/krepro/studies/ridge/report.py",
    ]
    shutil.copytree(tiny_run, workdir, symlinks=True)

    ok(run_copy(repo, workdir, config=TINY_CONFIG))
    rows = ridge_rows(workdir)
    new = rows[rows["claim_id"] == "ends_included"]
    readings = list(dict.fromkeys(rows["protocol"]))
    assert list(new["protocol"]) == readings and len(readings) == 2, rows
    assert set(new["verdict"]) == {"reproduced"} and set(new["kind"]) == {"sanity check"}


def test_a_new_reading_is_one_config_entry(tiny_run, tmp_path):
    repo, workdir = copy_repository(tmp_path), tmp_path / "work"
    shutil.copytree(tiny_run, workdir, symlinks=True)
    before = ridge_rows(workdir)
    tiny = load_yaml(TINY_CONFIG)
    tiny["ridge"]["variants"]["low_noise"] = {
        **tiny["ridge"]["variants"]["paper_text"],
        "noise_variance": 0.001,
    }
    config = write_yaml(tmp_path / "tiny_reading.yaml", tiny)

    ok(run_copy(repo, workdir, config=config))
    after = ridge_rows(workdir)
    added = after[after["protocol"] == "low_noise"]
    assert list(added["claim_id"]) == list(before[before["protocol"] == "paper_text"]["claim_id"])
    assert not added["primary"].any()
    assert changed_files(repo) == []
