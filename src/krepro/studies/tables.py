"""Table helpers: Markdown rendering."""

from __future__ import annotations

import numpy as np

__all__ = ["markdown_table"]


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
