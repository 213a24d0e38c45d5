"""Exact decision procedures for the constraint family.

PDoctor checks every candidate sentence with a fresh Z3 solver. The constraint
language here is small enough for direct procedures that are exact and orders of
magnitude faster, so synthesis uses them; Z3 remains the reference they are
cross-checked against in the tests (``tests/constraints/test_solver.py``) and
computes unsat cores where a direct argument is not at hand.

* basic mode: actions take distinct positions 1..n; the order atoms are
  satisfiable iff the "before" graph is acyclic. ``OrderClosure`` keeps its
  transitive closure as bitmasks, so adding a sentence costs O(n) per atom.
* extended mode: one machine, actions run one at a time for known durations
  within [0, 24]; atoms add precedences, release times (start ≥ h) and
  deadlines (end ≤ h). Feasibility is decided exactly by dynamic programming
  over the set of finished actions (the earliest finish time dominates), after
  an earliest-deadline-first list schedule that settles most cases at once.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterable, Sequence

HORIZON = 24  # the day: tasks start in [0, 23] and end by 24:00


def closure_add(after: list[int], pairs: Iterable[tuple[int, int]]) -> bool:
    """Add ``a before b`` for each pair to the closure ``after`` in place.

    Returns False (leaving ``after`` partly updated) when a pair closes a cycle.
    """
    n = len(after)
    for a, b in pairs:
        if a == b or (after[b] >> a) & 1:
            return False
        if (after[a] >> b) & 1:
            continue
        add = (1 << b) | after[b]
        bit_a = 1 << a
        for x in range(n):
            if x == a or after[x] & bit_a:
                after[x] |= add
    return True


def closure_add_orders(after: list[int], atoms: Iterable[tuple]) -> bool:
    """``closure_add`` for ("order", a, b) atoms as synthesis draws them (no pair list to build)."""
    n = len(after)
    for _, a, b in atoms:
        if a == b or (after[b] >> a) & 1:
            return False
        if (after[a] >> b) & 1:
            continue
        add = (1 << b) | after[b]
        bit_a = 1 << a
        for x in range(n):
            if x == a or after[x] & bit_a:
                after[x] |= add
    return True


def predecessors(after: Sequence[int]) -> list[int]:
    """Invert a closure: ``preds[b]`` is the bitmask of actions that must come before b."""
    n = len(after)
    preds = [0] * n
    for a in range(n):
        m = after[a]
        bit = 1 << a
        b = 0
        while m:
            if m & 1:
                preds[b] |= bit
            m >>= 1
            b += 1
    return preds


def atoms_add(
    after: list[int], release: list[int], deadline: list[int], durations: Sequence[int], atoms: Iterable[tuple]
) -> bool:
    """Add extended-mode atoms in place with the cheap checks only: no cycle, and
    every action's window still fits its duration. ``schedule`` decides the rest."""
    pairs = []
    for kind, j, x in atoms:
        if kind == "order":
            pairs.append((j, x))
            continue
        if kind == "start_ge":
            release[j] = max(release[j], x)
        elif x < deadline[j]:
            deadline[j] = x
        if release[j] + durations[j] > deadline[j]:
            return False
    return closure_add(after, pairs) if pairs else True


class OrderClosure:
    """Transitive closure of the "before" relation: ``after[a]`` is the bitmask of
    actions that must come after ``a``."""

    __slots__ = ("after",)

    def __init__(self, after: list[int]):
        self.after = after

    @classmethod
    def empty(cls, n: int) -> OrderClosure:
        return cls([0] * n)

    def extended(self, pairs: Iterable[tuple[int, int]]) -> OrderClosure | None:
        """A new closure with ``a before b`` for each pair, or None if that makes a cycle."""
        after = self.after[:]
        return OrderClosure(after) if closure_add(after, pairs) else None

    def predecessors(self) -> list[int]:
        return predecessors(self.after)

    def linear_extension(self) -> list[int]:
        """A valid order (lowest index first among the ready actions)."""
        preds = self.predecessors()
        done, order = 0, []
        for _ in range(len(preds)):
            j = next(j for j in range(len(preds)) if not (done >> j) & 1 and not preds[j] & ~done)
            order.append(j)
            done |= 1 << j
        return order


