"""The cost-optimal planner (``cost_planner.solve_costs``) and LM-cut with action costs.

* LM-cut under costs never overestimates the exact cost-to-go (Dijkstra backwards over
  every reachable state) and is never below h_max;
* with unit costs and no composites the plan is as long as the unit-cost A*'s;
* with costs and composites its cost equals an independent uniform-cost search over the
  explicit state space (composites applied as "first, then second in the state after it"),
  on Blocksworld and Logistics; the plan is valid and its steps add up to its cost;
* the test can fail: with the schemas' full costs in the heuristic (not a cost partition)
  A* returns a dearer plan on some problem;
* Fast Downward (``astar(lmcut())``) on the same tasks written as propositional PDDL with
  action costs finds the same minimum (skipped without the ``planner`` extra).
"""

from __future__ import annotations

import heapq
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from planprobe.pddl import fast_downward, ground, solve, validate
from planprobe.pddl.cost_planner import (
    CompositeAction,
    partitions,
    reduced_costs,
    solve_costs,
)
from planprobe.pddl.errors import UnsolvableError
from planprobe.pddl.generators import (
    LogisticsSize,
    blocksworld_problem,
    logistics_problem,
)
from planprobe.pddl.lmcut import INF, LMCut
from planprobe.pddl.planner import _hmax
from planprobe.pddl.search_task import SearchTask


def _problem(seed: int):
    rng = random.Random(seed)
    if seed % 2:
        return blocksworld_problem(rng.randint(3, 4), rng, "on"), rng
    return logistics_problem(LogisticsSize(2, rng.randint(1, 2), rng.randint(1, 2), 1, 1), rng, "all"), rng


def _prices(problem, rng: random.Random, k: int = 3) -> tuple[dict[str, int], list[CompositeAction]]:
    """As the cost variant draws them: 2-9 credits, composites saving 1..min-1 (a schema may follow itself)."""
    names = [a.name for a in problem.domain.actions]
    costs = {n: rng.randint(2, 9) for n in names}
    comps = []
    for i in range(k):
        a, b = rng.choice(names), rng.choice(names)
        saving = rng.randint(1, max(1, min(costs[a], costs[b]) - 1))
        comps.append(CompositeAction(f"combo_{i + 1}", a, b, costs[a] + costs[b] - saving))
    return costs, comps


def _uniform_cost(gp, costs, comps) -> int:
    """Dijkstra over the explicit state space, written apart from the planner: every ground
    action, and every composite as its first half then its second in the state after it."""
    actions = gp.actions()
    start = gp.init
    dist = {start: 0}
    queue = [(0, start)]
    while queue:
        d, s = heapq.heappop(queue)
        if d > dist[s]:
            continue
        if gp.goal_reached(s):
            return d
        moves = [(costs[a.name], a.apply(s)) for a in actions if a.applicable(s)]
        for c in comps:
            for a in actions:
                if a.name != c.first or not a.applicable(s):
                    continue
                mid = a.apply(s)
                moves += [(c.cost, b.apply(mid)) for b in actions if b.name == c.second and b.applicable(mid)]
        for cost, x in moves:
            if d + cost < dist.get(x, INF):
                dist[x] = d + cost
                heapq.heappush(queue, (d + cost, x))
    raise AssertionError("no plan")


def _replay(gp, plan, costs, comps) -> None:
    """The plan is valid step by step (composites: both halves) and costs what it says."""
    by_name = {c.name: c for c in comps}
    assert validate(gp, plan.actions).valid
    total = 0
    for step in plan.steps:
        if step.name in by_name:
            assert len(step.actions) == 2 and step.cost == by_name[step.name].cost
            assert step.actions[0].strip("(").split()[0] == by_name[step.name].first
            assert step.actions[1].strip("(").split()[0] == by_name[step.name].second
        else:
            assert len(step.actions) == 1 and step.cost == costs[step.name]
        total += step.cost
    assert total == plan.cost


@pytest.mark.parametrize("seed", range(40))
def test_minimum_cost_equals_uniform_cost_search(seed):
    problem, rng = _problem(seed)
    gp = ground(problem)
    costs, comps = _prices(problem, rng)
    plan = solve_costs(gp, costs, comps, time_limit=None)
    assert plan.cost == _uniform_cost(gp, costs, comps)
    _replay(gp, plan, costs, comps)
    assert solve_costs(gp, costs, comps, heuristic="blind", time_limit=None).cost == plan.cost


