"""API-Bank's API interface definitions and how arguments reach an API.

``catalog.json`` holds, for each of the 53 level-1/2 APIs, the name, description and
input/output parameter declarations exactly as API-Bank's ``apis/*.py`` classes
declare them (its ToolSearcher returns these very dicts, so they must match
character for character), plus the database each API is built over and the
parameters its ``call`` requires. It is interface data of API-Bank (Apache-2.0).

``convert_arguments`` reproduces ``ToolManager.api_call``'s type handling: an
argument the API does not declare is refused ("invalid parameter name."), an
``int``/``float`` given as text must look like one, ``bool`` text is true only
when it reads ``True``. planprobe's agents send JSON, so values can also arrive
already typed; those are kept (see docs/api-bank.md, "Arguments").
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from ...schema import ToolSpec

# API-Bank's declared types -> the JSON schema type an agent is shown
_JSON_TYPE = {"str": "string", "int": "integer", "float": "number", "bool": "boolean",
              "list": "array", "list(str)": "array"}


class CallRefused(Exception):
    """The call never reached the API (API-Bank: an assertion or TypeError in ToolManager)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind  # API-Bank's error category: INVALID_INPUT_PARAMETER, MISS_INPUT_ARGUMENT …


@lru_cache(maxsize=1)
def catalog() -> dict[str, dict[str, Any]]:
    """Name -> definition for every level-1/2 API (ToolSearcher included)."""
    text = resources.files(__package__).joinpath("catalog.json").read_text(encoding="utf-8")
    return {d["name"]: d for d in json.loads(text)}


def public_definition(d: dict[str, Any]) -> dict[str, Any]:
    """What API-Bank shows of an API (ToolManager.get_api_description without the class)."""
    return {"name": d["name"], "description": d["description"], "input_parameters": d["input_parameters"],
            "output_parameters": d["output_parameters"]}


def tool_spec(d: dict[str, Any]) -> ToolSpec:
    """An API as a planprobe tool. Every declared parameter is offered; those the API's
    ``call`` requires are required. Numeric and boolean parameters also accept text,
    as API-Bank's call syntax always delivers text."""
    props: dict[str, Any] = {}
    for name, p in d["input_parameters"].items():
        kind = _JSON_TYPE.get(p.get("type", "str"), "string")
        prop: dict[str, Any] = {"description": p.get("description", "")}
        if kind == "string":
            prop["type"] = "string"
        elif kind == "array":
            prop["type"] = "array"
        # integer/number/boolean: left untyped so "3" and 3 both reach the API's own check
        props[name] = prop
    schema = {"type": "object", "properties": props, "required": list(d.get("required", [])),
              "additionalProperties": False}
    return ToolSpec(name=d["name"], description=d["description"], parameters=schema)


def _is_digits(text: str) -> bool:
    return text.isdigit()


# parameters API-Bank's ``call`` declares with a default of None: its result's ``input``
# carries them (as None) even when the call leaves them out
DEFAULT_NONE: dict[str, tuple[str, ...]] = {"ModifyRegistration": ("new_appointment_date", "new_appointment_doctor"),
                                            "RecordHealthData": ("health_data",)}


def lists_as_text(d: dict[str, Any] | None, args: dict[str, Any]) -> dict[str, Any]:
    """The arguments as API-Bank's own pipeline delivers them (the official reading): its
    parser never parses a list, and ``api_call`` passes list-typed values on unconverted,
    so a list reaches the API as text (here Python's text of the list)."""
    if not d:
        return args
    declared = d.get("input_parameters") or {}
    return {k: str(v) if str(declared.get(k, {}).get("type", "")).startswith("list") and not isinstance(v, str)
            else v for k, v in args.items()}


def convert_arguments(d: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """The arguments as the API's ``call`` receives them, or ``CallRefused``."""
    declared = d["input_parameters"]
    out: dict[str, Any] = {}
    for key, value in args.items():
        if key not in declared:
            raise CallRefused("INVALID_INPUT_PARAMETER", f"invalid parameter name. parameter: {key}")
        kind = declared[key].get("type", "str")
        if kind == "int":
            if isinstance(value, str):
                if not _is_digits(value):
                    raise CallRefused("INVALID_INPUT_PARAMETER", f"invalid parameter type. parameter: {value}")
                value = int(value)
            elif isinstance(value, float) and value.is_integer():
                value = int(value)
            elif isinstance(value, bool) or not isinstance(value, int):
                raise CallRefused("INVALID_INPUT_PARAMETER", f"invalid parameter type. parameter: {value}")
        elif kind == "float":
            if isinstance(value, str):
                if not value.replace(".", "", 1).isdigit():
                    raise CallRefused("INVALID_INPUT_PARAMETER", "invalid parameter type.")
                value = float(value)
            elif isinstance(value, bool) or not isinstance(value, (int, float)):
                raise CallRefused("INVALID_INPUT_PARAMETER", "invalid parameter type.")
            else:
                value = float(value)
        elif kind == "bool":
            value = value if isinstance(value, bool) else value == "True"
        out[key] = value
    missing = [k for k in d.get("required", []) if k not in out]
    if missing:
        names = " and ".join(f"'{k}'" for k in missing)
        raise CallRefused("MISS_INPUT_ARGUMENT",
                          f"call() missing {len(missing)} required positional argument"
                          f"{'s' if len(missing) > 1 else ''}: {names}")
    if d["name"] in DEFAULT_NONE:  # the input as API-Bank's call() builds it: every parameter, in order
        out = {k: out.get(k) for k in declared}
    return out
