"""Figures of the oblivious-data paper, drawn from aggregate CSVs only."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

from krepro.records import publish

__all__ = ["save_figure"]


def save_figure(fig, path):
    """Save atomically: render to a temporary file next to ``path``, then rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=path.suffix)
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=150, bbox_inches="tight")
        publish(tmp, path)
    finally:
        plt.close(fig)
        if os.path.exists(tmp):
            os.unlink(tmp)