class ScheduleState:
    """Everything synthesis needs to decide extended-mode satisfiability incrementally."""

    __slots__ = ("deadline", "durations", "order", "release")

    def __init__(self, order: OrderClosure, release: list[int], deadline: list[int], durations: Sequence[int]):
        self.order = order
        self.release = release
        self.deadline = deadline
        self.durations = durations

    @classmethod
    def empty(cls, durations: Sequence[int]) -> ScheduleState:
        n = len(durations)
        return cls(OrderClosure.empty(n), [0] * n, [HORIZON] * n, durations)

    def with_atoms(self, atoms: Iterable[tuple]) -> ScheduleState | None:
        """A new state with the atoms added and only the cheap checks done."""
        after, release, deadline = self.order.after[:], self.release[:], self.deadline[:]
        if not atoms_add(after, release, deadline, self.durations, atoms):
            return None
        return ScheduleState(OrderClosure(after), release, deadline, self.durations)

    def extended(self, atoms: Iterable[tuple]) -> ScheduleState | None:
        """A new state with the atoms added, or None if no schedule satisfies it."""
        state = self.with_atoms(atoms)
        return state if state is not None and state.feasible() else None

    def feasible(self) -> bool:
        return self.schedule() is not None

    def schedule(self) -> list[tuple[int, int]] | None:
        """A feasible schedule as [(action, start), ...] in execution order, or None."""
        preds = self.order.predecessors()
        return schedule(preds, self.release, self.deadline, self.durations)


def schedule(
    preds: Sequence[int], release: Sequence[int], deadline: Sequence[int], durations: Sequence[int]
) -> list[tuple[int, int]] | None:
    """Exact single-machine feasibility with precedences, release times and deadlines."""
    quick = _edf_schedule(preds, release, deadline, durations)
    if quick is not None:
        return quick
    return _dp_schedule(preds, release, deadline, durations)


def _edf_schedule(preds, release, deadline, durations):
    n = len(preds)
    done, t, out = 0, 0, []
    for _ in range(n):
        best, best_key = -1, None
        for j in range(n):
            if (done >> j) & 1 or preds[j] & ~done:
                continue
            key = (deadline[j], release[j], j)
            if best_key is None or key < best_key:
                best, best_key = j, key
        start = max(t, release[best])
        t = start + durations[best]
        if t > deadline[best]:
            return None
        out.append((best, start))
        done |= 1 << best
    return out


def _dp_schedule(preds, release, deadline, durations):
    n = len(preds)
    full = (1 << n) - 1
    best = {0: (0, 0, -1, 0)}  # mask -> (finish, parent mask, action, start); the empty set's parent is never read
    frontier = [0]
    for _ in range(n):
        nxt: dict[int, tuple[int, int, int, int]] = {}
        for mask in frontier:
            t = best[mask][0]
            for j in range(n):
                if (mask >> j) & 1 or preds[j] & ~mask:
                    continue
                start = max(t, release[j])
                end = start + durations[j]
                if end > deadline[j]:
                    continue
                m2 = mask | (1 << j)
                cur = nxt.get(m2)
                if cur is None or end < cur[0]:
                    nxt[m2] = (end, mask, j, start)
        if not nxt:
            return None
        best.update(nxt)
        frontier = list(nxt)
    if full not in best:
        return None
    out = []
    mask = full
    while mask:
        _, parent, j, start = best[mask]
        out.append((j, start))
        mask = parent
    out.reverse()
    return out


# ---------------------------------------------------------------------------
# Explaining a failed plan: a minimum violated set
# ---------------------------------------------------------------------------


