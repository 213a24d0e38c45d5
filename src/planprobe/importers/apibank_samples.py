"""Reading API-Bank's test samples, with every problem named by file, line and field.

The layout is API-Bank's repository folder ``api-bank/``:

* ``lv1-lv2-samples/level-1-given-desc/*.jsonl`` and ``…/level-2-toolsearcher/*.jsonl``:
  one dialogue per file, one turn per line — ``{"role": "User"|"AI", "text"}`` or
  ``{"role": "API", "api_name", "param_dict", "result": {"api_name"?, "input",
  "output", "exception"}}``;
* ``test-data/level-3.json``: a list of ``{"requirement", "response", "apis": [{"api_name",
  "input", "output": <result dict>}]}``;
* ``init_database/*.json``: the databases the level-1/2 APIs start from — read by
  ``suites/apibank/databases`` (the family reads them again when a case is judged).

Nothing read here is evaluated: JSON only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import PlanprobeError
from ..suites.apibank.catalog import catalog

LEVEL_DIRS = {1: "lv1-lv2-samples/level-1-given-desc", 2: "lv1-lv2-samples/level-2-toolsearcher"}
LEVEL3_FILE = "test-data/level-3.json"


def _problem(where: str, field: str, message: str) -> PlanprobeError:
    return PlanprobeError(f"{where}: field '{field}': {message}")


@dataclass(frozen=True)
class Turn:
    role: str  # "User", "AI" or "API"
    text: str = ""
    api_name: str = ""
    result: dict[str, Any] | None = None  # API turns: the recorded result dict
    line: int = 0

    def to_json(self) -> dict[str, Any]:
        if self.role == "API":
            return {"role": "API", "api_name": self.api_name, "result": self.result}
        return {"role": self.role, "text": self.text}


def _result(where: str, value: Any, api: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _problem(where, "result", "must be an object {input, output, exception}")
    for key in ("input", "output", "exception"):
        if key not in value:
            raise _problem(where, f"result.{key}", "missing")
    if value["input"] is not None and not isinstance(value["input"], dict):
        raise _problem(where, "result.input", "must be an object or null")
    if value["exception"] is not None and not isinstance(value["exception"], str):
        raise _problem(where, "result.exception", "must be text or null")
    if "api_name" in value and value["api_name"] != api:
        raise _problem(where, "result.api_name", f"{value['api_name']!r} differs from api_name {api!r}")
    return value


def read_dialogue(path: Path, level: int) -> list[Turn]:
    """One level-1/2 dialogue file."""
    turns: list[Turn] = []
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise PlanprobeError(f"{path}: not UTF-8 text") from None
    known = catalog()
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise PlanprobeError(f"{where}: not JSON ({exc.args[0][:80]})") from None
        if not isinstance(row, dict):
            raise PlanprobeError(f"{where}: a turn must be a JSON object")
        role = row.get("role")
        if role in ("User", "AI"):
            if not isinstance(row.get("text"), str):
                raise _problem(where, "text", "missing or not text")
            turns.append(Turn(role=role, text=row["text"], line=n))
        elif role == "API":
            api = row.get("api_name")
            if not isinstance(api, str) or api not in known:
                raise _problem(where, "api_name", f"{api!r} is not one of API-Bank's level-1/2 APIs")
            if not isinstance(row.get("param_dict"), dict):
                raise _problem(where, "param_dict", "missing or not an object")
            turns.append(Turn(role="API", api_name=api, result=_result(where, row.get("result"), api), line=n))
        else:
            raise _problem(where, "role", f"{role!r}: expected User, AI or API")
    return turns


def dialogue_files(root: Path, level: int) -> list[Path]:
    folder = root / LEVEL_DIRS[level]
    if not folder.is_dir():
        raise PlanprobeError(f"{folder}: missing (expected API-Bank's folder with {LEVEL_DIRS[level]}/)")
    return sorted(p for p in folder.iterdir() if p.suffix == ".jsonl")


@dataclass(frozen=True)
class Level3Sample:
    index: int
    requirement: str
    response: str
    apis: list[dict[str, Any]]  # {"api_name", "input", "output": result dict}


def read_level3(root: Path) -> list[Level3Sample]:
    path = root / LEVEL3_FILE
    if not path.is_file():
        raise PlanprobeError(f"{path}: missing (API-Bank's level-3 test data)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise PlanprobeError(f"{path}: not JSON ({str(exc)[:80]})") from None
    if not isinstance(data, list):
        raise PlanprobeError(f"{path}: expected a list of samples")
    out = []
    for i, row in enumerate(data):
        where = f"{path}: sample {i}"
        if not isinstance(row, dict):
            raise PlanprobeError(f"{where}: not an object")
        for key in ("requirement", "response"):
            if not isinstance(row.get(key), str):
                raise _problem(where, key, "missing or not text")
        apis = row.get("apis")
        if not isinstance(apis, list) or not apis:
            raise _problem(where, "apis", "missing, empty or not a list")
        for j, call in enumerate(apis):
            cw = f"{where}, apis[{j}]"
            if not isinstance(call, dict) or not isinstance(call.get("api_name"), str):
                raise _problem(cw, "api_name", "missing or not text")
            if not isinstance(call.get("input"), dict):
                raise _problem(cw, "input", "missing or not an object")
            _result(cw + ", output", call.get("output"), call["api_name"])
        out.append(Level3Sample(i, row["requirement"].strip(), row["response"], apis))
    return out
