"""Reading a judge's reply: untrusted text in, a structured judgement or a clear
"unparseable" out — never an exception, never ``eval``.

Judges (small local models especially) wrap JSON in ```json fences, add prose
before and after, use single quotes or Python literals, leave trailing commas,
give the grade as "0.8", "80%" or "4/5", get cut off by the token limit, or omit
fields. Each of those is repaired where the intent is unambiguous, and every
repair is recorded in ``problems`` so a user can see how much was guessed.

The grade decides; the other fields fill in when it is missing:
grade given → used (clipped to [0, 1]); else ``is_correct: true`` → 1.0; else
flagged errors → the grade the rubric implies; else ``is_correct: false`` → 0.0;
else the reply is unparseable. A grade of 1.0 with errors flagged is capped at
0.8, because APB's rubric reserves 1.0 for replies without errors.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from ..lenient_json import braced_spans, fenced_blocks, load_lenient, loads
from .rubric import BY_CODE, CODES, ERROR_CODES, implied_grade

MAX_INPUT = 50_000  # characters of a reply that are read at all

OK, PARTIAL, UNPARSEABLE = "ok", "partial", "unparseable"


@dataclass(frozen=True)
class ParsedJudgement:
    status: str  # OK: grade read from JSON; PARTIAL: grade derived or read from prose; UNPARSEABLE
    grade: float | None = None
    is_correct: bool | None = None  # as the judge said, or derived from the grade when it did not
    errors: tuple[str, ...] = ()  # flagged codes, "E1" … "E6", in order
    reasoning: str = ""
    problems: tuple[str, ...] = field(default_factory=tuple)

    @property
    def usable(self) -> bool:
        return self.grade is not None

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "grade": self.grade, "is_correct": self.is_correct,
                "errors": list(self.errors), "reasoning": self.reasoning, "problems": list(self.problems)}


def unparseable(problem: str) -> ParsedJudgement:
    return ParsedJudgement(status=UNPARSEABLE, problems=(problem,))


def parse_judgement(text: Any) -> ParsedJudgement:
    """The judgement in a reply (a string, or an already-decoded object); never raises."""
    try:
        return _parse(text)
    except Exception as exc:  # noqa: BLE001  (defensive: a parser bug must not stop a run)
        return unparseable(f"parser error: {type(exc).__name__}")


# ---------------------------------------------------------------------------
# Finding the object
# ---------------------------------------------------------------------------


def _parse(text: Any) -> ParsedJudgement:
    problems: list[str] = []
    if isinstance(text, dict):
        return _from_object(text, problems)
    if not isinstance(text, str):
        return unparseable(f"reply is {type(text).__name__}, not text")
    if not text.strip():
        return unparseable("empty reply")
    if len(text) > MAX_INPUT:
        text = text[:MAX_INPUT]
        problems.append(f"reply longer than {MAX_INPUT} characters: only the start was read")
    best: tuple[int, dict, list[str]] | None = None
    for candidate in _candidates(text):
        obj, repairs = load_lenient(candidate)
        if isinstance(obj, dict):
            obj = _unwrap(obj)
            known = _known_fields(obj)
            if known and (best is None or known > best[0]):
                best = (known, obj, repairs)
    if best is not None:
        return _from_object(best[1], problems + best[2])
    return _from_prose(text, problems)


def _candidates(text: str) -> list[str]:
    """Fenced blocks first, then every balanced (or truncated) top-level {...}."""
    out = [block for block in fenced_blocks(text) if "{" in block]
    out += braced_spans(text)
    return out


def _unwrap(obj: dict) -> dict:
    """{"judgement": {...}} and similar: the inner object when the outer has no fields of its own."""
    if _known_fields(obj, nested=False):
        return obj
    for value in obj.values():
        if isinstance(value, dict) and _known_fields(value, nested=False):
            return value
    return obj


# ---------------------------------------------------------------------------
# Fields
# ---------------------------------------------------------------------------

_GRADE_KEYS = ("grade", "score", "plan_grade", "rating", "final_grade", "overall_score")
_CORRECT_KEYS = ("is_correct", "correct", "passed", "pass", "verdict", "is_valid")
_ERROR_KEYS = ("error_list", "errors", "error_flags", "error_types", "error_codes", "flags")
_REASON_KEYS = ("reasoning", "reason", "explanation", "rationale", "justification", "analysis")
_CODE_KEY = re.compile(r"^\s*E\s*([1-6])(?:\b|_|$)", re.IGNORECASE)
_NAME_TO_CODE = {}
for _e in ERROR_CODES:
    _NAME_TO_CODE[_e.name.lower()] = _e.code
    _NAME_TO_CODE[_e.step_name.lower()] = _e.code


def _lower_keys(obj: dict) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in obj.items():
        key = str(k).strip().lower().replace(" ", "_")
        out.setdefault(key, v)
    return out


def _known_fields(obj: dict, nested: bool = True) -> int:
    keys = _lower_keys(obj)
    count = sum(any(k in keys for k in group) for group in (_GRADE_KEYS, _CORRECT_KEYS, _ERROR_KEYS, _REASON_KEYS))
    count += any(_code_of_key(k) for k in keys)
    if nested and not count:
        count = max((_known_fields(v, nested=False) for v in obj.values() if isinstance(v, dict)), default=0)
    return count


def _code_of_key(key: str) -> str | None:
    m = _CODE_KEY.match(key)
    if m:
        return "E" + m.group(1)
    return _NAME_TO_CODE.get(key.strip().lower())


def _first(keys: dict[str, Any], names: tuple[str, ...]) -> tuple[str | None, Any]:
    for name in names:
        if name in keys:
            return name, keys[name]
    return None, None


def _from_object(obj: dict, problems: list[str]) -> ParsedJudgement:
    obj = _unwrap(obj)
    keys = _lower_keys(obj)
    problems = list(problems)
    if problems and all(p in _REPAIR_NAMES for p in problems):
        problems = [f"repaired JSON: {', '.join(problems)}"]
    else:
        problems = [p if p not in _REPAIR_NAMES else f"repaired JSON: {p}" for p in problems]

    grade_key, raw_grade = _first(keys, _GRADE_KEYS)
    grade = None
    if grade_key is not None:
        grade = _grade(raw_grade, problems)

    correct_key, raw_correct = _first(keys, _CORRECT_KEYS)
    is_correct = _flag(raw_correct) if correct_key is not None else None
    if correct_key is not None and is_correct is None:
        problems.append(f"{correct_key} {_short(raw_correct)} is not a yes/no")

    errors = _errors(keys, problems)

    reasoning = ""
    _, raw_reason = _first(keys, _REASON_KEYS)
    if isinstance(raw_reason, str):
        reasoning = raw_reason.strip()[:2000]
    elif raw_reason is not None:
        reasoning = _short(raw_reason, 2000)

    return _settle(grade, is_correct, errors, reasoning, problems, derived_from_prose=False)


_REPAIR_NAMES = {"single quotes", "unterminated string", "trailing commas", "unquoted keys", "Python literals",
                 "unquoted values", "percent values", "truncated object"}


def _settle(grade: float | None, is_correct: bool | None, errors: list[str] | None, reasoning: str,
            problems: list[str], derived_from_prose: bool) -> ParsedJudgement:
    codes = tuple(c for c in CODES if errors and c in errors)
    status = PARTIAL if derived_from_prose else OK
    if grade is None:
        status = PARTIAL
        if is_correct is True:
            grade = 1.0
            problems.append("no grade: 1.0 from is_correct")
        elif errors is not None and (codes or is_correct is None):
            grade = implied_grade(codes)
            problems.append(f"no grade: {grade:.1f} implied by the flagged errors")
        elif is_correct is False:
            grade = 0.0
            problems.append("no grade: 0.0 from is_correct")
        else:
            return ParsedJudgement(status=UNPARSEABLE, is_correct=is_correct, errors=codes, reasoning=reasoning,
                                   problems=tuple(problems + ["no grade, is_correct or error flags"]))
    if codes and grade >= 1.0:
        grade = 0.8
        problems.append("grade 1.0 with errors flagged: capped at 0.8")
    if is_correct is None:
        is_correct = grade >= 1.0 and not codes
    elif is_correct and (codes or grade < 1.0):
        problems.append("is_correct contradicts the grade or the flagged errors; the grade decides")
    return ParsedJudgement(status=status, grade=grade, is_correct=is_correct, errors=codes, reasoning=reasoning,
                           problems=tuple(problems))


_GRADE_TEXT = re.compile(r"^\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+))\s*(%|/\s*(\d+(?:\.\d+)?))?")


def _grade(value: Any, problems: list[str]) -> float | None:
    """A grade in [0, 1] from a number, "0.8", "80%", "4/5"; None (with a problem) otherwise."""
    if isinstance(value, bool) or value is None:
        problems.append(f"grade {_short(value)} is not a number")
        return None
    percent = False
    if isinstance(value, (int, float)):
        v = float(value)
    elif isinstance(value, str):
        m = _GRADE_TEXT.match(value)
        if not m:
            problems.append(f"grade {_short(value)} is not a number")
            return None
        v = float(m.group(1))
        if m.group(3):
            den = float(m.group(3))
            if den <= 0:
                problems.append(f"grade {_short(value)} divides by zero")
                return None
            v /= den
        elif m.group(2) == "%":
            percent = True
    else:
        problems.append(f"grade {_short(value)} is not a number")
        return None
    if not math.isfinite(v):
        problems.append(f"grade {_short(value)} is not finite")
        return None
    if percent:
        v /= 100.0
    elif 1.0 < v <= 100.0:
        problems.append(f"grade {_short(value)} read as a percentage")
        v /= 100.0
    if v < 0.0 or v > 1.0:
        problems.append(f"grade {_short(value)} is outside 0–1")
        return None
    return round(v, 6)


_YES = {"yes", "y", "true", "t", "pass", "passed", "correct", "valid", "1"}
_NO = {"no", "n", "false", "f", "fail", "failed", "incorrect", "invalid", "0"}


def _flag(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value in (0, 1):
            return bool(value)
        return None
    if isinstance(value, str):
        word = value.strip().strip(".!").lower()
        if word in _YES:
            return True
        if word in _NO:
            return False
    return None


def _errors(keys: dict[str, Any], problems: list[str]) -> list[str] | None:
    """Flagged codes, or None when the reply says nothing about errors."""
    flagged: set[str] | None = None
    key, raw = _first(keys, _ERROR_KEYS)
    if key is not None:
        flagged = _errors_from(raw, key, problems)
    for k, v in keys.items():
        code = _code_of_key(k)
        if code is None:
            continue
        flag = _flag(v)
        if flag is None:
            problems.append(f"{k} {_short(v)} is not a yes/no")
            continue
        flagged = flagged if flagged is not None else set()
        if flag:
            flagged.add(code)
    return None if flagged is None else sorted(flagged)


def _errors_from(raw: Any, key: str, problems: list[str]) -> set[str] | None:
    if isinstance(raw, str):
        try:
            raw = loads(raw)
        except ValueError:
            codes = _codes_in_text(raw)
            if codes or raw.strip().lower() in ("", "none", "[]"):
                return codes
            problems.append(f"{key} {_short(raw)} names no error code")
            return None
    if isinstance(raw, dict):
        out: set[str] = set()
        for k, v in raw.items():
            code = _code_of_key(str(k))
            flag = _flag(v)
            if code is None or flag is None:
                problems.append(f"{key}: entry {_short(k)}: {_short(v)} ignored")
            elif flag:
                out.add(code)
        return out
    if isinstance(raw, list):
        flags = [_flag(v) for v in raw]
        if raw and all(f is not None for f in flags) and not all(isinstance(v, str) and _codes_in_text(v)
                                                                 for v in raw):
            if len(raw) != len(CODES):
                problems.append(f"{key} has {len(raw)} flags, not 6")
                if len(raw) > len(CODES):
                    return None
            return {CODES[i] for i, f in enumerate(flags) if f}
        out = set()
        for v in raw:
            codes = _codes_in_text(v) if isinstance(v, str) else set()
            if not codes:
                problems.append(f"{key}: entry {_short(v)} ignored")
            out |= codes
        return out
    if raw is None:
        return set()
    problems.append(f"{key} {_short(raw)} is not a list")
    return None


_CODE_IN_TEXT = re.compile(r"\bE\s*([1-6])\b|\bE([1-6])_", re.IGNORECASE)


def _codes_in_text(text: str) -> set[str]:
    out = {"E" + (m.group(1) or m.group(2)) for m in _CODE_IN_TEXT.finditer(text)}
    low = text.lower()
    out |= {code for name, code in _NAME_TO_CODE.items() if name in low}
    return out


# ---------------------------------------------------------------------------
# No JSON at all: the grade from prose, if stated plainly
# ---------------------------------------------------------------------------

_PROSE_GRADE = re.compile(r"\b(?:grade|score)\b\s*(?:is|of|=|:)?\s*\**\s*\"?([-+]?\d+(?:\.\d+)?\s*(?:%|/\s*\d+(?:\.\d+)?)?)",
                          re.IGNORECASE)
_PROSE_CORRECT = re.compile(r"\bis[_ ]correct\b\s*[:=]?\s*\**\s*\"?(yes|no|true|false)\b", re.IGNORECASE)


def _from_prose(text: str, problems: list[str]) -> ParsedJudgement:
    m = _PROSE_GRADE.search(text)
    c = _PROSE_CORRECT.search(text)
    if not m and not c:
        return unparseable("no JSON object and no stated grade")
    problems = problems + ["no JSON object: read from prose"]
    grade = _grade(m.group(1), problems) if m else None
    is_correct = _flag(c.group(1)) if c else None
    return _settle(grade, is_correct, None, "", problems, derived_from_prose=True)


def _short(value: Any, limit: int = 40) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    text = repr(text) if isinstance(value, str) else text
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = ["BY_CODE", "OK", "PARTIAL", "UNPARSEABLE", "ParsedJudgement", "parse_judgement"]
