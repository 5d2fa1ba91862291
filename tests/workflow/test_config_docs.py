"""Each config fact once: the schema describes every key and holds config/config.yaml's values
as its defaults, and config/README.md's key tables are generated from it."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path

import pytest
import yaml

from krepro.workflow.config_docs import (
    ENTRY,
    readme_block,
    replace_block,
    schema_defaults,
    schema_keys,
)
from krepro.workflow.configuration import load_schema

REPO = Path(__file__).resolve().parents[2]
SCHEMA = load_schema(REPO / "workflow" / "schemas" / "config.schema.yaml")


def load_yaml(path):
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def same(a, b) -> bool:
    """``a == b`` with the types of the scalars compared too (1 is not 1.0, nor True)."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(same(a[key], b[key]) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(same, a, b))
    return type(a) is type(b) and a == b


def default_problems(config: Mapping, defaults: Mapping, prefix: str = "") -> list[str]:
    """Where ``config`` and the schema's defaults (:func:`schema_defaults`) disagree.

    Nested mappings are walked while the schema has no default for the whole mapping (a
    mapping of named entries has one); every other value, lists included, is compared whole.
    """
    problems = []
    for key in [*config, *(key for key in defaults if key not in config)]:
        name = f"{prefix}{key}"
        if key not in defaults:
            problems.append(f"{name}: config.yaml sets {config[key]!r}, the schema no default")
        elif key not in config:
            problems.append(f"{name}: the schema's default {defaults[key]!r} is not in config.yaml")
        elif isinstance(config[key], Mapping) and isinstance(defaults[key], Mapping):
            problems += default_problems(config[key], defaults[key], f"{name}.")
        elif not same(config[key], defaults[key]):
            problems.append(
                f"{name}: config.yaml {config[key]!r}, the schema's default {defaults[key]!r}"
            )
    return problems


def test_readme_key_tables_are_generated_from_the_schema():
    readme = (REPO / "config" / "README.md").read_text(encoding="utf-8")
    block = readme_block(SCHEMA, load_yaml(REPO / "config" / "paper.yaml"))
    assert replace_block(readme, block) == readme, (
        "config/README.md's key tables are stale: run"
        " `python -m krepro.workflow.config_docs --write config/README.md`"
    )


def test_schema_defaults_are_the_values_of_config_yaml():
    config = load_yaml(REPO / "config" / "config.yaml")
    problems = default_problems(config, schema_defaults(SCHEMA))
    assert problems == [], "\n".join(problems)


def test_every_schema_key_is_described():
    keys = [".".join(path) for path, _ in schema_keys(SCHEMA)]
    assert len(keys) > 250
    bare = [
        ".".join(path)
        for path, sub in schema_keys(SCHEMA)
        if not str(sub.get("description", "")).strip()
    ]
    assert bare == [], f"schema keys without a description: {bare}"


# --------------------------------------------------------------------------- the checks fail


# A section of each kind a study's has: scalars, a list, a mapping of named entries (whose
# default is the whole mapping), beside a top-level key.
SMALL_SCHEMA = {
    "properties": {
        "seed": {"default": 1},
        "study": {
            "properties": {
                "n_permutations": {"default": 50},
                "kernel_gamma": {"default": 1.0},
                "gammas": {"default": [0.0, 0.5, 1.0]},
                "variants": {
                    "additionalProperties": {"properties": {"noise_variance": {"default": 0.1}}},
                    "default": {"paper_text": {"noise_variance": 0.1}},
                },
            }
        },
    }
}


def test_a_disagreement_is_reported():
    config = copy.deepcopy(schema_defaults(SMALL_SCHEMA))
    assert default_problems(config, schema_defaults(SMALL_SCHEMA)) == []
    config["study"]["n_permutations"] = 200
    config["study"]["gammas"] = [0.0, 1.0]
    config["study"]["variants"]["paper_text"]["noise_variance"] = 0.2
    config["study"]["kernel_gamma"] = 1  # an int where the schema says 1.0
    del config["seed"]
    config["study"]["typo"] = 1
    assert sorted(default_problems(config, schema_defaults(SMALL_SCHEMA))) == [
        "seed: the schema's default 1 is not in config.yaml",
        "study.gammas: config.yaml [0.0, 1.0], the schema's default [0.0, 0.5, 1.0]",
        "study.kernel_gamma: config.yaml 1, the schema's default 1.0",
        "study.n_permutations: config.yaml 200, the schema's default 50",
        "study.typo: config.yaml sets 1, the schema no default",
        "study.variants.paper_text.noise_variance: config.yaml 0.2, the schema's default 0.1",
    ]


def test_a_stale_readme_block_is_detected():
    readme = (REPO / "config" / "README.md").read_text(encoding="utf-8")
    schema = load_yaml(REPO / "workflow" / "schemas" / "config.schema.yaml")
    schema["properties"]["seed"]["default"] = 999
    block = readme_block(schema, load_yaml(REPO / "config" / "paper.yaml"))
    assert replace_block(readme, block) != readme
    assert "| `seed` |" in block and "| 999 |" in block


def test_map_entries_are_listed_per_name():
    schema = {
        "properties": {
            "study": {
                "type": "object",
                "description": "A study.",
                "properties": {
                    "variants": {
                        "description": "Variants.",
                        "additionalProperties": {
                            "properties": {"noise_var": {"description": "Var ε."}}
                        },
                        "default": {"a": {"noise_var": 0.1}, "b": {"noise_var": 0.01}},
                    }
                },
            }
        }
    }
    block = readme_block(schema, {"study": {"variants": {"a": {"noise_var": 0.2}, "c": {}}}})
    assert [".".join(path) for path, _ in schema_keys(schema)][
        -1
    ] == f"study.variants.{ENTRY}.noise_var"
    assert "| `study.variants` | Variants. | `a`, `b` | + `c` |" in block
    assert (
        "| `study.variants.<name>.noise_var` | Var ε. | `a`: 0.1; `b`: 0.01 | `a`: 0.2 |" in block
    )


def test_a_missing_block_is_an_error():
    with pytest.raises(ValueError, match="no key block"):
        replace_block("# Configuration\n", "block")
