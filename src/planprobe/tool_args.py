"""Parsing and checking tool-call arguments against a tool's JSON schema.

Agents send arguments as text; anything that is not a JSON object is
"malformed", anything that does not fit the tool's schema is "invalid" — both
Act Errors. The environment and the oracles share these two functions so a
call is judged the same way live and offline. Only the schema subset the
families use is supported (object, typed properties, integer bounds, enum,
required, additionalProperties: false), which keeps the check fast.
"""

from __future__ import annotations

import json
from typing import Any

from .lenient_json import loads

_TYPES = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


def parse_arguments(raw: str | dict | None) -> dict[str, Any] | None:
    """The arguments as a dict, or None when they are not a JSON object.
    An empty string means no arguments (some servers send "" for {})."""
    if isinstance(raw, dict):
        return raw
    if raw is None:
        return {}
    text = raw.strip()
    if text == "" or text == "{}":
        return {}
    try:
        value = loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def validate_arguments(schema: dict[str, Any], args: dict[str, Any]) -> str | None:
    """None when ``args`` fits ``schema``, else one sentence saying what is wrong."""
    props: dict[str, Any] = schema.get("properties", {})
    for name in schema.get("required", ()):
        if name not in args:
            return f"missing required argument '{name}'"
    if schema.get("additionalProperties", True) is False:
        for name in args:
            if name not in props:
                allowed = ", ".join(props) or "none"
                return f"unexpected argument '{name}' (allowed: {allowed})"
    for name, value in args.items():
        spec = props.get(name)
        if spec is None:
            continue
        problem = _check_value(spec, value)
        if problem:
            return f"argument '{name}' {problem}"
    return None


def _check_value(spec: dict[str, Any], value: Any) -> str | None:
    kind = spec.get("type")
    if kind is not None:
        ok_types = _TYPES.get(kind, ())
        if isinstance(value, bool) and kind in ("integer", "number"):
            return f"must be {kind}, got a boolean"
        if kind == "integer" and isinstance(value, float) and value.is_integer():
            value = int(value)
        if ok_types and not isinstance(value, ok_types):
            return f"must be {kind}, got {json.dumps(value)[:40]}"
    if "enum" in spec and value not in spec["enum"]:
        return f"must be one of {spec['enum']}, got {json.dumps(value)[:40]}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in spec and value < spec["minimum"]:
            return f"must be at least {spec['minimum']}, got {value}"
        if "maximum" in spec and value > spec["maximum"]:
            return f"must be at most {spec['maximum']}, got {value}"
    return None
