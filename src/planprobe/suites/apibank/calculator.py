"""API-Bank's Calculator: its validity rules and its left-to-right list reduction.

The reduction is reproduced operation for operation — including its oddities: a
parenthesis group ends at the *first* ``)`` of the formula (so nested groups fail
with "')' is not in list"), and a leading minus makes the reduction splice at the
end of the list. Where API-Bank would loop forever (a leading minus can make the
list grow without end) planprobe stops after ``MAX_STEPS`` reductions and reports
the formula as invalid.
"""

from __future__ import annotations

from typing import Any

MAX_STEPS = 10_000
_OPS = "+-*/"


class _Runaway(Exception):
    pass


def _valid(formula: str) -> bool:
    if not formula:
        return False
    if any(c not in "0123456789+-*/()" for c in formula):
        return False
    if formula.count("(") != formula.count(")"):
        return False
    ops = sum(formula.count(o) for o in _OPS)
    return ops != 0 and ops + 1 != len(formula)


def _tokens(formula: str) -> list[Any]:
    out: list[Any] = []
    digits = ""
    for c in formula:
        if c.isdigit():
            digits += c
            continue
        if digits:
            out.append(float(digits))
            digits = ""
        out.append(c)
    if digits:
        out.append(float(digits))
    return out


def _apply(left: Any, op: str, right: Any) -> Any:
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    return left / right


def _first(items: list[Any], a: str, b: str) -> int:
    if a in items and b in items:
        return min(items.index(a), items.index(b))
    return items.index(a) if a in items else items.index(b)


def _reduce(items: list[Any], budget: list[int]) -> Any:
    while "(" in items:
        lo, hi = items.index("("), items.index(")")
        items[lo:hi + 1] = [_reduce(items[lo + 1:hi], budget)]
    for a, b in (("*", "/"), ("+", "-")):
        while a in items or b in items:
            budget[0] -= 1
            if budget[0] < 0:
                raise _Runaway
            i = _first(items, a, b)
            items[i - 1:i + 2] = [_apply(items[i - 1], items[i], items[i + 1])]
    return items[0]


class InvalidFormula(Exception):
    """API-Bank's Calculator raises a bare Exception("invalid formula"); this keeps its text."""


def calculate(formula: str) -> Any:
    """The value API-Bank's Calculator returns, or the exception it raises."""
    formula = formula.replace(" ", "")
    if not _valid(formula):
        raise InvalidFormula("invalid formula")
    try:
        return _reduce(_tokens(formula), [MAX_STEPS])
    except _Runaway:
        raise InvalidFormula("invalid formula") from None
