"""The ``cme`` study's verdicts, section, claims table and figure."""

import numpy as np
import pytest
import yaml

from krepro.studies.cme import figures, report
from krepro.studies.cme import run as experiment
from krepro.studies.cme.tables import CLAIM_QUANTITIES
from krepro.studies.readings import Reading

REFERENCE = yaml.safe_load(open("config/paper_reference.yaml", encoding="utf-8"))["cme"]
IDENTITIES = {
    "operator_form",
    "squared_loss_target",
    "linear_mean_only",
    "weights_not_probabilities",
}
TESTED = {"gaussian_separates", "delta_frequencies"}
READINGS = [Reading("primary")]


@pytest.fixture(scope="module")
def default_results():
    return experiment.run_experiment(seed=2021)  # the defaults: ~2 s


def _verdicts(claims, runs):
    records = report.cme_verdicts(claims, runs, REFERENCE, READINGS, "test")
    assert [r.claim_id for r in records] == list(REFERENCE["claims"])
    assert all(r.primary and r.protocol == "primary" for r in records)
    return {r.claim_id: r for r in records}


def test_reference_labels_identities_and_tests():
    claims = REFERENCE["claims"]
    assert {k for k, c in claims.items() if c.get("kind") == "identity"} == IDENTITIES
    assert all("test" in claims[k] and "margin" in claims[k] for k in TESTED)
    assert "min_repetitions" not in REFERENCE


def test_defaults_reproduce_every_claim_and_section_renders(default_results):
    r = default_results
    section = report.cme_section(
        r["table"], r["claims"], r["runs"], REFERENCE, READINGS, scale="test"
    )
    assert {v.verdict for v in section.verdicts} == {"reproduced"}, section.verdicts
    assert all(v.primary and v.protocol == "primary" for v in section.verdicts)
    for record in section.verdicts:
        if record.claim_id in IDENTITIES:
            assert record.kind == "identity" and record.stability == 1.0
            assert record.n_repetitions is None and not record.test
            assert "Identity" in record.detail
        else:
            assert record.n_repetitions == 5 and record.test in ("equivalence", "non-inferiority")
            assert 0.0 <= record.stability <= 1.0 and record.ci_low <= record.ci_high
    assert "| λ |" in section.body and "selected for" in section.body
    # every table row has as many cells as the header (no stray '|' in a cell)
    rows = [line for line in section.body.splitlines() if line.startswith("|")]
    assert len({line.count("|") for line in rows}) == 1


def _modified(claims, claim, quantity, value):
    out = claims.copy()
    out.loc[(out["claim"] == claim) & (out["quantity"] == quantity), "value"] = value
    return out


def test_identities_react_to_their_exact_checks(default_results):
    claims, runs = default_results["claims"], default_results["runs"]

    def verdict(c):
        return {k: v.verdict for k, v in _verdicts(c, runs).items()}

    broken = _modified(claims, "operator_form", "operator_max_abs_difference", 1e-3)
    assert verdict(broken)["operator_form"] == "not reproduced"
    lost_factor = _modified(claims, "operator_form", "kernel_ridge_lambda_max_abs_difference", 0.0)
    assert verdict(lost_factor)["operator_form"] == "not reproduced"
    decomposition = _modified(claims, "squared_loss_target", "max_abs_decomposition_z_delta", 9.0)
    assert verdict(decomposition)["squared_loss_target"] == "not reproduced"
    same_law = _modified(claims, "linear_mean_only", "conditional_sd_high", 0.5)
    assert verdict(same_law)["linear_mean_only"] == "not reproduced"
    probabilities = _modified(claims, "weights_not_probabilities", "deviation_largest", 0.0)
    assert verdict(probabilities)["weights_not_probabilities"] == "not reproduced"


def _runs_at(runs, claims, claim, column, values):
    """``runs`` with ``column`` at the claim's selected λ replaced by ``values``."""
    lam = report._values(claims, claim)[0]["lambda"]
    out = runs.copy()
    rows = np.isclose(out["lambda"], lam)
    out.loc[rows, column] = np.resize(np.asarray(values, dtype=float), int(rows.sum()))
    return out


def test_gaussian_separates_is_an_equivalence_test(default_results):
    claims, runs = default_results["claims"], default_results["runs"]
    true = report._values(claims, "gaussian_separates")[0]["contrast_true"]
    column = "contrast_mmd_predicted"

    def record(values):
        modified = _runs_at(runs, claims, "gaussian_separates", column, values)
        return _verdicts(claims, modified)["gaussian_separates"]

    close = record(true * np.array([1.01, 0.99, 1.02, 0.98, 1.0]))
    assert close.verdict == "reproduced" and close.family_size == 1
    far = record(true * np.array([0.5, 0.52, 0.48, 0.51, 0.49]))  # half the true distance
    assert far.verdict == "not reproduced"
    noisy = record(true * np.array([1.3, 0.7, 1.25, 0.75, 1.0]))
    assert noisy.verdict == "inconclusive"
    assert "would need about" in noisy.detail


def test_delta_frequencies_is_a_non_inferiority_test(default_results):
    claims, runs = default_results["claims"], default_results["runs"]

    def record(values):
        modified = _runs_at(runs, claims, "delta_frequencies", "category_abs_error", values)
        return _verdicts(claims, modified)["delta_frequencies"]

    assert record([0.03, 0.031, 0.029, 0.032, 0.03]).verdict == "reproduced"
    assert record([0.2, 0.21, 0.19, 0.2, 0.2]).verdict == "not reproduced"
    noisy = record([0.0213, 0.0827, 0.0341, 0.0671, 0.0587])
    assert noisy.verdict == "inconclusive" and "would need about" in noisy.detail


def test_claims_table_lists_every_quantity_the_checks_read(default_results):
    claims = default_results["claims"]
    assert not claims.duplicated(["claim", "quantity"]).any()
    read = {(c, q) for c, q, _, _ in CLAIM_QUANTITIES}
    assert read <= set(zip(claims["claim"], claims["quantity"], strict=True))


def test_plot_cme_writes_png_atomically(default_results, tmp_path):
    path = tmp_path / "figures" / "cme.png"
    r = default_results
    figures.plot_cme(r["table"], r["sample"], r["query"], r["curves"], r["weights"], path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in path.parent.iterdir()] == ["cme.png"]  # no temporary left behind
