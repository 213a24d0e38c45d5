"""The built-in A* planner and the Fast Downward wrapper."""

from __future__ import annotations

import pytest
from pddl_data import gpt4_rows, optimal_lengths, problem

from planprobe.pddl import (
    PlannerTimeoutError,
    PlannerUnavailableError,
    UnsolvableError,
    fast_downward,
    parse_domain,
    parse_problem,
    validate,
)
from planprobe.pddl import solve as planner_solve


def solve(problem, **options):
    """The built-in planner with no time limit unless a test sets one: no test may depend
    on how fast the machine is (speed is measured by benchmarks/pddl_planner.py)."""
    options.setdefault("time_limit", None)
    return planner_solve(problem, **options)


BW = """(define (domain bw) (:requirements :strips)
  (:predicates (clear ?x) (ontable ?x) (handempty) (holding ?x) (on ?x ?y))
  (:action pick-up :parameters (?ob) :precondition (and (clear ?ob) (ontable ?ob) (handempty))
    :effect (and (holding ?ob) (not (clear ?ob)) (not (ontable ?ob)) (not (handempty))))
  (:action put-down :parameters (?ob) :precondition (holding ?ob)
    :effect (and (clear ?ob) (handempty) (ontable ?ob) (not (holding ?ob))))
  (:action stack :parameters (?ob ?underob) :precondition (and (clear ?underob) (holding ?ob))
    :effect (and (handempty) (clear ?ob) (on ?ob ?underob) (not (clear ?underob)) (not (holding ?ob))))
  (:action unstack :parameters (?ob ?underob) :precondition (and (on ?ob ?underob) (clear ?ob) (handempty))
    :effect (and (holding ?ob) (clear ?underob) (not (on ?ob ?underob)) (not (clear ?ob)) (not (handempty)))))
"""


def _bw(goal: str, blocks: str = "a b c", init: str = "") -> object:
    names = blocks.split()
    init = init or " ".join(f"(ontable {b}) (clear {b})" for b in names) + " (handempty)"
    text = f"(define (problem p) (:domain bw) (:objects {blocks}) (:init {init}) (:goal {goal}))"
    return parse_problem(text, parse_domain(BW), "p.pddl")


def test_reference_lengths_match_planbench_ground_truth():
    """The reference table (Fast Downward astar(lmcut())) equals PlanBench's own
    ground-truth plan lengths on every instance PlanBench ships one for."""
    ref = optimal_lengths()
    assert len(ref) == 501
    rows = gpt4_rows("blocksworld", "task_1_plan_generation.jsonl.gz")
    assert len(rows) == 250
    for row in rows:
        assert ref[row["instance_id"]] == len(row["ground_truth_plan"]), row["instance_id"]


def test_optimal_on_every_generated_basic_blocksworld_instance():
    """Correctness only, with no time limit: the planner's speed is measured by
    benchmarks/pddl_planner.py (docs/BENCHMARKS.md), never by a test."""
    ref = optimal_lengths()
    for i in sorted(ref):
        prob = problem("blocksworld", i)
        result = solve(prob, time_limit=None)
        assert result.cost == ref[i], i
        assert result.optimal and validate(prob, result.steps).valid


@pytest.mark.parametrize("heuristic", ["blind", "lmcut"])
def test_other_heuristics_are_optimal_too(heuristic):
    ref = optimal_lengths()
    for i in range(1, 501, 25):
        assert solve(problem("blocksworld", i), heuristic=heuristic).cost == ref[i]


def test_lmcut_expands_fewer_states_than_hmax_on_logistics():
    prob = problem("logistics", 13)
    by_hmax, by_lmcut = solve(prob), solve(prob, heuristic="lmcut")
    assert by_hmax.cost == by_lmcut.cost == 18
    assert by_lmcut.expanded * 5 < by_hmax.expanded


def test_small_logistics_plans_are_valid_and_match_fast_downward_when_present():
    for i in (1, 4, 7, 11, 12):
        prob = problem("logistics", i)
        result = solve(prob, time_limit=None)
        assert validate(prob, result.steps).valid
        if fast_downward.available():
            assert fast_downward.solve(prob, time_limit=None).cost == result.cost


def test_goal_already_true_gives_the_empty_plan():
    assert solve(_bw("(and (ontable a))")).steps == ()


def test_unsolvable_by_exhausted_search():
    with pytest.raises(UnsolvableError, match=r"p.pddl: unsolvable: the search space is exhausted \(\d+ states"):
        solve(_bw("(and (on a b) (on b a))"))


def test_unsolvable_when_relaxed_unreachable():
    # nothing is held and the hand is not empty: no action can ever apply
    prob = parse_problem("(define (problem p) (:domain bw) (:objects a b) (:init (on a b) (clear a)) "
                         "(:goal (ontable b)))", parse_domain(BW), "p.pddl")
    with pytest.raises(UnsolvableError, match=r"p.pddl: unsolvable: the goal \(ontable b\) cannot be reached even "
                                              "with delete effects ignored"):
        solve(prob)


def test_node_and_time_limits():
    prob = problem("blocksworld", 500)
    with pytest.raises(PlannerTimeoutError, match="within the node limit of 3 expansions"):
        solve(prob, node_limit=3)
    big = _bw("(and (on a b) (on b c) (on c d) (on d e) (on e f) (on f g) (on g h) (on h i) (on i j))",
              "a b c d e f g h i j")
    reads = iter(range(10**9))  # a clock that passes the 0.2 s limit at its 50th read (tests inject time)
    with pytest.raises(PlannerTimeoutError, match=r"within the time limit of 0.2 s .*heuristic lmcut.*use Fast "
                                                  "Downward"):
        solve(big, time_limit=0.2, heuristic="blind", clock=lambda: next(reads) / 250)


def test_fast_downward_missing_gives_the_install_command(monkeypatch):
    monkeypatch.setattr(fast_downward, "driver_path", lambda: None)
    with pytest.raises(PlannerUnavailableError, match=r"pip install 'planprobe\[planner\]'"):
        fast_downward.solve(problem("blocksworld", 2))


@pytest.fixture
def fd():
    if not fast_downward.available():
        pytest.skip("Fast Downward (pip install 'planprobe[planner]') is not installed")
    return fast_downward


def test_fast_downward_optimal_plans(fd):
    ref = optimal_lengths()
    for i in (2, 101, 377, 500):
        prob = problem("blocksworld", i)
        result = fd.solve(prob, time_limit=None)
        assert result.cost == ref[i] and result.optimal and result.planner == "fast-downward astar(lmcut())"
        assert validate(prob, result.steps).valid
    obf = problem("obfuscated_deceptive_logistics", 3)  # written back without the empty sections
    assert validate(obf, fd.solve(obf, time_limit=None).steps).valid


def test_fast_downward_unsolvable_and_errors(fd):
    with pytest.raises(UnsolvableError, match="Fast Downward proved that no plan exists"):
        fd.solve(_bw("(and (on a b) (on b a))"))
    with pytest.raises(fast_downward.PlannerError, match="Fast Downward failed"):
        fd.solve(problem("blocksworld", 2), search="nonsense()")


@pytest.mark.slow
def test_fast_downward_matches_on_all_generated_basic(fd):
    ref = optimal_lengths()
    for i in sorted(ref):
        assert fd.solve(problem("blocksworld", i), time_limit=None).cost == ref[i], i
