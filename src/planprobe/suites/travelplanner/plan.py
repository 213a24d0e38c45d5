"""A travel plan: read from an agent's answer, and checked for the shape the
official evaluator needs (where it would crash, planprobe names the field).

A plan is a list of day objects with the keys ``days``, ``current_city``,
``transportation``, ``breakfast``, ``attraction``, ``lunch``, ``dinner``,
``accommodation`` (TravelPlanner's submission format). Answers are read as

* a JSON (or Python-literal) list of day objects, bare or inside a ```json fence,
  or wrapped in an object ``{"plan": [...]}``; or
* TravelPlanner's text layout (``Day 1:`` then ``Current City: ...`` lines), the
  format its planner prompt asks for.

The official pipeline turns free text into JSON with GPT-4; planprobe reads only
these two formats, deterministically.
"""

from __future__ import annotations

import re
from typing import Any

from .literal import LiteralError, read_literal
from .text import from_to

DAY_KEYS = ("days", "current_city", "transportation", "breakfast", "attraction", "lunch", "dinner", "accommodation")
TEXT_KEYS = DAY_KEYS[1:]
_LABELS = {k.replace("_", " "): k for k in TEXT_KEYS}
_DAY_HEAD = re.compile(r"^\s*[#*]*\s*day\s*(\d+)\s*[:.]?\s*[*]*\s*$", re.IGNORECASE | re.MULTILINE)
_FIELD = re.compile(r"^\s*[-*]*\s*(current city|transportation|breakfast|attraction|lunch|dinner|accommodation)"
                    r"\s*[*]*\s*:\s*[*]*\s*(.*?)\s*$", re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|python)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)

Plan = list[dict[str, Any]]


class PlanFormatError(ValueError):
    """The plan is not in the submission format; ``field`` names where (e.g. 'plan[2].transportation')."""

    def __init__(self, field: str, message: str):
        super().__init__(f"field '{field}': {message}")
        self.field = field


def read_answer(answer: str | None) -> tuple[Plan | None, str]:
    """The plan in an answer and how it was read ('json', 'text'), or (None, why not)."""
    if answer is None or not answer.strip():
        return None, "the answer is empty"
    structured = _structured(answer)
    if structured is not None:
        return structured, "json"
    days = _text_layout(answer)
    if days:
        return days, "text"
    return None, "no plan could be read (neither a JSON list of days nor 'Day N:' blocks)"


def _structured(answer: str) -> Plan | None:
    candidates = [m.group(1) for m in _FENCE.finditer(answer)] + [answer]
    for text in candidates:
        text = text.strip()
        for start, end in ((text.find("["), text.rfind("]")), (text.find("{"), text.rfind("}"))):
            if start < 0 or end <= start:
                continue
            try:
                value = read_literal(text[start:end + 1])
            except LiteralError:
                continue
            if isinstance(value, dict) and isinstance(value.get("plan"), list):
                value = value["plan"]
            if isinstance(value, list) and value and all(isinstance(d, dict) for d in value):
                return value
    return None


def _text_layout(answer: str) -> Plan:
    heads = list(_DAY_HEAD.finditer(answer))
    days: Plan = []
    for k, head in enumerate(heads):
        body = answer[head.end():heads[k + 1].start() if k + 1 < len(heads) else len(answer)]
        day: dict[str, Any] = {"days": int(head.group(1))}
        for line in body.splitlines():
            m = _FIELD.match(line)
            if m:
                day[_LABELS[m.group(1).lower()]] = m.group(2)
        if len(day) > 1:
            days.append(day)
    return days


def format_problem(plan: Any, days: int) -> PlanFormatError | None:
    """Where the official evaluator would fail to read this plan (it would raise), or
    None. ``days``: the query's number of days (the evaluator reads that many entries)."""
    if plan is None or plan == [] or plan == "":
        return None  # not delivered: the evaluator skips it
    if not isinstance(plan, list):
        return PlanFormatError("plan", "expected a list of day objects or null")
    for i, day in enumerate(plan):
        if not isinstance(day, dict):
            return PlanFormatError(f"plan[{i}]", "expected a day object")
        for key, value in day.items():
            if key in TEXT_KEYS and value is not None and not isinstance(value, str):
                return PlanFormatError(f"plan[{i}].{key}", f"expected a text, got {type(value).__name__}")
    for i, day in enumerate(plan[:days]):
        for key in ("current_city", "transportation"):
            if key not in day:
                return PlanFormatError(f"plan[{i}].{key}", "missing (the evaluator reads it on every day)")
        city = day["current_city"]
        if not isinstance(city, str):
            return PlanFormatError(f"plan[{i}].current_city", "expected a text")
        if "from" in city and None in from_to(city):
            return PlanFormatError(f"plan[{i}].current_city", f"{city!r} says 'from' but not 'from A to B'")
        if "accommodation" in day and not isinstance(day["accommodation"], str):
            return PlanFormatError(f"plan[{i}].accommodation", "expected a text ('-' when none)")
        move = day["transportation"]
        if move and move != "-" and "flight number" in move.lower():
            if "Flight Number: " not in move:
                return PlanFormatError(f"plan[{i}].transportation", "a flight must read 'Flight Number: F…'")
            if None in from_to(move) and None in from_to(city):
                return PlanFormatError(f"plan[{i}].transportation",
                                       "the flight's route cannot be read (no 'from A to B' here or in current_city)")
    return None
