"""What a relation means to the independent reader (``reader.py``): which points of two tasks (or
of a task and a time) it compares, as atoms over task names.
"""

from __future__ import annotations

from typing import Final

from .reader_phrases import END, EVENT, START, Atom, Atoms

_POINTS: Final = {EVENT: ("s", "e", True), START: ("s", "s", False), END: ("e", "e", False)}  # (lo, hi, hi is open)
_KIND: Final = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "=": "eq"}


def _compare(aspect: str, rel: str, other: str | None) -> tuple[str, str, str] | None:
    """All points of the subject stand in ``rel`` to all points of the object (a task
    with aspect ``other``, or a time when ``other`` is None). Tasks are half-open
    intervals [start, end); a time is an instant. Returns (subject point, op, object point)."""
    lo, hi, hi_open = _POINTS[aspect]
    olo, ohi, ohi_open = _POINTS[other] if other else ("t", "t", False)
    if rel == "<":
        return hi, ("<=" if hi_open else "<"), olo
    if rel == "<=":
        return hi, "<=", olo
    if rel == ">":
        return lo, (">=" if ohi_open else ">"), ohi
    if rel == ">=":
        return lo, ">=", ohi
    if rel == "=":
        return lo, "=", olo
    return None


def _task_atom(a: str, b: str, pa: str, op: str, pb: str) -> Atom:
    """A comparison of two different tasks' points, under the rule that tasks run one
    at a time: most comparisons just say which task comes first."""
    if op in (">", ">="):
        a, b, pa, pb, op = b, a, pb, pa, "<" if op == ">" else "<="
    if op == "=":
        return ("same_time", pa, pb, a, b)
    if (pa, pb) == ("e", "s"):
        return ("order", a, b) if op == "<=" else ("gap", a, b)
    if (pa, pb) == ("s", "e") and op == "<=":
        return ("start_le_end", a, b)  # also true when b ends exactly as a starts
    return ("order", a, b)


def _relate(subj: tuple[str, ...], aspect: str, rel: str, obj: float | tuple[str, ...],
            other: str | None = EVENT) -> list[Atoms]:
    """The readings of "subj <rel> obj": one atom set per reading."""
    if rel in (">>", "<<"):
        pairs = [(a, b) for a in subj for b in obj] if isinstance(obj, tuple) else [(a, obj) for a in subj]
        return [frozenset(("immediately", rel, a, b) for a, b in pairs)]
    if rel == "while":
        return [frozenset(("while", a, obj) for a in subj)]
    if not isinstance(obj, tuple):  # a time
        readings = []
        cmp = _compare(aspect, rel, None)
        assert cmp is not None
        point, op, _ = cmp
        readings.append(frozenset((f"{'start' if point == 's' else 'end'}_{_KIND[op]}", a, obj) for a in subj))
        if aspect == EVENT and rel in ("<", "<="):  # "happens before 15:00": or it merely starts before
            readings.append(frozenset((f"start_{_KIND[rel]}", a, obj) for a in subj))
        return readings
    cmp = _compare(aspect, rel, other)
    assert cmp is not None
    pa, op, pb = cmp
    if cmp == ("e", "<=", "s"):  # the common case: the subject ends by the time the object starts
        return [frozenset([("order", a, b) for a in subj for b in obj])]
    if cmp == ("s", ">=", "e"):
        return [frozenset([("order", b, a) for a in subj for b in obj])]
    return [frozenset([_task_atom(a, b, pa, op, pb) for a in subj for b in obj])]
