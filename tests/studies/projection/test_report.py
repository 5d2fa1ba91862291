"""The projection study's verdicts (krepro.studies.projection.report)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import yaml

from krepro.fairness.projection import hoeffding_radius
from krepro.stats import within_group_products
from krepro.studies.claims import judge_claim, stability_seed
from krepro.studies.projection.readings import readings
from krepro.studies.projection.report import projection_section, projection_verdicts
from krepro.studies.verdicts import IDENTITY, INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED
from tests.studies.projection.test_run import SETTINGS

REFERENCE = yaml.safe_load(open("config/paper_reference.yaml", encoding="utf-8"))["oblivious"]


# --------------------------------------------------------------------------- verdicts


def _frames(deviation, within=0.8, n_reps=20, d_n=(0.8, 0.5, 0.2), across=(0.8, 0.5, 0.1)):
    """Runs with d_n and dCor(W, S) correlated ``within`` γ (and ``across`` γ by the means)."""
    rng = np.random.default_rng(0)
    gammas = [0.0, 0.5, 1.0]
    noise_d = rng.standard_normal((len(gammas), n_reps))
    noise_w = within * noise_d + np.sqrt(1 - within**2) * rng.standard_normal(noise_d.shape)
    runs = pd.DataFrame(
        {
            "gamma": np.repeat(gammas, n_reps),
            "n_points": 300,
            "rho": 1.0,
            "abs_deviation": deviation,
            "d_n": (np.asarray(d_n)[:, None] + 0.01 * noise_d).ravel(),
            "dcor_W": (np.asarray(across)[:, None] + 0.02 * noise_w).ravel(),
            "status": "ok",
        }
    )
    table = pd.DataFrame(
        {
            "gamma": gammas,
            "d_n_mean": d_n,
            "d_reference_mean": d_n,
            "max_abs_deviation": 0.01,
            "mean_shift_mean": 0.1,
            "n_reps": n_reps,
            **{
                f"{m}_{f}_mean": 0.1
                for m in ("dcor", "beta", "error")
                for f in ("X", "Z", "W")
                if (m, f) != ("dcor", "W")
            },
            "dcor_W_mean": across,
        }
    )
    return table, runs


def _verdicts(table, runs):
    section = projection_section(
        table,
        runs,
        REFERENCE["projection"],
        SETTINGS,
        readings=readings(SETTINGS),
        scale="test",
    )
    return {v.claim_id: v for v in section.verdicts}


def test_verdicts_one_reading_with_the_claims_instances():
    """``projection_verdicts`` without the section: one record per claim under the one
    reading, each counting the instances it rests on (the failed ones left out), the
    bootstrap seeded by the experiment and the claim only."""
    table, runs = _frames(0.01, within=0.8)
    runs.loc[0, "status"] = "failed"
    records = projection_verdicts(
        table,
        runs,
        REFERENCE["projection"],
        SETTINGS,
        readings=readings(SETTINGS),
        scale="test",
    )
    assert [(r.claim_id, r.protocol, r.primary) for r in records] == [
        ("distance_concentration", "primary", True),
        ("dependence_follows_distance", "primary", True),
    ]
    assert [r.n_repetitions for r in records] == [59, 59]
    assert [r.verdict for r in records] == [REPRODUCED, REPRODUCED]
    claim = REFERENCE["projection"]["claims"]["dependence_follows_distance"]
    products, _ = within_group_products(runs[runs["status"] == "ok"], "gamma", "d_n", "dcor_W")
    seed = stability_seed("projection", "dependence_follows_distance")
    _, stability = judge_claim(claim, products, seed=seed)
    assert records[1].stability == stability


def test_projection_verdicts():
    table, runs = _frames(0.01, within=0.8)
    verdicts = _verdicts(table, runs)
    concentration = verdicts["distance_concentration"]
    assert (concentration.verdict, concentration.n_repetitions) == (REPRODUCED, 60)
    assert concentration.kind == IDENTITY and "Identity" in concentration.detail
    follows = verdicts["dependence_follows_distance"]
    assert follows.verdict == REPRODUCED and follows.primary
    assert follows.test == "superiority" and follows.ci_low > 0


def test_confounded_by_gamma_alone_is_not_reproduced():
    # The means move together across γ (Spearman 1), but within γ the draws do not.
    table, runs = _frames(0.01, within=0.0, n_reps=40)
    follows = _verdicts(table, runs)["dependence_follows_distance"]
    assert follows.verdict == NOT_REPRODUCED
    assert "Spearman +1.00" in follows.detail


def test_projection_verdicts_fail_and_inconclusive():
    radius = hoeffding_radius(300, 1.0, 0.05, range_factor=5)
    table, runs = _frames(2 * radius, within=-0.8)
    verdicts = _verdicts(table, runs)
    assert verdicts["distance_concentration"].verdict == NOT_REPRODUCED
    assert verdicts["dependence_follows_distance"].verdict == NOT_REPRODUCED
    table, runs = _frames(0.01, within=0.3, n_reps=4)
    verdicts = _verdicts(table, runs)
    # an identity is not gated by repetitions; 12 draws cannot decide a correlation of 0.3
    assert verdicts["distance_concentration"].verdict == REPRODUCED
    follows = verdicts["dependence_follows_distance"]
    assert follows.verdict == INCONCLUSIVE and "would need about" in follows.detail
