"""The scorecard's Markdown (:func:`krepro.studies.render.scorecard`) as reStructuredText.

Kept apart from the Sphinx extension (:mod:`krepro_scorecard`) so that the tests can check
the conversion without Sphinx installed.
"""

from __future__ import annotations

import re

_LINK = re.compile(r"\[([^\]]+)\]\(#[^)]*\)")
_CODE = re.compile(r"(?<!`)`([^`]+)`(?!`)")


def rst_cell(text: str) -> str:
    """A Markdown table cell as reStructuredText inline text."""
    text = _LINK.sub(r"\1", text.strip())
    text = _CODE.sub(r"``\1``", text)
    return text or "\\ "


def _split_row(line: str) -> list[str]:
    return [part for part in line.strip().strip("|").split(" | ")]


def markdown_tables_to_rst(markdown: str) -> list[str]:
    """Pipe tables, block quotes and paragraphs of the scorecard as reStructuredText lines."""
    out: list[str] = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("|"):
            block = []
            while i < len(lines) and lines[i].startswith("|"):
                block.append(lines[i])
                i += 1
            header, body = _split_row(block[0]), [_split_row(row) for row in block[2:]]
            out += [".. list-table::", "   :header-rows: 1", "   :class: krepro-scorecard", ""]
            for row in [header, *body]:
                for j, text in enumerate(row):
                    out.append(("   * - " if j == 0 else "     - ") + rst_cell(text))
            out.append("")
            continue
        if line.startswith("#"):
            pass  # the page has its own heading
        elif line.startswith("> "):
            out += [".. note::", "", "   " + rst_cell(line[2:]), ""]
        elif line.strip():
            out += [rst_cell(line), ""]
        i += 1
    return out
