"""krepro.workflow.configuration.coerce_config: `--config` strings typed by the config schema."""

from __future__ import annotations

import copy
from pathlib import Path

import jsonschema
import pytest
import yaml

from krepro.workflow.configuration import coerce_config, load_schema

REPO = Path(__file__).resolve().parents[1]
SCHEMA_FILE = REPO / "workflow" / "schemas" / "config.schema.yaml"


def as_command_line(config):
    """What Snakemake makes of a `--config` value: YAML BaseLoader, every leaf a string."""
    return yaml.load(yaml.safe_dump(config), Loader=yaml.BaseLoader)


def deep_merge(base, overlay):
    merged = copy.deepcopy(base)
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


@pytest.fixture(scope="module")
def schema():
    return load_schema(SCHEMA_FILE)


@pytest.fixture(scope="module")
def default_config():
    with open(REPO / "config" / "config.yaml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)


@pytest.mark.parametrize("overlay", [None, "paper.yaml"])
def test_every_config_given_as_strings_reads_back_as_the_yaml_file(overlay, schema, default_config):
    """Oracle: the config files themselves, every leaf turned into a string as `--config`
    would pass it, coerce back to exactly what YAML reads from the files."""
    config = default_config
    if overlay:
        with open(REPO / "config" / overlay, encoding="utf-8") as handle:
            config = deep_merge(config, yaml.safe_load(handle))
    strings = as_command_line(config)
    assert strings != config  # the oracle is not trivial: leaves really are strings
    coerced = coerce_config(strings, SCHEMA_FILE)
    assert coerced == config
    jsonschema.validate(coerced, schema)


def test_the_issue_example_is_typed_and_the_input_is_not_modified(schema, default_config):
    config = deep_merge(default_config, as_command_line({"ridge": {"n_repetitions": 5}}))
    before = copy.deepcopy(config)
    coerced = coerce_config(config, schema)
    assert coerced["ridge"]["n_repetitions"] == 5
    assert type(coerced["ridge"]["n_repetitions"]) is int
    assert config == before


@pytest.mark.parametrize(
    ("subschema", "text", "expected"),
    [
        ({"type": "integer"}, "5", 5),
        ({"type": "integer"}, "-7", -7),
        ({"type": "integer"}, "5.0", 5),
        ({"type": "number"}, "5", 5),
        ({"type": "number"}, "0.25", 0.25),
        ({"type": "number"}, "1e-3", 1e-3),  # YAML 1.1 keeps this a string; Python does not
        ({"type": "number"}, "-2.5E+2", -250.0),
        ({"type": "boolean"}, "true", True),
        ({"type": "boolean"}, "False", False),
        ({"type": "null"}, "null", None),
        ({"type": ["integer", "null"]}, "~", None),
        ({"type": ["integer", "null"]}, "3", 3),
        ({"type": "string"}, "5", "5"),
        ({"type": ["string", "integer"]}, "5", "5"),
        ({}, "5", "5"),  # no type constraint: nothing to coerce to
        ({"enum": [1, 2]}, "2", 2),
        ({"enum": ["1", "2"]}, "2", "2"),
        ({"const": 0.5}, "0.5", 0.5),
        ({"type": "array", "items": {"type": "integer"}}, "[1, 2]", [1, 2]),
    ],
)
def test_scalar_leaves(subschema, text, expected):
    schema = {"type": "object", "properties": {"key": subschema}}
    coerced = coerce_config({"key": text}, schema)["key"]
    assert coerced == expected
    assert type(coerced) is type(expected)


@pytest.mark.parametrize(
    ("subschema", "text"),
    [
        ({"type": "integer"}, "abc"),
        ({"type": "integer"}, "2.5"),
        ({"type": "integer"}, "true"),  # a boolean is not an integer here
        ({"type": "number"}, "nan"),
        ({"type": "number"}, "inf"),
        ({"type": "boolean"}, "1"),
        ({"type": "null"}, "none"),
        ({"type": "array", "items": {"type": "integer"}}, "{a: 1}"),
        ({"type": "integer"}, "[unclosed"),
    ],
)
def test_strings_of_the_wrong_type_stay_strings_and_validation_names_the_key(subschema, text):
    schema = {"type": "object", "properties": {"outer": {"properties": {"key": subschema}}}}
    coerced = coerce_config({"outer": {"key": text}}, schema)
    assert coerced == {"outer": {"key": text}}
    with pytest.raises(jsonschema.ValidationError) as error:
        jsonschema.validate(coerced, schema)
    assert list(error.value.absolute_path) == ["outer", "key"]


def test_bad_value_in_the_real_schema_is_reported_with_its_path(schema, default_config):
    config = deep_merge(default_config, {"ridge": {"n_repetitions": "abc"}})
    coerced = coerce_config(config, schema)
    with pytest.raises(jsonschema.ValidationError) as error:
        jsonschema.validate(coerced, schema)
    assert list(error.value.absolute_path) == ["ridge", "n_repetitions"]
    assert "'abc' is not of type 'integer'" in error.value.message


def test_nested_objects_arrays_refs_and_additional_properties():
    schema = {
        "$defs": {"count": {"type": "integer", "minimum": 1}, "pair": {"$ref": "#/$defs/count"}},
        "type": "object",
        "properties": {
            "grid": {"type": "array", "items": {"type": "number"}},
            "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "boolean"}]},
            "n": {"$ref": "#/$defs/pair"},
            "variants": {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "properties": {"noise": {"type": "number"}, "lo": {"type": "integer"}},
                },
            },
            "by_pattern": {
                "type": "object",
                "patternProperties": {"^n_": {"type": "integer"}, "^flag_": {"type": "boolean"}},
            },
        },
    }
    config = {
        "grid": ["0", "0.5", "1"],
        "pair": ["3", "yes"],
        "n": "4",
        "variants": {"a": {"noise": "0.1", "lo": "-5"}, "b": {"noise": "1"}},
        "by_pattern": {"n_x": "2", "flag_y": "false", "other": "2"},
    }
    assert coerce_config(config, schema) == {
        "grid": [0, 0.5, 1],
        "pair": [3, True],
        "n": 4,
        "variants": {"a": {"noise": 0.1, "lo": -5}, "b": {"noise": 1}},
        "by_pattern": {"n_x": 2, "flag_y": False, "other": "2"},
    }


