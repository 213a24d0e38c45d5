"""The automatic choice between the built-in A* and Fast Downward (``pddl.auto_planner``):
decided on a work budget (never on time), recorded with the result, the time limit honoured,
and the built-in planner used (and said so) when Fast Downward is absent."""

from __future__ import annotations

import copy

import pytest
from pddl_data import IPC_STYLE

from planprobe.pddl import auto_planner, fast_downward, ground, load, solve, validate
from planprobe.pddl.errors import NodeLimitError, PlannerTimeoutError

needs_fd = pytest.mark.skipif(not fast_downward.available(), reason="Fast Downward (planner extra) not installed")


def _task(name: str = "depot", problem: str = "p01.pddl"):
    return load(IPC_STYLE / name / "domain.pddl", IPC_STYLE / name / problem)


def test_a_task_within_the_work_budget_stays_built_in_and_says_why():
    result = auto_planner.solve_auto(_task(), fd_available=lambda: True)
    assert result.planner == "builtin astar(lmcut)"
    assert "solved within" in result.choice and "expansions x relevant actions" in result.choice
    assert result.cost == 10 and validate(_task(), result.steps).valid


@needs_fd
def test_past_the_work_budget_fast_downward_takes_over_and_the_record_says_so():
    problem = _task("elevators")
    result = auto_planner.solve_auto(problem, work_limit=1)
    assert result.planner.startswith("fast-downward")
    assert result.choice.startswith("fast-downward: the built-in search reached its limit of 1 expansions")
    assert result.optimal and result.cost == solve(problem, heuristic="lmcut").cost == 13
    assert validate(problem, result.steps).valid
    assert result.expanded > 0  # read from Fast Downward's output, to set beside the built-in's


def test_without_fast_downward_the_built_in_search_goes_on_and_the_record_says_so():
    problem = _task("elevators")
    # the lookup says the extra is absent: no work budget applies, the built-in search finishes
    result = auto_planner.solve_auto(problem, work_limit=1, fd_available=lambda: False)
    assert result.planner == "builtin astar(lmcut)"
    assert "Fast Downward is not installed" in result.choice
    assert result.cost == 13 and result.expanded > 1


@needs_fd
def test_a_changed_initial_state_is_what_fast_downward_plans_from():
    problem = _task("depot")
    full = solve(problem, heuristic="lmcut")
    gp = ground(problem)
    local = copy.copy(gp)  # as the replay's h* does: the state after three steps of an optimal plan
    state = gp.init
    actions = {str(a): a for a in gp.actions()}
    for step in full.steps[:3]:
        a = actions[step]
        state = (state & a.keep) | a.add
    local.init = state
    result = auto_planner.solve_auto(local, work_limit=1)
    assert result.planner.startswith("fast-downward")
    assert result.cost == full.cost - 3 == solve(local, heuristic="lmcut").cost


def test_the_time_limit_is_shared_and_honoured(monkeypatch):
    now = [0.0]
    seen: list[float | None] = []

    def slow_builtin(*args, **kwargs):  # the built-in search used 45 s of the 60 s, then hit its budget
        now[0] += 45.0
        raise NodeLimitError("budget", limit=5, expanded=5)

    def fake_fd(problem, *, time_limit=None, clock=None):
        seen.append(time_limit)
        raise PlannerTimeoutError("fd: out of time")

    monkeypatch.setattr(auto_planner, "solve", slow_builtin)
    monkeypatch.setattr(auto_planner.fast_downward, "solve", fake_fd)
    with pytest.raises(PlannerTimeoutError):
        auto_planner.solve_auto(_task(), time_limit=60.0, fd_available=lambda: True, clock=lambda: now[0])
    assert seen == [15.0]  # Fast Downward gets what is left, not a fresh limit
    now[0], seen[:] = 0.0, []

    def slower_builtin(*args, **kwargs):
        now[0] += 61.0
        raise NodeLimitError("budget", limit=5, expanded=5)

    monkeypatch.setattr(auto_planner, "solve", slower_builtin)
    with pytest.raises(PlannerTimeoutError):
        auto_planner.solve_auto(_task(), time_limit=60.0, fd_available=lambda: True, clock=lambda: now[0])
    assert seen == []  # nothing left: Fast Downward is not started


def test_the_work_limit_is_expansions_times_relevant_actions():
    problem = _task("elevators")
    with pytest.raises(NodeLimitError) as err:
        solve(problem, heuristic="lmcut", work_limit=1)
    assert err.value.limit == 1 and err.value.expanded == 1
    with pytest.raises(NodeLimitError) as err:
        solve(problem, heuristic="lmcut", node_limit=3)
    assert err.value.limit == 3 and isinstance(err.value, PlannerTimeoutError)  # callers catching time-outs


@pytest.mark.parametrize("name,problem", [("depot", "p01.pddl"), ("depot", "p02.pddl"), ("elevators", "p01.pddl"),
                                          ("freecell", "p01.pddl"), ("zenotravel", "p01.pddl")])
def test_lifo_ties_keep_plans_optimal_and_deterministic(name, problem):
    task = _task(name, problem)
    fifo = solve(task, heuristic="lmcut")
    lifo = solve(task, heuristic="lmcut", ties="lifo")
    assert lifo.cost == fifo.cost and validate(task, lifo.steps).valid
    assert solve(_task(name, problem), heuristic="lmcut", ties="lifo").steps == lifo.steps
    with pytest.raises(ValueError, match="ties"):
        solve(task, ties="random")


def _with_budget(work_limit: int, fd: bool):
    def solve_with(problem, **kwargs):
        return auto_planner.solve_auto(problem, work_limit=work_limit, fd_available=lambda: fd, **kwargs)
    return solve_with


@pytest.mark.parametrize("fd", [pytest.param(True, marks=needs_fd), False])
def test_a_generated_case_records_fast_downward_only_when_it_made_the_plan(monkeypatch, fd):
    from planprobe.suites.pddl_agent import generator

    opts = generator.PDDLSuiteOptions(domain="blocksworld", n=1, blocks=(4, 4), solve=True)
    plain = generator.generate_case(0, opts)
    assert "planner" not in plain.meta.generator  # within the budget: the case is as it always was
    monkeypatch.setattr(generator, "solve_auto", _with_budget(1, fd))
    handed = generator.generate_case(0, opts)
    assert len(handed.spec["plan"]) == len(plain.spec["plan"])
    if fd:
        assert handed.meta.generator["planner"].startswith("fast-downward")
        assert "work budget" in handed.meta.generator["choice"]
    else:  # no Fast Downward: the built-in plan, byte for byte
        assert "planner" not in handed.meta.generator and handed.spec == plain.spec
