"""Delete-relaxed reachability, shared by the planners (refusing a goal no relaxed
plan reaches) and the protocol hooks (naming goals lost for good)."""

from __future__ import annotations

import pytest

from planprobe.pddl import ground
from planprobe.pddl.budget import Budget
from planprobe.pddl.errors import UnsolvableError
from planprobe.pddl.parser import parse_domain, parse_problem
from planprobe.pddl.relaxed import (
    relaxed_closure,
    relaxed_lost_goals,
    require_relaxed_goal,
)

JARS = """(define (domain jars) (:requirements :strips)
  (:predicates (whole ?j) (filled ?j) (empty ?j))
  (:action fill :parameters (?j) :precondition (and (whole ?j) (empty ?j)) :effect (and (filled ?j) (not (empty ?j))))
  (:action smash :parameters (?j) :precondition (whole ?j) :effect (not (whole ?j))))"""


def _jars(init: str):
    text = f"(define (problem two) (:domain jars) (:objects j1 j2) (:init {init}) (:goal (and (filled j1) (filled j2))))"
    return ground(parse_problem(text, parse_domain(JARS, "jars"), "two.pddl"))


def test_the_closure_ignores_deletes_and_names_only_lost_goals():
    gp = _jars("(whole j1) (whole j2) (empty j1) (empty j2)")
    actions = gp.actions()
    reached = relaxed_closure(actions, gp.init)
    assert relaxed_lost_goals(gp, reached) == []
    require_relaxed_goal(gp, actions)  # solvable: no error
    smash_j1 = next(a for a in actions if str(a) == "(smash j1)")
    after = smash_j1.apply(gp.init)
    assert [str(lit) for lit in relaxed_lost_goals(gp, relaxed_closure(actions, after))] == ["(filled j1)"]
    assert relaxed_closure(actions, after) & ~after  # (filled j2) is still reachable


def test_an_unreachable_goal_is_refused_by_name_and_the_budget_is_ticked():
    gp = _jars("(whole j2) (empty j1) (empty j2)")
    budget = Budget(None, stride=1)
    with pytest.raises(UnsolvableError, match=r"two.pddl: unsolvable: the goal \(filled j1\) cannot be reached"):
        require_relaxed_goal(gp, gp.actions(), budget)
    assert budget.units >= len(gp.actions())  # one sweep at least