def test_one_of_and_any_of_pick_the_branch_that_validates():
    schema = {
        "type": "object",
        "properties": {
            "size": {"oneOf": [{"type": "integer", "minimum": 1}, {"enum": ["auto"]}]},
            "level": {"anyOf": [{"type": "number", "maximum": 1}, {"type": "boolean"}]},
            "shape": {
                "oneOf": [
                    {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
                    {"type": "array", "items": {"type": "number"}},
                ]
            },
            "both": {"allOf": [{"type": "integer"}, {"minimum": 0}]},
        },
    }
    coerce = coerce_config
    assert coerce({"size": "5"}, schema) == {"size": 5}
    assert coerce({"size": "auto"}, schema) == {"size": "auto"}
    assert coerce({"size": "0"}, schema) == {"size": "0"}  # no branch accepts 0: reported later
    assert coerce({"level": "0.5"}, schema) == {"level": 0.5}
    assert coerce({"level": "true"}, schema) == {"level": True}
    assert coerce({"shape": {"n": "3"}}, schema) == {"shape": {"n": 3}}
    assert coerce({"shape": ["1", "2.5"]}, schema) == {"shape": [1, 2.5]}
    assert coerce({"both": "7"}, schema) == {"both": 7}


def test_typed_values_are_left_alone():
    schema = {"type": "object", "properties": {"x": {"type": "number"}, "b": {"type": "boolean"}}}
    assert coerce_config({"x": 3, "b": True, "extra": [1]}, schema) == {
        "x": 3,
        "b": True,
        "extra": [1],
    }


def test_arguments_are_checked(tmp_path):
    with pytest.raises(ValueError, match="config must be a mapping"):
        coerce_config(["not", "a", "mapping"], {})
    path = tmp_path / "schema.yaml"
    path.write_text("- a list\n", encoding="utf-8")
    with pytest.raises(ValueError, match="does not hold a mapping"):
        load_schema(path)
