"""The user's official TravelPlanner data: a split of the HF data set
(``osunlp/TravelPlanner``: train/validation/test as CSV, or the same rows as
JSONL) whose structured fields are read as they are — never derived from the
query text. Stringified values (``date``, ``local_constraint``,
``reference_information``, ``annotated_plan``) are read as literals, never
``eval``'d. Errors name the file, the line and the field.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import PlanprobeError
from ..suites.io import parse_json_line
from ..suites.travelplanner.fields import QueryFields, parse_fields
from ..suites.travelplanner.literal import LiteralError, read_literal

FIELD_NAMES = ("org", "dest", "days", "visiting_city_number", "date", "people_number", "local_constraint", "budget",
               "query", "level")
LITERAL_FIELDS = ("date", "local_constraint", "reference_information", "annotated_plan")
NUMBER_FIELDS = ("days", "visiting_city_number", "people_number", "budget")


@dataclass
class OfficialQuery:
    idx: int  # 1-based position in the split, TravelPlanner's idx
    fields: QueryFields
    reference_information: str | None  # the text the sole-planning agent is given
    plan: list[dict[str, Any]] | None  # annotated plan (train split only)


def _rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    if not path.is_file():
        raise PlanprobeError(f"{path}: no such file (expected a TravelPlanner split: CSV or JSONL)")
    if path.suffix.lower() == ".csv":
        csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            if reader.fieldnames is None:
                raise PlanprobeError(f"{path}:1: empty file")
            try:
                for row in reader:
                    yield reader.line_num, dict(row)
            except csv.Error as exc:
                raise PlanprobeError(f"{path}:{reader.line_num}: not valid CSV ({exc})") from None
        return
    with path.open(encoding="utf-8") as handle:
        for n, line in enumerate(handle, 1):
            if line.strip():
                row = parse_json_line(line, f"{path}:{n}")
                if not isinstance(row, dict):
                    raise PlanprobeError(f"{path}:{n}: expected an object")
                yield n, row


def load_split(path: Path) -> list[OfficialQuery]:
    path = Path(path)
    out: list[OfficialQuery] = []
    for line, row in _rows(path):
        where = f"{path}:{line}"
        for name in FIELD_NAMES:
            if name not in row or row[name] in (None, ""):
                raise PlanprobeError(f"{where}: field '{name}' is missing (the query's structured fields are needed)")
        data = dict(row)
        for name in LITERAL_FIELDS:
            value = data.get(name)
            if isinstance(value, str) and value.strip() and (name != "reference_information"):
                try:
                    data[name] = read_literal(value)
                except LiteralError as exc:
                    raise PlanprobeError(f"{where}: field '{name}': {exc}") from None
        for name in NUMBER_FIELDS:
            value = data[name]
            if isinstance(value, str):
                try:
                    number = float(value.replace(",", ""))
                except ValueError:
                    raise PlanprobeError(f"{where}: field '{name}': {value!r} is not a number") from None
                data[name] = int(number) if number.is_integer() else number
        fields = parse_fields(data, where)
        ref = data.get("reference_information")
        if ref is not None and not isinstance(ref, str):
            ref = repr(ref)
        plan = data.get("annotated_plan")
        if plan is not None:
            if isinstance(plan, list) and plan and isinstance(plan[0], dict) and "current_city" not in plan[0]:
                plan = plan[1:]  # the HF annotated plan begins with a header object of the query
            if not isinstance(plan, list) or not all(isinstance(d, dict) for d in plan):
                raise PlanprobeError(f"{where}: field 'annotated_plan': expected a list of day objects")
        out.append(OfficialQuery(len(out) + 1, fields, ref or None, plan or None))
    if not out:
        raise PlanprobeError(f"{path}: no queries")
    return out
