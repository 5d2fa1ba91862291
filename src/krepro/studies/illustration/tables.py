"""The illustration's table as the report shows it. The mean ± sd table itself
(:func:`krepro.studies.illustration.run.aggregate`) is an output of the sample job."""

from __future__ import annotations

from krepro.studies.illustration.run import MEASURES

__all__ = ["shown"]


def shown(table):
    """Mean ± sd over repetitions of each measure, one row per (setting, features)."""
    out = table[["setting", "features"]].copy()
    for measure in MEASURES:
        out[measure] = [
            f"{m:.3f} ± {s:.3f}"
            for m, s in zip(table[f"{measure}_mean"], table[f"{measure}_sd"], strict=True)
        ]
    out["reps"] = table["n_reps"]
    return out