@pytest.mark.parametrize("seed", range(10))
def test_unit_costs_give_the_shortest_plan(seed):
    problem, _ = _problem(seed)
    unit = solve_costs(problem, {a.name: 1 for a in problem.domain.actions}, time_limit=None)
    assert unit.cost == len(unit.steps) == len(solve(problem, heuristic="lmcut", time_limit=None).steps)


def test_the_test_can_fail(monkeypatch):
    """The schemas' full costs in the heuristic overestimate when composites save: A* then
    misses the minimum on some of these problems, and the comparison above would see it."""
    import planprobe.pddl.cost_planner as cp

    monkeypatch.setattr(cp, "partitions", lambda costs, comps: [dict(costs)])
    dearer = 0
    for seed in range(60):
        problem, rng = _problem(seed)
        gp = ground(problem)
        costs, comps = _prices(problem, rng, k=5)
        dearer += solve_costs(gp, costs, comps, time_limit=None).cost > _uniform_cost(gp, costs, comps)
    assert dearer > 0


def test_cost_partitions_never_charge_a_composite_more_than_it_costs():
    rng = random.Random(4)
    names = ["a", "b", "c", "d"]
    for _ in range(300):
        costs = {n: rng.randint(0, 9) for n in names}
        comps = [CompositeAction(f"k{i}", rng.choice(names), rng.choice(names), rng.randint(0, 18)) for i in range(4)]
        for r in [reduced_costs(costs, comps), *partitions(costs, comps)]:
            assert all(0 <= r[n] <= costs[n] for n in names)
            assert all(r[c.first] + r[c.second] <= c.cost for c in comps)


def _exact_costs_to_go(task: SearchTask, cost: list[int]) -> dict[int, int]:
    """Every reachable state's exact cost to the goal (Dijkstra backwards)."""
    succ: dict[int, list[tuple[int, int]]] = {}
    todo, seen = [task.init], {task.init}
    while todo:
        s = todo.pop()
        succ[s] = []
        for n in task.applicable(s):
            x = (s & task.keep[n]) | task.add[n]
            succ[s].append((cost[n], x))
            if x not in seen:
                seen.add(x)
                todo.append(x)
    pred: dict[int, list[tuple[int, int]]] = {}
    for s, out in succ.items():
        for c, x in out:
            pred.setdefault(x, []).append((c, s))
    dist = {s: 0 for s in succ if task.goal_reached(s)}
    queue = [(0, s) for s in dist]
    while queue:
        d, x = heapq.heappop(queue)
        if d > dist[x]:
            continue
        for c, s in pred.get(x, ()):
            if d + c < dist.get(s, INF):
                dist[s] = d + c
                heapq.heappush(queue, (d + c, s))
    return {s: dist.get(s, INF) for s in succ}


@pytest.mark.parametrize("seed", range(12))
def test_lmcut_with_costs_is_admissible_and_dominates_hmax(seed):
    problem, rng = _problem(seed)
    gp = ground(problem)
    task = SearchTask(gp, gp.actions(), prune=False)
    costs = {a.name: rng.randint(0, 9) for a in problem.domain.actions}
    cost = [costs[a.name] for a in task.actions]
    pres, adds, goal = task.ordered_conditions()
    h = LMCut(pres, adds, goal, len(gp.atoms), costs=cost)
    exact = _exact_costs_to_go(task, cost)
    unit = LMCut(pres, adds, goal, len(gp.atoms), costs=[1] * len(cost))
    hmax = _hmax(task, fast_budget())
    for state, d in exact.items():
        assert h(state) <= d, (seed, d)
        assert unit(state) >= hmax(state)  # with unit costs LM-cut is at least h_max


def fast_budget():
    from planprobe.pddl.budget import Budget

    return Budget(None)


def test_bad_costs_are_refused():
    problem, _ = _problem(1)
    with pytest.raises(ValueError, match="no cost for"):
        solve_costs(problem, {"stack": 1})
    costs = {a.name: 1 for a in problem.domain.actions}
    with pytest.raises(ValueError, match="non-negative"):
        solve_costs(problem, {**costs, "stack": -1})
    with pytest.raises(ValueError, match="not an action of the domain"):
        solve_costs(problem, costs, [CompositeAction("k", "stack", "fly", 1)])
    with pytest.raises(ValueError, match="unit costs only"):
        LMCut([[0]], [[1]], [1], 2, costs=[2]).run(1, free_actions=[0], inherited=1)


