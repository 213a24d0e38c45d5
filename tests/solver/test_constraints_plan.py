"""The constraint reader's planner is exact: its schedules against Z3, its cheapest plans against
brute force over every sequence of calls, on random small instances."""

from __future__ import annotations

import itertools
import random

import z3

from planprobe.solver.constraints_plan import (
    DAY_END,
    LAST_START,
    Bounds,
    cheapest_completion,
    order_completion,
    schedule_completion,
)


def random_instance(rng: random.Random, n: int) -> tuple[Bounds, list[int]]:
    atoms: set[tuple] = set()
    order = list(range(n))
    rng.shuffle(order)
    for _ in range(rng.randint(0, n + 1)):
        i, j = sorted(rng.sample(range(n), 2))
        atoms.add(("<", order[i], order[j]))
    for _ in range(rng.randint(0, 3)):
        a = rng.randrange(n)
        atoms.add(("s>=", a, rng.randint(0, 20)) if rng.random() < 0.5 else ("e<=", a, rng.randint(2, 24)))
    return Bounds.of(n, frozenset(atoms)), [rng.randint(1, 5) for _ in range(n)]


def z3_feasible(bounds: Bounds, durations: list[int]) -> bool:
    n = len(durations)
    s = [z3.Int(f"s{k}") for k in range(n)]
    solver = z3.Solver()
    for k in range(n):
        solver.add(s[k] >= bounds.release[k], s[k] <= min(LAST_START, bounds.latest_start[k]),
                   s[k] + durations[k] <= min(DAY_END, bounds.deadline[k]))
        for p in bounds.preds[k]:
            solver.add(s[p] + durations[p] <= s[k])
    for a, b in itertools.combinations(range(n), 2):
        solver.add(z3.Or(s[a] + durations[a] <= s[b], s[b] + durations[b] <= s[a]))
    return solver.check() == z3.sat


def valid(bounds: Bounds, durations: list[int], plan: list[tuple[int, int]]) -> bool:
    t, seen = 0, set()
    for k, start in plan:
        end = start + durations[k]
        if start < t or start < bounds.release[k] or start > LAST_START or end > min(DAY_END, bounds.deadline[k]):
            return False
        if not bounds.preds[k] <= seen:
            return False
        seen.add(k)
        t = end
    return len(seen) == len(durations)


def test_schedules_agree_with_z3():
    rng = random.Random(7)
    for _ in range(300):
        bounds, durations = random_instance(rng, rng.randint(2, 6))
        plan = schedule_completion(bounds, durations, [], 0)
        assert (plan is not None) == z3_feasible(bounds, durations)
        if plan is not None:
            assert valid(bounds, durations, plan)


def brute_cheapest(bounds: Bounds, durations: list[int], price: list[int],
                   combos: list[tuple[int, int, int]], timed: bool) -> int | None:
    """Every sequence of moves (single tasks or composites), each started as early as it can."""
    n = len(durations)
    best: int | None = None

    def go(done: frozenset[int], t: int, cost: int) -> None:
        nonlocal best
        if len(done) == n:
            best = cost if best is None else min(best, cost)
            return
        moves = [((k,), price[k]) for k in range(n)] + [((a, b), c) for a, b, c in combos if a != b]
        for tasks, c in moves:
            if any(k in done for k in tasks) or len(set(tasks)) != len(tasks):
                continue
            now, ok, seen = t, True, set(done)
            for i, k in enumerate(tasks):
                if not bounds.preds[k] <= seen:
                    ok = False
                    break
                if timed:
                    start = max(now, bounds.release[k]) if i == 0 else now
                    if i == 0 and len(tasks) == 2:
                        start = max(start, bounds.release[tasks[1]] - durations[k])
                    if start < bounds.release[k] or start > LAST_START or start + durations[k] > min(
                            DAY_END, bounds.deadline[k]):
                        ok = False
                        break
                    now = start + durations[k]
                seen.add(k)
            if ok:
                go(frozenset(seen), now, cost + c)

    go(frozenset(), 0, 0)
    return best


def test_cheapest_plans_agree_with_brute_force():
    rng = random.Random(11)
    for trial in range(200):
        n = rng.randint(2, 5)
        bounds, durations = random_instance(rng, n)
        price = [rng.randint(2, 9) for _ in range(n)]
        pairs = [p for p in itertools.permutations(range(n), 2)]
        combos = [(a, b, rng.randint(2, price[a] + price[b] - 1)) for a, b in rng.sample(pairs, min(3, len(pairs)))]
        timed = trial % 2 == 1
        found = cheapest_completion(bounds, durations, [], 0, price, combos, timed)
        want = brute_cheapest(bounds, durations, price, combos, timed)
        assert (found[0] if found else None) == want, (trial, found, want)


def test_order_completion_keeps_every_before_and_finds_cycles():
    bounds = Bounds.of(3, frozenset({("<", 2, 0), ("<", 0, 1)}))
    assert order_completion(bounds, []) == [2, 0, 1]
    assert order_completion(Bounds.of(2, frozenset({("<", 0, 1), ("<", 1, 0)})), []) is None
