"""The constraint family in Z3, as the seed formulates it.

Synthesis and checking use the direct procedures in ``solver.py``; this module
is the reference they are tested against, and it finds the minimal violated
set when an extended-mode plan left actions out and the order it did execute
can no longer be completed (a question about gaps in time that Z3 answers
directly).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .solver import HORIZON


def _z3() -> Any:
    """Z3, imported when first needed: the oracle imports this module, and most checks never
    reach Z3, so a run does not pay its import at start-up (issue #30)."""
    import z3

    return z3


def basic_satisfiable(n: int, pairs: Iterable[tuple[int, int]]) -> bool:
    """One integer per action, distinct positions 1..n, a < b for each pair."""
    z3 = _z3()
    s = z3.Solver()
    pos = [z3.Int(f"a{i + 1}") for i in range(n)]
    for p in pos:
        s.add(p >= 1, p <= n)
    s.add(z3.Distinct(*pos))
    for a, b in pairs:
        s.add(pos[a] < pos[b])
    return s.check() == z3.sat


def _timeline(durations: Sequence[int], horizon: int):
    z3 = _z3()
    start = [z3.Int(f"a{i + 1}_start") for i in range(len(durations))]
    end = [z3.Int(f"a{i + 1}_end") for i in range(len(durations))]
    base = []
    for i, d in enumerate(durations):
        base += [start[i] >= 0, start[i] <= horizon - 1, end[i] <= horizon, end[i] - start[i] == d]
    return start, end, base


def _atom(atom: tuple, start, end):
    kind, a, x = atom
    if kind == "order":
        return end[a] <= start[x]
    if kind == "start_ge":
        return start[a] >= x
    return end[a] <= x


def extended_satisfiable(durations: Sequence[int], atoms: Iterable[tuple], horizon: int = HORIZON) -> bool:
    """Fig. 7: start/end per action, fixed durations, one task at a time, the atoms."""
    z3 = _z3()
    s = z3.Solver()
    start, end, base = _timeline(durations, horizon)
    s.add(*base)
    n = len(durations)
    for i in range(n):
        for j in range(i + 1, n):
            s.add(z3.Or(end[i] <= start[j], end[j] <= start[i]))
    for atom in atoms:
        s.add(_atom(atom, start, end))
    return s.check() == z3.sat


def extension_core(
    durations: Sequence[int],
    constraints: Sequence[tuple[str, tuple]],
    fixed: dict[int, int],
    busy: Sequence[tuple[int, int]],
    horizon: int = HORIZON,
) -> list[str] | None:
    """A minimal set of constraint ids under which the actions a plan left out cannot
    be fitted around what it executed (``fixed``: action -> start of its first run;
    ``busy``: every executed interval). None when they still fit."""
    z3 = _z3()
    s = z3.Solver()
    start, end, base = _timeline(durations, horizon)
    s.add(*base)
    missing = [i for i in range(len(durations)) if i not in fixed]
    for i, t in fixed.items():
        s.add(start[i] == t)
    for k, i in enumerate(missing):
        for b0, b1 in busy:
            s.add(z3.Or(end[i] <= b0, b1 <= start[i]))
        for j in missing[k + 1:]:
            s.add(z3.Or(end[i] <= start[j], end[j] <= start[i]))
    guards = {}
    for cid, atom in constraints:
        g = z3.Bool(f"guard_{cid}")
        guards[cid] = g
        s.add(z3.Implies(g, _atom(atom, start, end)))
    if s.check(*guards.values()) == z3.sat:
        return None
    by_name = {str(g): cid for cid, g in guards.items()}
    core = [by_name[str(g)] for g in s.unsat_core()]
    # deletion-based minimisation: drop each id the rest still refutes without
    for cid in list(core):
        trial = [c for c in core if c != cid]
        if s.check(*[guards[c] for c in trial]) == z3.unsat:
            core = trial
    order = {cid: i for i, (cid, _) in enumerate(constraints)}
    return sorted(core, key=order.__getitem__)