def test_an_unsolvable_problem_is_reported():
    from planprobe.pddl import parse_domain, parse_problem

    domain = parse_domain("(define (domain d) (:predicates (p) (q)) (:action a :parameters () :precondition (p) "
                          ":effect (and (not (p)))))")
    problem = parse_problem("(define (problem x) (:domain d) (:init (p)) (:goal (q)))", domain)
    with pytest.raises(UnsolvableError):
        solve_costs(problem, {"a": 3})


# -- Fast Downward on the same tasks -------------------------------------------

def _propositional_pddl(gp, costs, comps) -> tuple[str, str]:
    """The task as grounded PDDL with action costs: one 0-ary predicate per atom, one action
    per ground action and per ground composite (its sequential composition as one STRIPS
    action: pre = pre1 + what pre2 needs that the first does not add, add/delete composed)."""
    task = SearchTask(gp, gp.actions(), prune=False)
    acts = task.actions

    def bits(mask: int) -> list[int]:
        return [i for i in range(len(gp.atoms)) if mask >> i & 1]

    def atom(i: int) -> str:
        return f"(f{i})"

    entries = []
    for a in acts:
        entries.append((a.pre_pos, a.pre_neg, a.add, a.delete & ~a.add, costs[a.name]))
    for c in comps:
        for a in acts:
            if a.name != c.first:
                continue
            for b in acts:
                if b.name != c.second:
                    continue
                if b.pre_pos & a.delete & ~a.add or b.pre_neg & a.add:
                    continue  # the second half can never follow the first
                pre_pos = a.pre_pos | (b.pre_pos & ~a.add)
                pre_neg = a.pre_neg | (b.pre_neg & ~a.delete)
                if pre_pos & pre_neg:
                    continue
                add = (a.add & ~b.delete) | b.add
                delete = ((a.delete | b.delete) & ~add)
                entries.append((pre_pos, pre_neg, add, delete, c.cost))
    lines = ["(define (domain g) (:requirements :strips :negative-preconditions :action-costs)",
             "(:predicates " + " ".join(atom(i) for i in range(len(gp.atoms))) + ")",
             "(:functions (total-cost) - number)"]
    for k, (pp, pn, add, dele, cost) in enumerate(entries):
        pre = [atom(i) for i in bits(pp)] + [f"(not {atom(i)})" for i in bits(pn)]
        eff = [atom(i) for i in bits(add)] + [f"(not {atom(i)})" for i in bits(dele)]
        lines.append(f"(:action o{k} :parameters () :precondition (and {' '.join(pre)}) "
                     f":effect (and {' '.join(eff)} (increase (total-cost) {cost})))")
    lines.append(")")
    goal = [atom(i) for i in bits(gp.goal_pos)] + [f"(not {atom(i)})" for i in bits(gp.goal_neg)]
    problem = ("(define (problem p) (:domain g) (:init " + " ".join(atom(i) for i in bits(gp.init))
               + " (= (total-cost) 0)) (:goal (and " + " ".join(goal) + ")) (:metric minimize (total-cost)))")
    return "\n".join(lines), problem


@pytest.mark.skipif(not fast_downward.available(), reason="Fast Downward (the planner extra) is not installed")
@pytest.mark.parametrize("seed", [1, 2, 3, 5, 8])
def test_fast_downward_finds_the_same_minimum(seed):
    problem, rng = _problem(seed)
    gp = ground(problem)
    costs, comps = _prices(problem, rng)
    domain, task = _propositional_pddl(gp, costs, comps)
    with tempfile.TemporaryDirectory() as tmp:
        d, p = Path(tmp) / "domain.pddl", Path(tmp) / "problem.pddl"
        d.write_text(domain)
        p.write_text(task)
        done = subprocess.run([sys.executable, str(fast_downward.driver_path()), "--plan-file", "plan",
                               str(d), str(p), "--search", "astar(lmcut())"], cwd=tmp, capture_output=True,
                              text=True, timeout=600, check=False)
        assert done.returncode == 0, done.stdout[-2000:]
        last = (Path(tmp) / "plan").read_text().strip().splitlines()[-1]
    fd_cost = int(last.split("=")[1].split()[0])
    assert fd_cost == solve_costs(gp, costs, comps, time_limit=None).cost
