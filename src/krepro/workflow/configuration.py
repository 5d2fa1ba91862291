"""Command-line config overrides, typed by the config schema.

Snakemake parses a nested ``--config`` value with YAML's ``BaseLoader``:
``--config 'ridge={"n_repetitions": 5}'`` gives ``{"ridge": {"n_repetitions": "5"}}``, every
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

__all__ = ["coerce_config", "load_schema"]

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
    with open(schema, encoding="utf-8") as handle:
        loaded = yaml.safe_load(handle)
    if not isinstance(loaded, Mapping):
        raise ValueError(f"schema file {Path(schema)} does not hold a mapping.")
    return loaded


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
    >>> schema = {"properties": {"ridge": {"properties": {"n_repetitions": {"type": "integer"}}}}}
    >>> coerce_config({"ridge": {"n_repetitions": "5"}}, schema)
    {'ridge': {'n_repetitions': 5}}
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
