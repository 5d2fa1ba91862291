"""krepro.workflow.configuration: `--config` strings typed by the config schema (coerce_config);
config files and configs too large to walk refused (check_config_size)."""

from __future__ import annotations

import copy
import itertools
import time
from pathlib import Path

import jsonschema
import pytest
import yaml

from krepro.studies import STUDIES
from krepro.workflow.configuration import (
    MAX_CONFIG_BYTES,
    MAX_CONFIG_VALUES,
    ConfigSizeError,
    check_config_size,
    coerce_config,
    expanded_size,
    load_schema,
)

REPO = Path(__file__).resolve().parents[2]
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


def _repeated_section():
    """The first study section (registry order) with an integer ``n_repetitions``: the
    README's example of a nested ``--config`` value
    (``--config '<study>={"n_repetitions": 5}'``)."""
    sections = load_schema(SCHEMA_FILE)["properties"]
    return next(
        name
        for name in STUDIES
        if sections[name].get("properties", {}).get("n_repetitions", {}).get("type") == "integer"
    )


SECTION = _repeated_section()


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
    config = deep_merge(default_config, as_command_line({SECTION: {"n_repetitions": 5}}))
    before = copy.deepcopy(config)
    coerced = coerce_config(config, schema)
    assert coerced[SECTION]["n_repetitions"] == 5
    assert type(coerced[SECTION]["n_repetitions"]) is int
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
    config = deep_merge(default_config, {SECTION: {"n_repetitions": "abc"}})
    coerced = coerce_config(config, schema)
    with pytest.raises(jsonschema.ValidationError) as error:
        jsonschema.validate(coerced, schema)
    assert list(error.value.absolute_path) == [SECTION, "n_repetitions"]
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


# --------------------------------------------------------------------------- size guard


def alias_bomb(levels=9, width=9):
    """'Billion laughs': each level is a list of `width` aliases of the level before."""
    names = [f"l{level}" for level in range(levels)]
    lines = [f"{names[0]}: &{names[0]} [{', '.join(['lol'] * width)}]"]
    for previous, name in itertools.pairwise(names):
        lines.append(f"{name}: &{name} [{', '.join([f'*{previous}'] * width)}]")
    return "\n".join(lines) + "\n"


def bomb_size(levels=9, width=9):
    """Oracle of the bomb's expanded size: level 0 is a list of `width` strings, level k a list
    of `width` copies of level k − 1; the top mapping counts itself and each key."""
    sizes = [1 + width]
    for _ in range(levels - 1):
        sizes.append(1 + width * sizes[-1])
    return 1 + sum(1 + size for size in sizes)


def test_expanded_size_counts_shared_objects_where_they_appear():
    shared = {"k": [1, 2]}  # 1 mapping + 1 key + (1 list + 2 scalars) = 5
    assert expanded_size(shared) == 5
    assert expanded_size([shared, shared, "x"]) == 1 + 5 + 5 + 1
    assert expanded_size(7) == 1
    assert expanded_size({}) == 1


def test_expanded_size_measures_an_alias_bomb_without_expanding_it():
    text = alias_bomb()
    assert len(text.encode()) < 600
    loaded = yaml.safe_load(text)  # cheap: every alias is one shared object
    start = time.perf_counter()
    assert expanded_size(loaded) == bomb_size() > 4e8
    assert time.perf_counter() - start < 1.0  # about 100 distinct objects to visit


def test_recursive_alias_is_refused():
    loaded = yaml.safe_load("a: &a [1, *a]\n")
    with pytest.raises(ConfigSizeError, match="contains itself"):
        expanded_size(loaded)


def test_bomb_file_is_refused_naming_the_file(tmp_path, default_config):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(alias_bomb(), encoding="utf-8")
    config = {**default_config, **yaml.safe_load(bomb.read_text(encoding="utf-8"))}
    start = time.perf_counter()
    with pytest.raises(ConfigSizeError) as error:
        check_config_size(config, [REPO / "config" / "config.yaml", bomb])
    assert time.perf_counter() - start < 1.0
    message = str(error.value)
    assert f"config file {bomb} holds {bomb_size():,} values" in message
    assert f"{MAX_CONFIG_VALUES:,} allowed" in message


def test_bomb_in_a_config_option_is_refused_as_the_merged_config(default_config):
    """`--config '<study>=...'` values are YAML too: a bomb there is caught in the merge."""
    flow = "{" + alias_bomb().strip().replace("\n", ", ") + "}"
    override = yaml.load(flow, Loader=yaml.BaseLoader)  # how Snakemake reads --config values
    config = {**default_config, SECTION: override}
    with pytest.raises(ConfigSizeError, match=r"the merged config .* holds"):
        check_config_size(config, [REPO / "config" / "config.yaml"])


def test_large_and_self_referring_files_are_refused(tmp_path, default_config):
    big = tmp_path / "big.yaml"
    big.write_text("# padding\n" * 200, encoding="utf-8")
    with pytest.raises(ConfigSizeError, match=f"config file {big} has 2000 bytes, more than"):
        check_config_size({}, [big], max_bytes=1000)
    recursive = tmp_path / "recursive.yaml"
    recursive.write_text("a: &a {b: *a}\n", encoding="utf-8")
    with pytest.raises(ConfigSizeError, match=f"config file {recursive} cannot be read: it con"):
        check_config_size({}, [recursive])


@pytest.mark.parametrize(
    "name", ["config/config.yaml", "config/paper.yaml", "tests/config/tiny.yaml"]
)
def test_shipped_configs_are_far_below_the_limits(name, default_config):
    path = REPO / name
    check_config_size(default_config, [path])
    assert path.stat().st_size * 20 < MAX_CONFIG_BYTES
    assert expanded_size(yaml.safe_load(path.read_text(encoding="utf-8"))) * 20 < MAX_CONFIG_VALUES
