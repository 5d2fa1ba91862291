"""DCM verdicts from small synthetic aggregates: one record per (claim, reading)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from krepro.studies.dcm_synthetic import run as dcm_synthetic
from krepro.studies.dcm_synthetic.report import synthetic_section
from krepro.studies.verdicts import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    REPRODUCED,
    assign_robustness,
)

SYN_REFERENCE = {
    "min_repetitions": 20,
    "claims": {
        "dcm_beats_baselines": {
            "text": "DCM beats DICA and COIR.",
            "source": "Table 3",
            "z": 2.0,
            "chance_margin": 0.05,
        }
    },
}
SYN_PRIMARY = {"centring": "centred", "classifier": "rbf", "b_scale": "gaussian"}


def synthetic_runs(dcm_gain, n_reps=20, seed=0):
    """Runs of two readings (centring) × one (η, γ): DCM − baselines = ``dcm_gain[centring]``."""
    rng = np.random.default_rng(seed)
    rows = []
    for centring, gain in dcm_gain.items():
        for repetition in range(n_reps):
            base = 0.7 + 0.02 * rng.normal()
            accuracy = {
                "svm": base,
                "coir": base + 0.002 * rng.normal(),
                "dica": base + 0.002 * rng.normal(),
                "dcm": base + gain + 0.002 * rng.normal(),
            }
            rows += [
                {
                    "centring": centring,
                    "classifier": "rbf",
                    "b_scale": "gaussian",
                    "eta": 0.2,
                    "gamma": 0.1,
                    "repetition": repetition,
                    "method": method,
                    "accuracy": value,
                    "status": "ok",
                }
                for method, value in accuracy.items()
            ]
    runs = pd.DataFrame(rows)
    return dcm_synthetic.aggregate(runs), runs


def test_synthetic_one_verdict_per_reading_primary_marked_and_fragile():
    table, runs = synthetic_runs({"centred": 0.05, "uncentred": -0.05})
    section = synthetic_section(table, runs, SYN_REFERENCE, primary=SYN_PRIMARY, scale="paper")
    by_reading = {v.protocol: v for v in section.verdicts}
    centred = by_reading["centring=centred, classifier=rbf, b_scale=gaussian"]
    uncentred = by_reading["centring=uncentred, classifier=rbf, b_scale=gaussian"]
    assert (centred.verdict, centred.primary, centred.n_repetitions) == (REPRODUCED, True, 20)
    assert (uncentred.verdict, uncentred.primary) == (NOT_REPRODUCED, False)
    assert {v.robustness for v in assign_robustness(section.verdicts)} == {"fragile"}


def test_synthetic_ties_are_inconclusive_and_few_repetitions_demote():
    table, runs = synthetic_runs({"centred": 0.0})
    (record,) = synthetic_section(
        table, runs, SYN_REFERENCE, primary=SYN_PRIMARY, scale="paper"
    ).verdicts
    assert record.verdict == INCONCLUSIVE
    table, runs = synthetic_runs({"centred": 0.05}, n_reps=5)
    (record,) = synthetic_section(
        table, runs, SYN_REFERENCE, primary=SYN_PRIMARY, scale="quick"
    ).verdicts
    assert (record.verdict, record.n_repetitions, record.min_repetitions) == (INCONCLUSIVE, 5, 20)
    assert "reproduced" in record.detail  # what it would read at enough repetitions


def test_synthetic_chance_level_settings_are_left_out():
    table, runs = synthetic_runs({"centred": 0.05})
    runs = runs.assign(accuracy=runs["accuracy"] - 0.2)  # every method near 0.5
    table = dcm_synthetic.aggregate(runs)
    (record,) = synthetic_section(
        table, runs, SYN_REFERENCE, primary=SYN_PRIMARY, scale="paper"
    ).verdicts
    assert record.verdict == INCONCLUSIVE
    assert "uninformative" in record.detail


def test_fig2_draws_one_and_two_informative_components(tmp_path):
    from krepro.studies.dcm_synthetic.figures import plot_fig2

    rng = np.random.default_rng(0)
    rows = []
    for method, two in (("coir", False), ("dcm", True)):
        for split in ("train", "test"):
            y = rng.choice([-1, 1], 60)
            rows.append(
                pd.DataFrame(
                    {
                        "method": method,
                        "split": split,
                        "domain": rng.integers(0, 3, 60),
                        "y": y,
                        "z1": y + rng.normal(size=60),
                        "z2": rng.normal(size=60) if two else np.nan,
                    }
                )
            )
    plot_fig2(pd.concat(rows, ignore_index=True), tmp_path / "fig2.png")
    assert (tmp_path / "fig2.png").stat().st_size > 0
