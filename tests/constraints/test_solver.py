"""The direct decision procedures agree with Z3 (the seed's formulation)."""

import itertools
import random

from planprobe.suites.constraints.solver import (
    HORIZON,
    OrderClosure,
    order_cycle_core,
    predecessors,
    schedule,
)
from planprobe.suites.constraints.z3model import basic_satisfiable, extended_satisfiable


def _random_pairs(rng, n, k):
    return [tuple(rng.sample(range(n), 2)) for _ in range(k)]


def test_order_closure_agrees_with_z3():
    rng = random.Random(1)
    for _ in range(400):
        n = rng.randint(2, 6)
        pairs = _random_pairs(rng, n, rng.randint(1, 8))
        closure = OrderClosure.empty(n).extended(pairs)
        assert (closure is not None) == basic_satisfiable(n, pairs), (n, pairs)


def test_linear_extension_respects_every_pair():
    rng = random.Random(2)
    for _ in range(200):
        n = rng.randint(2, 7)
        closure = OrderClosure.empty(n).extended(_random_pairs(rng, n, 4))
        if closure is None:
            continue
        order = closure.linear_extension()
        pos = {a: i for i, a in enumerate(order)}
        assert sorted(order) == list(range(n))
        for a in range(n):
            for b in range(n):
                if (closure.after[a] >> b) & 1:
                    assert pos[a] < pos[b]


def _random_atoms(rng, n):
    atoms = [("order",) + p for p in _random_pairs(rng, n, rng.randint(0, 4))]
    for _ in range(rng.randint(0, 4)):
        if rng.random() < 0.5:
            atoms.append(("start_ge", rng.randrange(n), rng.randint(1, 21)))
        else:
            atoms.append(("end_le", rng.randrange(n), rng.randint(3, 23)))
    return atoms


def _windows(n, atoms):
    release, deadline = [0] * n, [HORIZON] * n
    for kind, a, h in atoms:
        if kind == "start_ge":
            release[a] = max(release[a], h)
        elif kind == "end_le":
            deadline[a] = min(deadline[a], h)
    return release, deadline


def test_schedule_feasibility_agrees_with_z3():
    rng = random.Random(3)
    agree = feasible = 0
    for _ in range(500):
        n = rng.randint(2, 5)
        durations = [rng.randint(1, 6) for _ in range(n)]
        atoms = _random_atoms(rng, n)
        closure = OrderClosure.empty(n).extended((a[1], a[2]) for a in atoms if a[0] == "order")
        ours = None
        if closure is not None:
            release, deadline = _windows(n, atoms)
            ours = schedule(predecessors(closure.after), release, deadline, durations)
            if ours is not None:  # the schedule itself satisfies everything
                start = dict(ours)
                t = 0
                for a, s in ours:
                    assert s >= t and s >= release[a] and s + durations[a] <= deadline[a]
                    t = s + durations[a]
                for kind, a, b in atoms:
                    if kind == "order":
                        assert start[a] + durations[a] <= start[b]
        expected = extended_satisfiable(durations, atoms)
        agree += (ours is not None) == expected
        feasible += expected
    assert agree == 500
    assert 50 < feasible < 450  # the sample exercises both answers


def test_order_cycle_core_is_a_minimum_explanation():
    rng = random.Random(4)
    checked = 0
    for _ in range(300):
        n = rng.randint(3, 6)
        closure = OrderClosure.empty(n).extended(_random_pairs(rng, n, 3))
        if closure is None:
            continue
        constraints = [(f"c{i}", a, b) for i, (a, b) in enumerate(
            (a, b) for a in range(n) for b in range(n) if (closure.after[a] >> b) & 1 and rng.random() < 0.6)]
        executed = rng.sample(range(n), rng.randint(1, n - 1))
        core = order_cycle_core(n, constraints, executed)
        chain = list(itertools.pairwise(executed))

        def unsat(subset, n=n, chain=chain):
            return not basic_satisfiable(n, chain + [(a, b) for _, a, b in subset])

        assert (core is not None) == unsat(constraints)
        if core is None:
            continue
        checked += 1
        chosen = [c for c in constraints if c[0] in core]
        assert unsat(chosen)
        # no smaller subset of the constraints is already inconsistent with the executed order
        for k in range(1, len(core)):
            assert not any(unsat(list(sub)) for sub in itertools.combinations(constraints, k))
    assert checked > 20


def test_missing_fit_agrees_with_z3_on_random_partial_schedules():
    from planprobe.suites.constraints.solver import missing_fit
    from planprobe.suites.constraints.z3model import extension_core

    rng = random.Random(6)
    outcomes = set()
    for _ in range(400):
        n = rng.randint(2, 5)
        durations = [rng.randint(1, 4) for _ in range(n)]
        atoms = _random_atoms(rng, n)
        orders = [(a, b) for kind, a, b in atoms if kind == "order"]
        release, deadline = _windows(n, atoms)
        executed = rng.sample(range(n), rng.randint(1, n - 1))
        fixed, t = {}, rng.randint(0, 6)
        for a in executed:  # a sequential, non-overlapping partial plan
            fixed[a] = t
            t += durations[a] + rng.randint(0, 3)
        busy = [(s, s + durations[a]) for a, s in fixed.items()]
        if any(s + durations[a] > HORIZON for a, s in fixed.items()):
            continue
        constraints = [(f"c{i}", atom) for i, atom in enumerate(atoms)]
        z3_fits = extension_core(durations, constraints, fixed, busy) is None
        assert missing_fit(durations, release, deadline, orders, fixed, busy) == z3_fits, (durations, atoms, fixed)
        outcomes.add(z3_fits)
    assert outcomes == {True, False}
