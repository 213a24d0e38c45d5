"""Suites on disk: JSONL, one case per line.

Writing streams to a temporary file and renames it at the end, so memory stays
flat for any suite size and an interrupted write never leaves a half suite
under the real name. Reading names the file and line of every problem.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable, Iterator, Optional

from pydantic import ValidationError

from ..errors import FormatVersionError, PlanprobeError
from ..schema import SCHEMA_VERSION, Case


def write_suite(cases: Iterable[Case], path: Path, on_case=None) -> int:
    """Write cases to ``path`` (JSONL); returns how many were written."""

    def lines():
        for case in cases:
            yield case.model_dump_json()
            if on_case is not None:
                on_case(case)

    return write_suite_lines(lines(), path)


def write_suite_lines(lines: Iterable[str], path: Path, on_line=None) -> int:
    """Write already-serialized cases, one per line, streaming through a temporary file."""
    path = Path(path)
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    count = 0
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as out:
            for line in lines:
                out.write(line)
                out.write("\n")
                count += 1
                if on_line is not None:
                    on_line(line)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return count


def describe_validation_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err.get("loc", ())) or "(case)"
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"field '{loc}': {err.get('msg', 'invalid')}{more}"


def parse_case_line(line: str, where: str) -> Case:
    try:
        data = json.loads(line.strip())
    except json.JSONDecodeError as exc:
        raise PlanprobeError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(data, dict):
        raise PlanprobeError(f"{where}: expected a JSON object (a case), got {type(data).__name__}")
    version = data.get("schema_version", SCHEMA_VERSION)
    if isinstance(version, int) and version > SCHEMA_VERSION:
        raise FormatVersionError(
            f"{where}: case format version {version} is newer than this planprobe understands "
            f"({SCHEMA_VERSION}); upgrade planprobe"
        )
    try:
        return Case.model_validate(data)
    except ValidationError as exc:
        raise PlanprobeError(f"{where}: {describe_validation_error(exc)}") from None


def iter_suite(path: Path) -> Iterator[Case]:
    """Cases one by one, with the file and line named in every error."""
    path = Path(path)
    try:
        handle = open(path, encoding="utf-8")
    except FileNotFoundError:
        raise PlanprobeError(f"suite file not found: {path}") from None
    except OSError as exc:
        raise PlanprobeError(f"cannot read suite {path}: {exc.strerror}") from None
    seen: dict[str, int] = {}
    with handle:
        for lineno, line in enumerate(handle, 1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                case = parse_case_line(line, where)
            except UnicodeDecodeError:
                raise PlanprobeError(f"{where}: not UTF-8 text") from None
            first: Optional[int] = seen.get(case.id)
            if first is not None:
                raise PlanprobeError(f"{where}: duplicate case id {case.id!r} (first on line {first})")
            seen[case.id] = lineno
            yield case


def load_suite(path: Path) -> list[Case]:
    """All cases of a suite, each checked by its family before anything runs."""
    from .registry import get_family

    try:
        cases = list(iter_suite(path))
    except UnicodeDecodeError:
        raise PlanprobeError(f"{path}: not a UTF-8 text file") from None
    if not cases:
        raise PlanprobeError(f"{path}: the suite has no cases")
    for case in cases:
        try:
            get_family(case.family).validate(case)
        except PlanprobeError as exc:
            raise PlanprobeError(f"{path}: case {case.id!r}: {exc}") from None
    return cases
