"""Table helpers: Markdown rendering and paper-style layouts."""

from __future__ import annotations

import numpy as np

__all__ = ["markdown_table", "ridge_wide"]


def _format(value, digits):
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value):
            return "–"
        return (
            f"{value:.{digits}g}"
            if abs(value) >= 1e4 or abs(value) < 1e-3
            else (f"{value:.{digits}f}".rstrip("0").rstrip(".") if digits else f"{value:.0f}")
        )
    return str(value)


def markdown_table(frame, digits=3):
    """Render a DataFrame as a GitHub Markdown table (no extra dependency)."""
    header = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "|" + "|".join(" --- " for _ in frame.columns) + "|"
    rows = [
        "| " + " | ".join(_format(v, digits) for v in row) + " |"
        for row in frame.itertuples(index=False)
    ]
    return "\n".join([header, rule, *rows])


def ridge_wide(table, variant, experiment):
    """Fig. 4 as a table: one row per γ, "mean ± sd" per method."""
    part = table[(table["variant"] == variant) & (table["experiment"] == experiment)]
    cells = part.assign(
        value=[f"{m:.3g} ± {s:.2g}" for m, s in zip(part["mse_mean"], part["mse_sd"], strict=True)]
    )
    wide = cells.pivot(index="gamma", columns="method", values="value")
    methods = [m for m in ("KRR", "ORR", "M-ORR") if m in wide.columns]
    return wide[methods].reset_index().rename(columns={"gamma": "γ"})
