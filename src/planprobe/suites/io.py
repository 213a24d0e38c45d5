"""Suites on disk: JSONL, one case per line.

Writing streams to a temporary file and renames it at the end (``atomic``), so
memory stays flat for any suite size and an interrupted write never leaves a
half suite under the real name. Reading names the file and line of every
problem, and checks each case with its family as it is read (``stream_suite``),
so a suite that loads is a suite every later command can use.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from pydantic import ValidationError

from ..atomic import write_lines_atomic
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
    return write_lines_atomic(path, lines, on_line)


def describe_validation_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err.get("loc", ())) or "(case)"
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"field '{loc}': {err.get('msg', 'invalid')}{more}"


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def parse_json_line(line: str, where: str):
    """One line of JSON, strictly: no NaN/Infinity (Python's json would accept them)
    and no nesting deep enough to exhaust the stack; errors name ``where``."""
    try:
        return json.loads(line.strip(), parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise PlanprobeError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    except ValueError as exc:
        raise PlanprobeError(f"{where}: not valid JSON ({exc})") from None
    except RecursionError:
        raise PlanprobeError(f"{where}: JSON nested too deeply to read") from None


# Python's text reader decodes in chunks of several kilobytes, so a byte that is not UTF-8
# raises before the lines ahead of it in its chunk are handed out, and the reader cannot say
# which line the byte is on (a suite named line 9 for a bad byte on line 11). Reading bytes
# and decoding each line names the right line, and hands out (so checks) every line before it.
def _ends(raw: bytes) -> int:
    """How many line ends (``\\n``, ``\\r\\n``, a lone ``\\r``) ``raw`` holds."""
    return raw.count(b"\n") + raw.count(b"\r") - raw.count(b"\r\n")


def numbered_lines(handle: BinaryIO, name: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, text without its line end) for every line of ``handle``
    (opened in binary mode); a line that is not UTF-8 stops with ``NAME:LINE: not UTF-8
    text``. ``name`` is how the error names the file."""
    lineno = 0
    for raw in handle:  # split at b"\n": a lone b"\r" is split below
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = lineno + 1 + _ends(raw[:exc.start])
            raise PlanprobeError(f"{name}:{line}: not UTF-8 text (byte 0x{raw[exc.start]:02x})") from None
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        pieces = text.split("\n")
        if pieces[-1] == "":
            pieces.pop()  # the line end of the last piece
        for piece in pieces:
            lineno += 1
            yield lineno, piece


def parse_case_line(line: str, where: str) -> Case:
    data = parse_json_line(line, where)
    if not isinstance(data, dict):
        raise PlanprobeError(f"{where}: expected a JSON object (a case), got {type(data).__name__}")
    version = data.get("schema_version", SCHEMA_VERSION)
    if type(version) is not int:  # bool is an int to Python, "1" to pydantic's lax mode: neither is a version
        raise PlanprobeError(f"{where}: field 'schema_version': expected a whole number, got {json.dumps(version)}")
    if version < 1:
        raise PlanprobeError(f"{where}: field 'schema_version': {version} is not a format version (1 or more)")
    if version > SCHEMA_VERSION:
        raise FormatVersionError(
            f"{where}: case format version {version} is newer than this planprobe understands "
            f"({SCHEMA_VERSION}); upgrade planprobe"
        )
    try:
        return Case.model_validate(data)
    except ValidationError as exc:
        raise PlanprobeError(f"{where}: {describe_validation_error(exc)}") from None
    except RecursionError:
        raise PlanprobeError(f"{where}: the case is nested too deeply to read") from None


def _read_cases(path: Path) -> Iterator[tuple[str, Case]]:
    """(``file:line``, case) one by one, with the file and line named in every error (a byte
    that is not UTF-8 too: each line is decoded on its own, ``numbered_lines``)."""
    path = Path(path)
    try:
        handle = open(path, "rb")  # noqa: SIM115 -- opened here to name each failure; closed below
    except FileNotFoundError:
        raise PlanprobeError(f"suite file not found: {path}") from None
    except IsADirectoryError:
        raise PlanprobeError(f"{path} is a directory, not a suite file") from None
    except OSError as exc:
        raise PlanprobeError(f"cannot read suite {path}: {exc.strerror}") from None
    seen: dict[str, int] = {}
    with handle:
        try:
            for lineno, line in numbered_lines(handle, str(path)):
                if not line.strip():
                    continue
                where = f"{path}:{lineno}"
                case = parse_case_line(line, where)
                first: int | None = seen.get(case.id)
                if first is not None:
                    raise PlanprobeError(f"{where}: duplicate case id {case.id!r} (first on line {first})")
                seen[case.id] = lineno
                yield where, case
        except OSError as exc:
            raise PlanprobeError(f"cannot read suite {path}: {exc.strerror or exc}") from None


def iter_suite(path: Path) -> Iterator[Case]:
    """Cases one by one, with the file and line named in every error."""
    for _, case in _read_cases(path):
        yield case


def validate_case(case: Case, where: str) -> None:
    """The family's own check of a case (its hidden spec), as one line naming ``where``.
    A family that trips over malformed data with a Python error (a KeyError on a
    hand-edited spec) is reported the same way, never as a traceback."""
    from .registry import get_family

    try:
        get_family(case.family).validate(case)
    except PlanprobeError as exc:
        raise PlanprobeError(f"{where}: case {case.id!r}: {exc}") from None
    except RecursionError:
        raise PlanprobeError(f"{where}: case {case.id!r}: the spec is nested too deeply to read") from None
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        raise PlanprobeError(f"{where}: case {case.id!r}: malformed spec "
                             f"({type(exc).__name__}: {str(exc)[:200]})") from None


def stream_suite(path: Path) -> Iterator[Case]:
    """Cases one by one, each checked by its family as it is read; refuses an empty
    suite. Memory stays flat, so a 100,000-case suite can be checked and stored
    without holding it."""
    count = 0
    for where, case in _read_cases(path):
        validate_case(case, where)
        count += 1
        yield case
    if not count:
        raise PlanprobeError(f"{path}: the suite has no cases")


def check_suite(path: Path) -> int:
    """Read and check every case without keeping them; returns how many there are."""
    return sum(1 for _ in stream_suite(path))


def load_suite(path: Path) -> list[Case]:
    """All cases of a suite, each checked by its family before anything runs."""
    return list(stream_suite(path))
