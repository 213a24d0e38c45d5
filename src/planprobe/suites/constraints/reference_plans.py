"""Plans for the reference agents: a valid one, a random one, and one with a
single injected fault (used to prove the oracle names each fault exactly)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence

from ...schema import ErrorClass
from ..base import PlannedCall
from .prepared import PreparedCase

Schedule = list[tuple[int, int | None]]  # (action, start time or None)
Timed = list[tuple[int, int]]  # an extended case's schedule: (action, start time)

FAULTS: dict[str, str] = {
    "drop": ErrorClass.ACTION_LOST.value,
    "duplicate": ErrorClass.REPEATED_ACTION.value,
    "swap": ErrorClass.ORDER_ERROR.value,
    "unknown-tool": ErrorClass.ACT_ERROR.value,
    "malformed-args": ErrorClass.ACT_ERROR.value,
    "wrong-start-time": ErrorClass.PARAMETER_ERROR.value,
    "stall": ErrorClass.TIMEOUT.value,
}
# the paper's classes (Tables 3 and 6) have no Repeated Action: it is an Order Error there
PAPER_FAULTS: dict[str, str] = {**FAULTS, "duplicate": ErrorClass.ORDER_ERROR.value}


def to_calls(prepared: PreparedCase, plan: Sequence[tuple[int, int | None]]) -> list[PlannedCall]:
    if not prepared.extended:
        return [PlannedCall(prepared.tools[a], "{}") for a, _ in plan]
    return [PlannedCall(prepared.tools[a], json.dumps({"start_time": s})) for a, s in plan]


def reference_plan(prepared: PreparedCase) -> list[PlannedCall]:
    return to_calls(prepared, prepared.solution())


def random_plan(prepared: PreparedCase, rng: random.Random) -> list[PlannedCall]:
    """Every action once, in random order; in the extended mode each task starts
    right after the previous one or an hour later."""
    order = list(range(prepared.n))
    rng.shuffle(order)
    if not prepared.extended:
        return to_calls(prepared, [(a, None) for a in order])
    plan: Timed = []
    t = rng.randint(0, 3)
    for a in order:
        start = min(t + rng.randint(0, 1), prepared.horizon - 1)
        plan.append((a, start))
        t = start + prepared.durations[a]
    return to_calls(prepared, plan)


def _retime(prepared: PreparedCase, order: list[int], deadlines: bool = False) -> Timed | None:
    """Earliest start times for this sequence, honouring release times; None if a task
    would run past the day, or (``deadlines``) if a first run misses its deadline."""
    release, deadline = prepared.windows_arrays()
    plan: Timed = []
    t, seen = 0, set()
    for a in order:
        start = max(t, release[a])
        t = start + prepared.durations[a]
        if t > prepared.horizon or (deadlines and a not in seen and t > deadline[a]):
            return None
        seen.add(a)
        plan.append((a, start))
    return plan


def _valid_schedules(prepared: PreparedCase, limit: int = 200) -> Iterator[Timed]:
    """The solver's plan first, then other valid extended schedules (earliest start
    times in each order consistent with the precedences), up to ``limit``."""
    first = prepared.timed_solution()
    yield first
    if prepared.n > 7:
        return
    preds = [0] * prepared.n
    for _, a, b in prepared.orders:
        preds[b] |= 1 << a
    count = 0

    def extend(order: list[int], done: int) -> Iterator[Timed]:
        nonlocal count
        if count >= limit:
            return
        if len(order) == prepared.n:
            plan = _retime(prepared, order, deadlines=True)
            if plan is not None and plan != first:
                count += 1
                yield plan
            return
        for j in range(prepared.n):
            if not (done >> j) & 1 and not preds[j] & ~done:
                yield from extend(order + [j], done | (1 << j))

    yield from extend([], 0)


def faulty_plan(prepared: PreparedCase, fault: str, rng: random.Random) -> list[PlannedCall] | None:
    base = prepared.solution()
    n = len(base)
    if fault == "drop":
        del base[rng.randrange(n)]
        return to_calls(prepared, base)
    if fault == "swap":
        return _swap(prepared, base, rng)
    if fault == "unknown-tool":
        calls = to_calls(prepared, base)
        ghost = prepared.tools[rng.randrange(prepared.n)] + "_v2"
        while ghost in prepared.tool_index:
            ghost += "_v2"
        args = "{}" if not prepared.extended else calls[0].arguments
        calls.insert(rng.randrange(n + 1), PlannedCall(ghost, args))
        return calls
    if fault == "malformed-args":
        calls = to_calls(prepared, base)
        k = rng.randrange(n)
        broken = calls[k].arguments[:-1] if prepared.extended else '{"confirm": tru'
        # after the valid call, so it is never a mistake the agent repaired (which the
        # paper's style forgives): a spurious call with broken arguments
        calls.insert(k + 1, PlannedCall(calls[k].name, broken))
        return calls
    if fault == "duplicate" and not prepared.extended:
        k = rng.randrange(n)
        base.insert(k + 1, base[k])
        return to_calls(prepared, base)
    if fault in ("duplicate", "wrong-start-time"):
        if not prepared.extended:
            return None
        inject = _duplicate if fault == "duplicate" else _wrong_start
        for plan in _valid_schedules(prepared):
            out = inject(prepared, plan, rng)
            if out is not None:
                return to_calls(prepared, out)
        return None
    raise ValueError(f"unknown fault {fault!r}")


def _duplicate(prepared: PreparedCase, base: Timed, rng: random.Random) -> Timed | None:
    """Run one task a second time: at the end of the day's plan if it fits, else
    right after its first run, with the later tasks moved back."""
    order = [a for a, _ in base]
    candidates = list(range(len(base)))
    rng.shuffle(candidates)
    last_end = base[-1][1] + prepared.durations[base[-1][0]]
    for k in candidates:
        if last_end + prepared.durations[order[k]] <= prepared.horizon:
            return base + [(order[k], last_end)]
    for k in candidates:
        plan = _retime(prepared, order[: k + 1] + [order[k]] + order[k + 1:], deadlines=True)
        if plan is not None:
            return plan
    return None


def _swap(prepared: PreparedCase, base: Schedule, rng: random.Random) -> list[PlannedCall] | None:
    order = [a for a, _ in base]
    pos = {a: i for i, a in enumerate(order)}
    constraints = list(prepared.orders)
    rng.shuffle(constraints)
    for _, a, b in constraints:  # put b where a was and a where b was: "a before b" breaks
        swapped = order[:]
        swapped[pos[a]], swapped[pos[b]] = b, a
        if not prepared.extended:
            return to_calls(prepared, [(x, None) for x in swapped])
        plan = _retime(prepared, swapped)
        if plan is not None:
            return to_calls(prepared, plan)
    return None


def _wrong_start(prepared: PreparedCase, base: Timed, rng: random.Random) -> Timed | None:
    """Start a task an hour before its predecessor has ended (where no constraint
    links the two), or let the last task run past 24:00."""
    release, _ = prepared.windows_arrays()
    direct = {(a, b) for _, a, b in prepared.orders}
    ks = list(range(1, len(base)))
    rng.shuffle(ks)
    for k in ks:
        (p, ps), (j, _) = base[k - 1], base[k]
        start = ps + prepared.durations[p] - 1
        if start >= release[j] and (p, j) not in direct:
            plan = base[:]
            plan[k] = (j, start)
            return plan
    j, s = base[-1]
    late = prepared.horizon - prepared.durations[j] + 1  # so it ends an hour past the day
    has_deadline = any(a == j and kind == "end_le" for _, kind, a, _ in prepared.windows)
    if late <= prepared.horizon - 1 and late >= s and not has_deadline:
        return base[:-1] + [(j, late)]
    return None
