"""LM-cut: admissible on every reachable state (checked against exact goal
distances), never below h_max, its cuts really are landmarks, and landmarks
inherited from a parent keep it admissible."""

from __future__ import annotations

from collections import deque
from pathlib import Path

import pytest

from planprobe.pddl import ground, load
from planprobe.pddl.budget import Budget
from planprobe.pddl.lmcut import INF, LMCut
from planprobe.pddl.planner import _hmax
from planprobe.pddl.search_task import SearchTask

DATA = Path(__file__).resolve().parent / "data" / "ipc_style"
TASKS = sorted((d.name, p.name) for d in DATA.iterdir() if d.is_dir() for p in d.glob("p*.pddl"))


def _space(task: SearchTask) -> tuple[dict[int, list[tuple[int, int]]], dict[int, int]]:
    """Every reachable state with its successors, and the exact goal distance of each
    state that can reach the goal (breadth-first, backwards)."""
    succ: dict[int, list[tuple[int, int]]] = {}
    todo = deque([task.init])
    seen = {task.init}
    while todo:
        s = todo.popleft()
        succ[s] = []
        for n in task.applicable(s):
            x = (s & task.keep[n]) | task.add[n]
            succ[s].append((n, x))
            if x not in seen:
                seen.add(x)
                todo.append(x)
    pred: dict[int, list[int]] = {}
    for s, out in succ.items():
        for _, x in out:
            pred.setdefault(x, []).append(s)
    dist = {s: 0 for s in succ if task.goal_reached(s)}
    todo = deque(dist)
    while todo:
        x = todo.popleft()
        for s in pred.get(x, ()):
            if s not in dist:
                dist[s] = dist[x] + 1
                todo.append(s)
    return succ, dist


@pytest.mark.parametrize("name,problem", TASKS)
def test_admissible_dominates_hmax_and_inherits_soundly(name, problem):
    gp = ground(load(DATA / name / "domain.pddl", DATA / name / problem))
    task = SearchTask(gp, gp.actions(), prune=False)
    succ, dist = _space(task)
    assert len(succ) > 30
    h = LMCut(*task.ordered_conditions(), len(gp.atoms))
    h_max = _hmax(task, Budget(None))
    informative = 0
    for s, out in succ.items():
        value, cuts = h.landmarks(s)
        exact = dist.get(s, INF)
        assert h_max(s) <= value <= exact
        informative += value > h_max(s)
        assert value == 0 or len(cuts) >= 1
        cut_of = {o: k for k, cut in enumerate(cuts) for o in cut}
        for n, child in out:
            k = cut_of.get(n)
            inherited = h.run(child, [o for o in cut_of if cut_of[o] != k], len(cuts) - (k is not None))
            assert inherited <= dist.get(child, INF)
    assert informative > 0  # LM-cut is better informed than h_max somewhere


@pytest.mark.parametrize("name,problem", TASKS)
def test_every_cut_is_a_landmark_of_the_delete_relaxation(name, problem):
    gp = ground(load(DATA / name / "domain.pddl", DATA / name / problem))
    task = SearchTask(gp, gp.actions(), prune=False)
    pres, adds, goal = task.ordered_conditions()
    h = LMCut(pres, adds, goal, len(gp.atoms))
    for s in list(_space(task)[0])[:40]:
        _, cuts = h.landmarks(s)
        for cut in cuts:
            removed = set(cut)
            reached, changed = s, True  # relaxed reachability without the cut's actions
            while changed:
                changed = False
                for n in range(len(task.actions)):
                    if n not in removed and reached & task.pre_pos[n] == task.pre_pos[n] and task.add[n] & ~reached:
                        reached |= task.add[n]
                        changed = True
            assert reached & task.goal_pos != task.goal_pos, (s, cut)


def test_independent_subgoals_add_up():
    """v0: 0 -> 1 -> 2 (twice: with and without needing v1=1) and v1: 0 -> 1. The two
    subgoals need disjoint actions, so h* = 3; without the goal-zone and border
    tie-breaking, LM-cut merges the landmarks of both and says 2."""
    f0, f1, f2, f3, f4 = range(5)  # v0=0, v0=1, v0=2, v1=0, v1=1
    pres = [[f4, f1], [f3], [f0], [f1]]
    adds = [[f2], [f4], [f1], [f2]]
    assert LMCut(pres, adds, [f2, f4], 5)(1 << f0 | 1 << f3) == 3


def test_goal_states_and_dead_ends():
    h = LMCut([[0]], [[1]], [1], 3)
    assert h(0b010) == 0
    assert h(0b001) == 1
    assert h(0b100) == INF  # fact 0 is unreachable, so is the goal


@pytest.mark.parametrize("name,problem", TASKS[:4])
def test_unit_costs_given_explicitly_walk_exactly_as_the_unit_default(name, problem):
    """One walk serves both: ``costs=[1, …]`` must find the same cuts, in the same
    order, as the default, and both must differ from a task whose costs differ."""
    gp = ground(load(DATA / name / "domain.pddl", DATA / name / problem))
    task = SearchTask(gp, gp.actions(), prune=False)
    pres, adds, goal = task.ordered_conditions()
    unit = LMCut(pres, adds, goal, len(gp.atoms))
    ones = LMCut(pres, adds, goal, len(gp.atoms), costs=[1] * len(pres))
    twos = LMCut(pres, adds, goal, len(gp.atoms), costs=[2] * len(pres))
    states = list(_space(task)[0])[:60]
    for s in states:
        value, cuts = unit.landmarks(s)
        assert ones.landmarks(s) == (value, cuts)
        assert twos.landmarks(s)[0] == 2 * value  # every cut costs twice as much
    assert any(unit(s) > 0 for s in states)
    with pytest.raises(ValueError, match="unit costs only"):
        ones.run(states[0], [0], 1)
