"""Reading the workflow config: a size guard, and command-line overrides typed by the schema.

A YAML file of a few hundred bytes can stand for a structure of billions of values: an anchor
(``&a``) names a list, an alias (``*a``) repeats it, and nine levels of nine aliases each make
9⁹ leaves ("billion laughs"). Loading it is cheap, since every alias shares one object, but
anything that walks the structure as a tree (schema validation, an error message that prints
the instance, a copy) does not finish. :func:`check_config_size` measures the tree each config
file and the merged config stand for without expanding it, and refuses one that is too large
or refers to itself, naming the file, before anything else reads the config.

Snakemake parses a nested ``--config`` value with YAML's ``BaseLoader``:
``--config 'study={"n_repetitions": 5}'`` gives ``{"study": {"n_repetitions": "5"}}``, every
leaf a string, which a strict schema then rejects. :func:`coerce_config` walks the JSON schema
beside the config and reads each string leaf the way YAML reads the same text in a config
file, keeping the result only where the schema allows its type. Strings the schema does not
accept are left as they are, so that validation still rejects them and names the key.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path

import yaml
from jsonschema import validators

__all__ = [
    "MAX_CONFIG_BYTES",
    "MAX_CONFIG_VALUES",
    "ConfigSizeError",
    "check_config_size",
    "coerce_config",
    "expanded_size",
    "load_schema",
]

# The shipped configs are about 15 KB and 700 values (keys, containers and scalars) each:
# these limits leave room for grids a hundred times longer and stop an alias bomb at once.
MAX_CONFIG_BYTES = 1 << 20
MAX_CONFIG_VALUES = 100_000

_JSON_TYPES = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    type(None): "null",
    list: "array",
    dict: "object",
}


def load_schema(schema):
    """The JSON schema as a mapping: ``schema`` itself, or the YAML/JSON file it names."""
    if isinstance(schema, Mapping):
        return schema
    with open(schema, encoding="utf-8") as handle:  # libyaml's parser where PyYAML has it
        loaded = yaml.load(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    if not isinstance(loaded, Mapping):
        raise ValueError(f"schema file {Path(schema)} does not hold a mapping.")
    return loaded


class ConfigSizeError(ValueError):
    """A config file or the merged config is too large, or refers to itself."""


def expanded_size(value) -> int:
    """Number of values ``value`` holds when every shared object is counted where it appears.

    This is the size of the tree a walk of ``value`` visits (schema validation, printing,
    copying): every mapping, sequence, key and scalar counts one, and an object that YAML
    aliases put in several places counts at each of them. It is computed once per distinct
    object (memoised by identity), so the time is proportional to the objects loaded, not to
    the tree they stand for.

    Parameters
    ----------
    value : object
        A loaded config or part of one: mappings, lists, tuples, sets and scalars.

    Returns
    -------
    int
        The expanded size (exact, however large).

    Raises
    ------
    ConfigSizeError
        ``value`` contains itself (a recursive YAML alias such as ``a: &a [*a]``), or is
        nested too deeply to walk.

    Examples
    --------
    >>> shared = ["x"] * 9
    >>> expanded_size([shared] * 9)  # 1 outer list + 9 × (1 inner list + 9 strings)
    91
    """
    sizes: dict[int, int] = {}
    active: set[int] = set()

    def measure(node) -> int:
        if isinstance(node, Mapping):
            children = [*node.keys(), *node.values()]
        elif isinstance(node, (list, tuple, set, frozenset)):
            children = node
        else:
            return 1
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in active:
            raise ConfigSizeError("it contains itself (a recursive YAML alias)")
        active.add(key)
        total = 1 + sum(measure(child) for child in children)
        active.discard(key)
        sizes[key] = total
        return total

    try:
        return measure(value)
    except RecursionError:
        raise ConfigSizeError("it is nested too deeply to be walked") from None


def _load_yaml_file(path):
    """A config file as YAML reads it, or ``None`` where safe YAML cannot read it."""
    with open(path, encoding="utf-8") as handle:
        try:
            return yaml.safe_load(handle)
        except yaml.YAMLError:
            return None


def check_config_size(
    config, files=(), *, max_bytes=MAX_CONFIG_BYTES, max_values=MAX_CONFIG_VALUES
) -> None:
    """Refuse config files, and a merged config, too large to validate or to walk.

    Each file is checked first, so that the error names the one at fault: its size in bytes,
    then the size of the structure it holds with every YAML alias expanded
    (:func:`expanded_size`). Then the merged ``config`` itself is measured, which also covers
    ``--config`` values (Snakemake reads those as YAML too, aliases included). Nothing is
    expanded, so an alias bomb is refused in milliseconds.

    Parameters
    ----------
    config : mapping
        The workflow config as Snakemake merged it (config files, then ``--config``).
    files : iterable of path-like
        The config files it came from (Snakemake's ``workflow.configfiles``). A file safe YAML
        cannot read is not measured on its own (Snakemake read it, and the merged config is
        still measured); a missing one is skipped.
    max_bytes : int, default MAX_CONFIG_BYTES
        Largest config file accepted, in bytes.
    max_values : int, default MAX_CONFIG_VALUES
        Largest expanded size accepted, for each file and for the merged config.

    Raises
    ------
    ConfigSizeError
        Naming the file (or "the merged config"), its size and the limit.
    """
    advice = (
        "Config values are counted with every YAML alias (*name) expanded; a config this"
        " large is a mistake or an alias bomb ('billion laughs'). Remove the aliases or"
        " shorten the lists."
    )
    for path in map(Path, files):
        if not path.is_file():
            continue
        n_bytes = path.stat().st_size
        if n_bytes > max_bytes:
            raise ConfigSizeError(
                f"config file {path} has {n_bytes} bytes, more than the {max_bytes} allowed."
            )
        _check_values(_load_yaml_file(path), f"config file {path}", max_values, advice)
    _check_values(config, "the merged config (config files and --config)", max_values, advice)


def _check_values(value, what, max_values, advice):
    try:
        size = expanded_size(value)
    except ConfigSizeError as error:
        raise ConfigSizeError(f"{what} cannot be read: {error}.") from None
    if size > max_values:
        raise ConfigSizeError(
            f"{what} holds {size:,} values, more than the {max_values:,} allowed. {advice}"
        )


def coerce_config(config, schema):
    """Convert the string leaves of ``config`` to the types ``schema`` asks for.

    Parameters
    ----------
    config : mapping
        The workflow config, e.g. Snakemake's ``config`` after ``--config`` overrides.
    schema : mapping or path-like
        JSON schema of the config (draft 2020-12), or the YAML/JSON file holding it. Local
        ``$ref`` (``#/...``), ``properties``, ``patternProperties``,
        ``additionalProperties``, ``items``, ``prefixItems``, ``allOf``, ``anyOf`` and
        ``oneOf`` are followed.

    Returns
    -------
    dict
        A new config (``config`` is not modified). A string leaf whose schema does not allow
        strings becomes the value YAML reads from it (``"5"`` → 5, ``"0.5"`` → 0.5,
        ``"1e-3"`` → 0.001, ``"true"`` → True, ``"null"`` → None) if the schema allows that
        value's type; otherwise it stays a string and validation reports the key.

    Examples
    --------
    >>> schema = {"properties": {"study": {"properties": {"n_repetitions": {"type": "integer"}}}}}
    >>> coerce_config({"study": {"n_repetitions": "5"}}, schema)
    {'study': {'n_repetitions': 5}}
    """
    root = load_schema(schema)
    if not isinstance(config, Mapping):
        raise ValueError(f"config must be a mapping, got {type(config).__name__}.")
    validator = validators.validator_for(root)(root)
    return _coerce(dict(config), root, root, validator)


def _resolve(schema, root):
    """Follow local ``$ref`` pointers; sibling keywords of a ``$ref`` are kept."""
    seen = set()
    while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        if not ref.startswith("#") or ref in seen:
            return schema
        seen.add(ref)
        target = root
        for part in ref[1:].split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(target, list):
                target = target[int(part)]
            elif isinstance(target, Mapping) and part in target:
                target = target[part]
            else:
                return schema
        siblings = {key: value for key, value in schema.items() if key != "$ref"}
        schema = {**target, **siblings} if isinstance(target, Mapping) else target
    return schema


def _allowed_types(schema):
    """JSON types the schema admits (``None``: no constraint)."""
    declared = schema.get("type")
    if isinstance(declared, str):
        return {declared}
    if isinstance(declared, list):
        return set(declared)
    values = (
        schema["enum"] if "enum" in schema else [schema["const"]] if "const" in schema else None
    )
    if values is None:
        return None
    return {_JSON_TYPES.get(type(value), "string") for value in values}


def _coerce(value, schema, root, validator):
    schema = _resolve(schema, root)
    if not isinstance(schema, Mapping):  # the boolean schemas true / false
        return value
    for branch in schema.get("allOf", []):
        value = _coerce(value, branch, root, validator)
    for keyword in ("anyOf", "oneOf"):
        if keyword in schema:
            for branch in schema[keyword]:
                candidate = _coerce(value, branch, root, validator)
                if validator.evolve(schema=branch).is_valid(candidate):
                    value = candidate
                    break
    if isinstance(value, str):
        return _coerce_string(value, schema, root, validator)
    if isinstance(value, Mapping):
        return {
            key: _coerce(item, _property_schema(schema, key), root, validator)
            for key, item in value.items()
        }
    if isinstance(value, list):
        prefix = schema.get("prefixItems", [])
        items = schema.get("items", True)
        return [
            _coerce(item, prefix[i] if i < len(prefix) else items, root, validator)
            for i, item in enumerate(value)
        ]
    return value


def _property_schema(schema, key):
    """The subschema that applies to property ``key`` of an object."""
    properties = schema.get("properties", {})
    if key in properties:
        return properties[key]
    for pattern, subschema in schema.get("patternProperties", {}).items():
        if re.search(pattern, str(key)):
            return subschema
    return schema.get("additionalProperties", True)


def _coerce_string(text, schema, root, validator):
    allowed = _allowed_types(schema)
    if allowed is None or "string" in allowed:
        return text
    try:
        parsed = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    kind = _JSON_TYPES.get(type(parsed))
    if kind == "integer" and not allowed & {"integer", "number"}:
        return text
    if kind == "integer" or (kind == "boolean" and "boolean" in allowed):
        return parsed
    if kind == "null" and "null" in allowed:
        return None
    if kind in ("array", "object") and kind in allowed:
        return _coerce(parsed, schema, root, validator)
    if allowed & {"integer", "number"}:
        # YAML 1.1 reads "1e-3" (no dot) as a string; Python's float does not.
        number = parsed if kind == "number" else _float_or_none(text)
        if number is not None and math.isfinite(number):
            if "number" in allowed:
                return number
            if number.is_integer():
                return int(number)
    return text


def _float_or_none(text):
    try:
        return float(text)
    except ValueError:
        return None
