"""Fig. 2 of the DCM synthetic study (krepro.studies.dcm_synthetic.figures)."""

from __future__ import annotations

import numpy as np
import pandas as pd


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


def test_fig2_orients_z1_by_the_training_class_means():
    from krepro.studies.dcm_synthetic.figures import orient_by_label

    y = np.array([-1, -1, 1, 1, -1, 1])
    z = np.array([1.0, 2.0, -1.0, -2.0, 0.5, -0.5])
    frame = pd.DataFrame(
        {
            "method": ["coir"] * 4 + ["dcm"] * 2 + ["coir"] * 2,
            "split": ["train"] * 6 + ["test"] * 2,
            "y": np.r_[y, [-1, 1]],
            "z1": np.r_[z[:4], -z[4:], [3.0, -3.0]],
        }
    )
    out = orient_by_label(frame)
    for method in ("coir", "dcm"):
        train = out[(out["method"] == method) & (out["split"] == "train")]
        assert train.loc[train["y"] == 1, "z1"].mean() > train.loc[train["y"] == -1, "z1"].mean()
    # the test points of a method flip with its training points
    assert list(out.loc[out["split"] == "test", "z1"]) == [-3.0, 3.0]
