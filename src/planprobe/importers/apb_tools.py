"""APB's tool lists as planprobe tool specs.

APB's rows list tools in several shapes (OpenAI function objects, ``{"tool_name",
"description"}``, ``{"name", "description", "example"}``, plain names) and their
parameters in several more; all become ``ToolSpec``s with a JSON-schema object.
Names outside ``[A-Za-z0-9_-]`` are rewritten with ``_`` by ``ToolNames``, which
also refuses collisions, so every later reference (steps, distractors, the broken
tool) follows the same rewriting. Problems raise ``ApbRowError`` naming the field.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..schema import ToolSpec
from .apb_records import ApbRowError

__all__ = ["ToolNames", "raw_name", "tool_spec"]

_JSON_TYPES = {"string", "number", "integer", "boolean", "object", "array", "null"}
_TYPE_ALIASES = {"str": "string", "text": "string", "int": "integer", "float": "number", "double": "number",
                 "bool": "boolean", "list": "array", "dict": "object", "json": "object"}


class ToolNames:
    """Original tool names -> planprobe names (``[A-Za-z0-9_-]{1,64}``), collision-checked."""

    def __init__(self) -> None:
        self.by_original: dict[str, str] = {}
        self.taken: dict[str, str] = {}

    @staticmethod
    def clean(name: str) -> str:
        return re.sub(r"[^A-Za-z0-9_-]", "_", name.strip())[:64]

    def add(self, original: str, field: str, allow_existing: bool = False) -> str:
        if original in self.by_original:
            if allow_existing:
                return self.by_original[original]
            raise ApbRowError(field, f"tool {original!r} is listed twice")
        name = self.clean(original)
        if not name.strip("_"):
            raise ApbRowError(field, f"tool name {original!r} has no letters or digits")
        other = self.taken.get(name)
        if other is not None:
            raise ApbRowError(field, f"tool names {other!r} and {original!r} both become {name!r}; rename one")
        self.by_original[original] = name
        self.taken[name] = original
        return name

    def lookup(self, original: str) -> str | None:
        found = self.by_original.get(original)
        if found is None and self.clean(original) in self.taken:
            found = self.clean(original)
        return found


def raw_name(raw: Any) -> str | None:
    """A tool's name as the row writes it (None when it has none)."""
    if isinstance(raw, str):
        return raw
    if not isinstance(raw, dict):
        return None
    body: dict[str, Any] = raw["function"] if isinstance(raw.get("function"), dict) else raw
    return next((body[k] for k in ("name", "tool_name", "api_name") if isinstance(body.get(k), str)), None)


def tool_spec(raw: Any, field: str, names: ToolNames, allow_existing: bool = False) -> ToolSpec:
    if isinstance(raw, str):
        if not raw.strip():
            raise ApbRowError(field, "empty tool name")
        return ToolSpec(name=names.add(raw, field, allow_existing), description=raw.strip(),
                        parameters={"type": "object", "properties": {}})
    if not isinstance(raw, dict):
        raise ApbRowError(field, f"expected a tool object or name, got {type(raw).__name__}")
    body: dict[str, Any] = raw["function"] if isinstance(raw.get("function"), dict) else raw
    name = next((body[k] for k in ("name", "tool_name", "api_name") if isinstance(body.get(k), str)), None)
    if not name or not name.strip():
        raise ApbRowError(field, "the tool has no name (expected 'name', 'tool_name' or 'function.name')")
    description = body.get("description") or raw.get("description") or ""
    if not isinstance(description, str):
        description = json.dumps(description, ensure_ascii=False)
    example = body.get("example")
    if example:
        description = f"{description} Example: {example if isinstance(example, str) else json.dumps(example)}"
    params_raw = next((body[k] for k in ("parameters", "input_schema", "arguments", "inputs", "args")
                       if k in body), None)
    if params_raw is None and ("required_parameters" in body or "optional_parameters" in body):
        params_raw = [dict(p, required=True) for p in body.get("required_parameters") or [] if isinstance(p, dict)]
        params_raw += [p for p in body.get("optional_parameters") or [] if isinstance(p, dict)]
    return ToolSpec(name=names.add(name, field, allow_existing), description=description.strip() or name,
                    parameters=_schema(params_raw, field))


def _schema(raw: Any, field: str) -> dict[str, Any]:
    """A permissive JSON schema from whatever APB gives: extra arguments are allowed,
    since the mock tools accept anything and APB's schemas are descriptive."""
    props: dict[str, Any] = {}
    required: list[str] = []
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raw = None
    if isinstance(raw, dict) and ("properties" in raw or raw.get("type") == "object"):
        src = raw.get("properties") or {}
        if not isinstance(src, dict):
            raise ApbRowError(field, "parameters.properties is not an object")
        props = {str(k): _prop(v) for k, v in src.items()}
        req = raw.get("required") or []
        required = [r for r in req if isinstance(r, str) and r in props] if isinstance(req, list) else []
    elif isinstance(raw, dict):
        props = {str(k): _prop(v) for k, v in raw.items()}
    elif isinstance(raw, list):
        for p in raw:
            if isinstance(p, dict) and isinstance(p.get("name"), str):
                props[p["name"]] = _prop(p)
                if p.get("required") is True or p.get("optional") is False:
                    required.append(p["name"])
            elif isinstance(p, str):
                props[p] = {"type": "string"}
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    return schema


def _prop(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        return {"type": "string", "description": value}
    if not isinstance(value, dict):
        return {}
    out: dict[str, Any] = {}
    kind = value.get("type")
    if isinstance(kind, str):
        kind = _TYPE_ALIASES.get(kind.lower(), kind.lower())
        if kind in _JSON_TYPES:
            out["type"] = kind
    if isinstance(value.get("description"), str):
        out["description"] = value["description"]
    if isinstance(value.get("enum"), list) and value["enum"]:
        out["enum"] = value["enum"]
    if out.get("type") == "array":
        out["items"] = value["items"] if isinstance(value.get("items"), dict) else {}
    return out
