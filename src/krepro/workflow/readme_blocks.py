"""Generated blocks of hand-written Markdown files: a block between two marker lines that a
command rewrites (``--write``) or checks (``--check``), the rest of the file kept as is.

:mod:`krepro.workflow.run_times` (README.md's run-time table) and
:mod:`krepro.workflow.config_docs` (config/README.md's key tables) share it.
"""

from __future__ import annotations

from pathlib import Path

from krepro.records import atomic_write_text

__all__ = ["replace_between", "update_block"]


def replace_between(text: str, block: str, begin: str, end: str, what: str) -> str:
    """``text`` with everything from the line ``begin`` to the line ``end`` replaced by
    ``block`` (which holds both markers).

    Raises
    ------
    ValueError
        When ``text`` lacks the markers; ``what`` names the file and its block.
    """
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        raise ValueError(f"{what} (its begin and end markers).")
    return text[:start] + block + text[stop + len(end) :]


def update_block(
    path, block: str, *, begin: str, end: str, what: str, write: bool, check: bool
) -> int:
    """What the ``--write``/``--check`` commands do with a generated ``block`` of ``path``.

    Neither flag: print the block. ``check``: exit status 1 (and a line saying so) when the
    file's block differs. ``write``: rewrite the file atomically where it differs.
    """
    if not (write or check):
        print(block)
        return 0
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    updated = replace_between(text, block, begin, end, what)
    if check:
        if updated != text:
            print(f"{path}: the generated block is stale (--write rewrites it).")
        return int(updated != text)
    if updated != text:
        atomic_write_text(path, updated)
    return 0
