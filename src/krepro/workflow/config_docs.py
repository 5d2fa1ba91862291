"""The key table of ``config/README.md``, generated from the config schema.

Every config key is documented once: its meaning is the ``description`` and its quick-scale
value the ``default`` of ``workflow/schemas/config.schema.yaml`` (``config/config.yaml``
sets the same values; ``tests/workflow/test_config_docs.py`` fails where they differ), and
the papers' scale changes only what ``config/paper.yaml`` sets. The README's key tables are
rendered from these, never typed by hand: ``python -m krepro.workflow.config_docs --write
config/README.md`` rewrites the README's generated block after a schema edit, ``--check``
exits 1 while it is stale.

Keys are dotted (``<section>.partition.low``); a mapping of named entries (the schema's
``additionalProperties``) is written ``<name>`` (``<section>.variants.<name>.noise_variance``),
and its values are listed per entry (``paper_text: 0.1; authors_code: 0.01``).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Iterator, Mapping
from itertools import pairwise
from pathlib import Path

import yaml

from krepro.workflow.configuration import load_schema
from krepro.workflow.readme_blocks import replace_between, update_block

__all__ = [
    "ENTRY",
    "README_BEGIN",
    "README_END",
    "deep_merge",
    "format_value",
    "readme_block",
    "replace_block",
    "schema_defaults",
    "schema_keys",
]

#: The README's generated block lies between these two lines.
README_BEGIN = (
    "<!-- keys: generated from workflow/schemas/config.schema.yaml by"
    " `python -m krepro.workflow.config_docs --write config/README.md`; do not edit by hand -->"
)
README_END = "<!-- /keys -->"

#: Stands for the name of an entry of a mapping of named entries in a dotted key.
ENTRY = "<name>"


def schema_keys(schema: Mapping, prefix: tuple = ()) -> Iterator[tuple[tuple, Mapping]]:
    """Every key of ``schema`` as ``(path, subschema)``, depth first, in schema order.

    ``path`` is the tuple of key names; the entries of a mapping of named entries
    (``additionalProperties`` with ``properties``) are :data:`ENTRY`.

    Examples
    --------
    >>> leaf = {"description": "Var ε."}
    >>> schema = {"properties": {"study": {"properties": {
    ...     "variants": {"additionalProperties": {"properties": {"noise_variance": leaf}}}}}}}
    >>> [".".join(path) for path, _ in schema_keys(schema)]
    ['study', 'study.variants', 'study.variants.<name>.noise_variance']
    """
    for name, sub in schema.get("properties", {}).items():
        path = (*prefix, name)
        yield path, sub
        yield from schema_keys(sub, path)
        entry = sub.get("additionalProperties")
        if isinstance(entry, Mapping):
            yield from schema_keys(entry, (*path, ENTRY))


def schema_defaults(schema: Mapping) -> dict:
    """The config the schema's defaults make: ``default``, else the nested keys' defaults.

    Examples
    --------
    >>> schema_defaults({"properties": {"seed": {"default": 1}, "study": {"properties": {
    ...     "n_train": {"default": 500}, "gammas": {"type": "array"}}}}})
    {'seed': 1, 'study': {'n_train': 500}}
    """
    defaults = {}
    for name, sub in schema.get("properties", {}).items():
        if "default" in sub:
            defaults[name] = sub["default"]
        elif "properties" in sub:
            defaults[name] = schema_defaults(sub)
    return defaults


def deep_merge(base: Mapping, overlay: Mapping) -> dict:
    """``base`` with ``overlay``'s values, nested mappings merged (as Snakemake merges
    ``--configfile``)."""
    merged = dict(base)
    for key, value in overlay.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            value = deep_merge(merged[key], value)
        merged[key] = value
    return merged


def format_value(value) -> str:
    """A config value as the table shows it: YAML-like, long even progressions shortened.

    Examples
    --------
    >>> format_value([0.0, 0.25, 0.5, 0.75, 1.0])
    '[0.0, 0.25, …, 1.0]'
    >>> format_value([100, 200, 400, 800, 1600])
    '[100, 200, …, 1600]'
    >>> format_value([1.0e-3, 2, "rbf", True])
    '[0.001, 2, rbf, true]'
    >>> format_value(1.0e-8), format_value("quick")
    ('1e-8', '`quick`')
    """
    if isinstance(value, str):
        return f"`{value}`"
    if isinstance(value, list):
        items = [_scalar(item) for item in value]
        if len(value) > 4 and _even(value):
            items = [items[0], items[1], "…", items[-1]]
        return f"[{', '.join(items)}]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{key}: {_scalar(item)}" for key, item in value.items()) + "}"
    return _scalar(value)


def _scalar(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        mantissa, _, exponent = repr(value).partition("e")
        return f"{mantissa}e{int(exponent)}" if exponent else mantissa
    if isinstance(value, list | Mapping):
        return format_value(value)
    return str(value)


def _even(values: list) -> bool:
    """Whether ``values`` are numbers in arithmetic or geometric progression."""
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return False
    pairs = list(pairwise(values))
    steps = [b - a for a, b in pairs]
    if all(math.isclose(step, steps[0], rel_tol=1e-9, abs_tol=1e-12) for step in steps):
        return True
    if 0 in values:
        return False
    ratios = [b / a for a, b in pairs]
    return all(math.isclose(ratio, ratios[0], rel_tol=1e-9) for ratio in ratios)


_MISSING = object()


def _lookup(config, path: tuple):
    """The value at ``path`` of ``config``, or ``{entry: value}`` per entry where ``path``
    holds :data:`ENTRY` (entries without the key left out); ``_MISSING`` if absent."""
    for i, name in enumerate(path):
        if not isinstance(config, Mapping):
            return _MISSING
        if name == ENTRY:
            values = {entry: _lookup(item, path[i + 1 :]) for entry, item in config.items()}
            return {entry: value for entry, value in values.items() if value is not _MISSING}
        config = config.get(name, _MISSING)
    return config


def _cells(path: tuple, sub: Mapping, defaults: Mapping, paper: Mapping) -> tuple[str, str]:
    """The default and the ``paper.yaml`` cell of one key (the latter only where it differs)."""
    entries, is_map = ENTRY in path, isinstance(sub.get("additionalProperties"), Mapping)
    if "properties" in sub and "default" not in sub:
        return "", ""
    quick, papers = _lookup(defaults, path), _lookup(paper, path)
    if is_map or entries:
        quick, papers = (v if isinstance(v, Mapping) else {} for v in (quick, papers))
    if is_map:
        added = [name for name in papers if name not in quick]
        return ", ".join(f"`{name}`" for name in quick), " ".join(f"+ `{n}`" for n in added)
    if entries:
        own = sub.get("default", _MISSING)
        changed = {n: v for n, v in papers.items() if quick.get(n, own) != v}
        quick_text = format_value(own) if own is not _MISSING else _per_entry(quick)
        return quick_text, _per_entry(changed)
    if quick is _MISSING:
        return "unset", "" if papers is _MISSING else format_value(papers)
    return format_value(quick), "" if papers == quick else format_value(papers)


def _per_entry(values: Mapping) -> str:
    return "; ".join(f"`{name}`: {format_value(value)}" for name, value in values.items())


def _cell(text: str) -> str:
    """``text`` as one Markdown table cell: one line, ``|`` escaped."""
    return " ".join(text.split()).replace("|", r"\|")


def readme_block(schema: Mapping, paper_overlay: Mapping) -> str:
    """The README's key tables, between :data:`README_BEGIN` and :data:`README_END`.

    One table per top-level section of ``schema`` (the keys outside any section first),
    headed by the section's description: key, meaning (``description``), default and the
    value ``paper_overlay`` (``config/paper.yaml``) gives it where that differs.
    """
    defaults = schema_defaults(schema)
    paper = deep_merge(defaults, paper_overlay)
    header = ["| key | meaning | default | `paper.yaml` |", "|---|---|---|---|"]
    lines = [README_BEGIN]
    for path, sub in schema_keys(schema):
        top = len(path) == 1
        if top and "properties" in sub:
            intro = textwrap.wrap(" ".join(sub["description"].split()), width=92)
            lines += ["", f"### `{path[0]}`", "", *intro, "", *header]
            continue
        if top and lines[-1] == README_BEGIN:
            lines += ["", *header]
        quick, papers = _cells(path, sub, defaults, paper)
        cells = [f"`{'.'.join(path)}`", sub.get("description", ""), quick, papers]
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    lines += ["", README_END]
    return "\n".join(lines)


def replace_block(text: str, block: str) -> str:
    """``text`` with the lines from :data:`README_BEGIN` to :data:`README_END` replaced."""
    return replace_between(
        text, block, README_BEGIN, README_END, "config/README.md has no key block"
    )


def main(argv=None) -> int:
    """``python -m krepro.workflow.config_docs [--write | --check] [config/README.md]``."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("readme", nargs="?", default="config/README.md")
    parser.add_argument("--write", action="store_true", help="rewrite the README's block")
    parser.add_argument("--check", action="store_true", help="exit 1 if the block is stale")
    args = parser.parse_args(argv)
    readme = Path(args.readme)
    repo = readme.resolve().parent.parent
    schema = load_schema(repo / "workflow" / "schemas" / "config.schema.yaml")
    overlay = yaml.safe_load((repo / "config" / "paper.yaml").read_text(encoding="utf-8"))
    block = readme_block(schema, overlay)
    return update_block(
        readme,
        block,
        begin=README_BEGIN,
        end=README_END,
        what="config/README.md has no key block",
        write=args.write,
        check=args.check,
    )


if __name__ == "__main__":
    raise SystemExit(main())
