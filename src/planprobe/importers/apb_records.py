"""Reading APB's JSONL files (split files, prediction files, judgement files) row by row.

APB's own reader is ``json.loads`` per non-empty line and nothing else, so it
accepts rows planprobe's execute-mode importer used to reject (a tool listed
twice, an unknown field, a trajectory step of any shape). This reader accepts
every row APB's runner can use and reports only what APB would crash on or
silently lose, each as ``FILE:LINE: field 'NAME': what is wrong``:

- a line that is not JSON or not an object (APB's reader raises);
- no ``id`` (APB's runner raises on ``record["id"]``);
- a ``split`` that is not one of APB's six (APB never judges or scores it);
- a ``*_json`` field holding text that is not JSON (APB silently reads it as
  empty: the model would be judged on a task without its tools or reference);
- for prediction and judgement files, no ``model_response`` / ``judgement``.

With ``skip_invalid`` each bad row is passed to ``on_skip`` and left out.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import PlanprobeError
from ..suites.io import numbered_lines as suite_lines
from ..suites.judged.apb_format import JSON_FIELDS, SPLITS, json_field


@dataclass(frozen=True)
class ApbRow:
    record: dict[str, Any]
    path: Path
    line: int

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


class ApbRowError(Exception):
    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


def row_json(row: dict[str, Any], key: str, default: Any) -> Any:
    """A ``*_json`` field decoded (``json_field``); text that is not JSON raises ApbRowError."""
    try:
        return json_field(row, key, default)
    except (ValueError, RecursionError) as exc:
        raise ApbRowError(key, f"not valid JSON text ({getattr(exc, 'msg', exc)})") from None


def row_json_list(row: dict[str, Any], key: str) -> list:
    """A ``*_json`` field that must hold a list (missing: empty)."""
    value = row_json(row, key, [])
    if not isinstance(value, list):
        raise ApbRowError(key, f"expected a JSON list, got {type(value).__name__}")
    return value


KINDS = ("records", "predictions", "judgements")


def check_record(record: Any, kind: str = "records") -> dict[str, Any]:
    """The row as APB would use it, or ApbRowError naming the first bad field."""
    if not isinstance(record, dict):
        raise ApbRowError("(row)", f"expected a JSON object, got {type(record).__name__}")
    if record.get("id") is None or isinstance(record.get("id"), (dict, list)):
        raise ApbRowError("id", "missing; APB's runner needs every record's id")
    split = record.get("split")
    if split not in SPLITS:
        what = "missing" if split is None else f"unknown split {split!r}"
        raise ApbRowError("split", f"{what} (APB's splits: {', '.join(SPLITS)})")
    for key in JSON_FIELDS:
        try:
            json_field(record, key, None)
        except (ValueError, RecursionError) as exc:
            raise ApbRowError(key, f"not valid JSON text ({getattr(exc, 'msg', exc)}); APB would silently "
                                   "read it as empty") from None
    if kind in ("predictions", "judgements") and not isinstance(record.get("model_response"), str):
        raise ApbRowError("model_response", "missing or not text; a prediction file has the tested model's "
                                            "reply in every row")
    if kind == "judgements" and "judgement" not in record:
        raise ApbRowError("judgement", "missing; a judgement file has the judge's reply in every row")
    return record


def skip_or_stop(message: str, skip_invalid: bool, on_skip: Callable[[str], None]) -> None:
    """A bad row: stop the import with its FILE:LINE message, or (``skip_invalid``) report
    it through ``on_skip`` and let the caller go on to the next row."""
    if not skip_invalid:
        raise PlanprobeError(message) from None
    on_skip(message)


def numbered_lines(path: Path) -> Iterator[tuple[int, str]]:
    """The non-blank lines of an APB JSONL file with their 1-based numbers; a file that
    is missing, unreadable or not UTF-8 stops with one line naming it and the line (read
    as bytes and decoded a line at a time, so a bad byte is reported on its own line)."""
    try:
        handle = open(path, "rb")  # noqa: SIM115  (closed by the with below)
    except FileNotFoundError:
        raise PlanprobeError(f"APB file not found: {path}") from None
    except OSError as exc:
        raise PlanprobeError(f"cannot read {path}: {exc.strerror}") from None
    with handle:
        for lineno, line in suite_lines(handle, str(path)):
            if line.strip():
                yield lineno, line


def iter_rows(path: Path, kind: str = "records", skip_invalid: bool = False,
              on_skip: Callable[[str], None] = lambda msg: None) -> Iterator[ApbRow]:
    """The file's rows in order; a bad row stops with FILE:LINE: field, or is skipped."""
    path = Path(path)
    for lineno, line in numbered_lines(path):
        try:
            try:
                value = json.loads(line)
            except (ValueError, RecursionError) as exc:
                raise ApbRowError("(row)", f"not valid JSON ({getattr(exc, 'msg', exc)})") from None
            record = check_record(value, kind)
        except ApbRowError as exc:
            skip_or_stop(f"{path}:{lineno}: field '{exc.field}': {exc.message}", skip_invalid, on_skip)
            continue
        yield ApbRow(record, path, lineno)


def iter_scored_rows(path: Path, skip_invalid: bool = False,
                     on_skip: Callable[[str], None] = lambda msg: None) -> Iterator[ApbRow]:
    """A judgement file's rows as APB's ``score()`` reads them. A bad row stops the reading
    (``FILE:LINE: field``), as ``iter_rows`` does; with ``skip_invalid`` a line that is not a JSON
    object (APB's ``score()`` stops there too) is left out, and an object APB scores anyway (no
    ``model_response``, a split it filters out, …) is named and kept, so the figures are APB's."""
    path = Path(path)
    for lineno, line in numbered_lines(path):
        try:
            value = json.loads(line)
        except (ValueError, RecursionError) as exc:
            skip_or_stop(f"{path}:{lineno}: field '(row)': not valid JSON ({getattr(exc, 'msg', exc)}); left out",
                         skip_invalid, on_skip)
            continue
        try:
            record = check_record(value, "judgements")
        except ApbRowError as exc:
            if not isinstance(value, dict):
                skip_or_stop(f"{path}:{lineno}: field '{exc.field}': {exc.message}; left out", skip_invalid,
                             on_skip)
                continue
            what = "left out by APB's score() too" if exc.field == "split" else "scored as APB's score() scores it"
            skip_or_stop(f"{path}:{lineno}: field '{exc.field}': {exc.message}; {what}", skip_invalid, on_skip)
            record = value
        yield ApbRow(record, path, lineno)


def append_jsonl(path: Path, records: list[dict[str, Any]], ascii_only: bool = False) -> None:
    """APB's own line format (``ensure_ascii=False``, default separators), flushed per call;
    ``ascii_only`` escapes every non-ASCII character (planprobe's own files: any text fits)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as handle:
        handle.writelines(json.dumps(record, ensure_ascii=ascii_only) + "\n" for record in records)