def order_cycle_core(
    n: int, constraints: Sequence[tuple[str, int, int]], executed: Sequence[int]
) -> list[str] | None:
    """Smallest set of order constraints that, with the order the plan executed its
    actions in, admits no valid plan — even placing the missing actions anywhere.

    Executed order contributes free edges between consecutive actions; each
    constraint edge costs 1. The cheapest cycle through a constraint edge is the
    minimum core (0-1 BFS from the edge's head back to its tail). None if the
    executed order can still be completed into a valid plan.
    """
    adj: list[list[tuple[int, int, str | None]]] = [[] for _ in range(n)]
    for a, b in itertools.pairwise(executed):
        adj[a].append((b, 0, None))
    for cid, a, b in constraints:
        adj[a].append((b, 1, cid))
    best: list[str] | None = None
    for cid, a, b in constraints:
        path = _cheapest_path(adj, b, a, n)
        if path is None:
            continue
        core = [cid] + path
        if best is None or len(core) < len(best):
            best = core
            if len(best) == 1:
                break
    return best


def _cheapest_path(adj, src: int, dst: int, n: int) -> list[str] | None:
    dist: list[int | None] = [None] * n
    via: list[tuple[int, str | None] | None] = [None] * n
    dist[src] = 0
    dq = deque([src])
    while dq:
        u = dq.popleft()
        du = dist[u]
        assert du is not None  # only reached nodes are queued
        for v, w, cid in adj[u]:
            nd = du + w
            dv = dist[v]
            if dv is None or nd < dv:
                dist[v] = nd
                via[v] = (u, cid)
                if w == 0:
                    dq.appendleft(v)
                else:
                    dq.append(v)
    if dist[dst] is None:
        return None
    ids, v = [], dst
    while v != src:
        step = via[v]
        assert step is not None  # dst was reached, so every node on the way back has a predecessor
        u, cid = step
        if cid is not None:
            ids.append(cid)
        v = u
    return ids


def missing_fit(
    durations: Sequence[int],
    release: Sequence[int],
    deadline: Sequence[int],
    orders: Sequence[tuple[int, int]],
    fixed: dict[int, int],
    busy: Sequence[tuple[int, int]],
    horizon: int = HORIZON,
) -> bool:
    """Whether the actions not in ``fixed`` (action -> start) can still be placed in
    the free time around ``busy`` so that every window and order holds.

    For each order of the missing actions consistent with the precedences, each is
    placed at its earliest feasible start; for a fixed sequence that is optimal,
    as every constraint only ever prefers an earlier end. Exact, and cheap for the
    handful of actions a plan leaves out; callers fall back to Z3 for explanations.
    """
    from itertools import permutations

    missing = [a for a in range(len(durations)) if a not in fixed]
    preds: dict[int, list[int]] = {a: [] for a in range(len(durations))}
    succs: dict[int, list[int]] = {a: [] for a in range(len(durations))}
    for a, b in orders:
        preds[b].append(a)
        succs[a].append(b)
    fixed_end = {a: s + durations[a] for a, s in fixed.items()}
    for a, s in fixed.items():  # what was executed must itself keep its windows and mutual order
        if s < release[a] or fixed_end[a] > min(deadline[a], horizon):
            return False
    for a, b in orders:
        if a in fixed and b in fixed and fixed_end[a] > fixed[b]:
            return False
    for perm in permutations(missing):
        pos = {a: i for i, a in enumerate(perm)}
        if any(p in pos and pos[p] > pos[a] for a in perm for p in preds[a]):
            continue
        taken = sorted(busy)
        placed: dict[int, int] = {}
        for a in perm:
            d = durations[a]
            lb = release[a]
            for p in preds[a]:
                lb = max(lb, fixed_end[p] if p in fixed_end else placed[p])
            ub = min(deadline[a], horizon)  # latest end
            for s in succs[a]:
                if s in fixed:
                    ub = min(ub, fixed[s])
            start = _earliest_gap(taken, lb, d, ub)
            if start is None:
                break
            placed[a] = start + d
            taken = sorted(taken + [(start, start + d)])
        else:
            return True
    return False


def _earliest_gap(taken: Sequence[tuple[int, int]], lb: int, d: int, latest_end: int) -> int | None:
    start = lb
    for s, e in taken:
        if e <= start:
            continue
        if start + d <= s:
            break
        start = e
    return start if start + d <= latest_end else None
