"""Plans for a constraint requirement once it is read: an order of the tasks (basic mode) or a
schedule of integer start hours (extended mode), completing what was already executed.

Exact and small: tasks run one at a time, so for a fixed order starting every task as early as
allowed is best (release times only forbid earlier starts; deadlines and later tasks only gain
from earlier ends). A depth-first search over orders from (set of tasks done, current hour) with
the failed states remembered decides whether a completion exists and returns one. Unknown
durations are taken as 1 hour, the least a task can take: every bound the reader produces other
than "ends at or after h" only gets harder with longer tasks, so a plan that fails with 1 hour
fails with the true duration too (that is when the solver asks for a restart).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .constraints_text import Atom

DAY_END = 24  # every task must end by 24:00
LAST_START = 23


@dataclass(frozen=True)
class Bounds:
    """The constraints of a requirement by task: predecessors and the windows of start and end."""

    preds: tuple[frozenset[int], ...]
    release: tuple[int, ...]  # earliest start
    latest_start: tuple[int, ...]
    deadline: tuple[int, ...]  # latest end
    end_from: tuple[int, ...]  # earliest end

    @staticmethod
    def of(n: int, atoms: frozenset[Atom]) -> Bounds:
        preds: list[set[int]] = [set() for _ in range(n)]
        release, latest, deadline, end_from = [0] * n, [LAST_START] * n, [DAY_END] * n, [0] * n
        for atom in atoms:
            kind, a, b = atom[0], int(atom[1]), int(atom[2])
            if kind == "<":
                preds[b].add(a)
            elif kind == "s>=":
                release[a] = max(release[a], b)
            elif kind == "s<=":
                latest[a] = min(latest[a], b)
            elif kind == "e<=":
                deadline[a] = min(deadline[a], b)
            elif kind == "e>=":
                end_from[a] = max(end_from[a], b)
        return Bounds(tuple(frozenset(p) for p in preds), tuple(release), tuple(latest), tuple(deadline),
                      tuple(end_from))


def order_completion(bounds: Bounds, done: Sequence[int]) -> list[int] | None:
    """Basic mode: the remaining tasks in an order that keeps every "before" (a topological order,
    lowest index first), or None when the order constraints form a cycle."""
    n = len(bounds.preds)
    finished = set(done)
    out: list[int] = []
    while len(finished) < n:
        ready = [k for k in range(n) if k not in finished and bounds.preds[k] <= finished]
        if not ready:
            return None
        finished.add(ready[0])
        out.append(ready[0])
    return out


def _effective_deadlines(bounds: Bounds, durations: Sequence[int]) -> list[int]:
    """A task's deadline tightened by its successors' (it must end in time for them to run):
    used only to try the most urgent task first."""
    n = len(durations)
    eff = list(bounds.deadline)
    for _ in range(n):
        for b in range(n):
            for a in bounds.preds[b]:
                eff[a] = min(eff[a], eff[b] - durations[b])
    return eff


def schedule_completion(bounds: Bounds, durations: Sequence[int], done: Sequence[int],
                        now: int) -> list[tuple[int, int]] | None:
    """Extended mode: (task, start hour) for every task not in ``done``, starting at ``now`` or
    later, that meets every bound with these durations; None when there is none."""
    n = len(durations)
    urgency = _effective_deadlines(bounds, durations)
    order = sorted(range(n), key=lambda k: (urgency[k], k))
    failed: set[tuple[int, int]] = set()
    full = (1 << n) - 1

    def search(mask: int, t: int) -> list[tuple[int, int]] | None:
        if mask == full:
            return []
        if (mask, t) in failed:
            return None
        for k in order:
            if mask >> k & 1 or any(not mask >> p & 1 for p in bounds.preds[k]):
                continue
            start = max(t, bounds.release[k], bounds.end_from[k] - durations[k])
            end = start + durations[k]
            if start > min(LAST_START, bounds.latest_start[k]) or end > min(DAY_END, bounds.deadline[k]):
                continue
            rest = search(mask | 1 << k, end)
            if rest is not None:
                return [(k, start), *rest]
        failed.add((mask, t))
        return None

    mask = 0
    for k in done:
        mask |= 1 << k
    return search(mask, now)


def prefix_problem(bounds: Bounds, runs: Sequence[tuple[int, int, int]]) -> str | None:
    """What the tasks executed so far (task, start, duration, in order) already break, if
    anything: a restart is then the only way to meet the requirement."""
    seen: dict[int, tuple[int, int]] = {}
    prev_end = 0
    for k, start, d in runs:
        end = start + d
        if k in seen:
            return f"task {k} ran twice"
        if start < prev_end or start < 0 or start > LAST_START or end > DAY_END:
            return f"task {k} started at {start} and ended at {end}"
        if start < bounds.release[k] or start > bounds.latest_start[k] or end > bounds.deadline[k] \
                or end < bounds.end_from[k]:
            return f"task {k} ran outside its time window"
        for p in bounds.preds[k]:
            if p not in seen or seen[p][1] > start:
                return f"task {k} ran before task {p}"
        seen[k] = (start, end)
        prev_end = end
    return None


Move = tuple[int, int]  # (task, or -1 - composite index; start hour)


def cheapest_completion(bounds: Bounds, durations: Sequence[int], done: Sequence[int], now: int,
                        price: Sequence[int], composites: Sequence[tuple[int, int, int]],
                        timed: bool) -> tuple[int, list[Move]] | None:
    """A cost variant's completion at the least total price: each move runs one task at its price,
    or a composite (first, second, price) that runs two tasks back to back in one call (the
    second starts the hour the first ends). Exact: a dynamic programme over (tasks done, hour),
    every move started as early as it can (for a fixed sequence of moves that is never worse).
    None when no completion meets the bounds."""
    n = len(durations)
    full = (1 << n) - 1
    memo: dict[tuple[int, int], tuple[int, list[Move]] | None] = {}

    def fits(k: int, start: int) -> bool:
        end = start + durations[k]
        return (not timed or (bounds.release[k] <= start <= min(LAST_START, bounds.latest_start[k])
                              and bounds.end_from[k] <= end <= min(DAY_END, bounds.deadline[k])))

    def ready(k: int, mask: int) -> bool:
        return not mask >> k & 1 and all(mask >> p & 1 for p in bounds.preds[k])

    def best(mask: int, t: int) -> tuple[int, list[Move]] | None:
        if mask == full:
            return 0, []
        key = (mask, t)
        if key in memo:
            return memo[key]
        found: tuple[int, list[Move]] | None = None
        for k in range(n):
            if not ready(k, mask):
                continue
            start = max(t, bounds.release[k], bounds.end_from[k] - durations[k]) if timed else 0
            if fits(k, start):
                rest = best(mask | 1 << k, start + durations[k] if timed else 0)
                if rest is not None and (found is None or price[k] + rest[0] < found[0]):
                    found = (price[k] + rest[0], [(k, start), *rest[1]])
        for c, (a, b, cost) in enumerate(composites):
            if a == b or not ready(a, mask) or not ready(b, mask | 1 << a):
                continue
            start = max(t, bounds.release[a], bounds.release[b] - durations[a],
                        bounds.end_from[a] - durations[a]) if timed else 0
            if fits(a, start) and fits(b, start + durations[a] if timed else 0):
                rest = best(mask | 1 << a | 1 << b, start + durations[a] + durations[b] if timed else 0)
                if rest is not None and (found is None or cost + rest[0] < found[0]):
                    found = (cost + rest[0], [(-1 - c, start), *rest[1]])
        memo[key] = found
        return found

    mask = 0
    for k in done:
        mask |= 1 << k
    return best(mask, now)
