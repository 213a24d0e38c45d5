"""Grounding and simulation: typed bindings, static pruning, equality, step parsing."""

from __future__ import annotations

import pytest
from pddl_data import problem

from planprobe.pddl import (
    Atom,
    PlanStepError,
    applicable,
    apply,
    ground,
    ground_step,
    parse_domain,
    parse_plan,
    parse_problem,
    parse_step,
    run,
)

TYPED = """(define (domain typed)
  (:requirements :strips :typing :negative-preconditions :equality)
  (:types truck plane - vehicle vehicle place - object)
  (:constants hub - place)
  (:predicates (at ?v - vehicle ?p - place) (broken ?v - vehicle) (road ?a ?b - place))
  (:action move
    :parameters (?v - truck ?from ?to - place)
    :precondition (and (at ?v ?from) (road ?from ?to) (not (broken ?v)) (not (= ?from ?to)))
    :effect (and (not (at ?v ?from)) (at ?v ?to)))
  (:action fly
    :parameters (?p - plane ?from - place)
    :precondition (and (at ?p ?from) (not (= ?from hub)))
    :effect (and (not (at ?p ?from)) (at ?p hub)))
  (:action break
    :parameters (?v - vehicle)
    :precondition (not (broken ?v))
    :effect (broken ?v)))
"""
TYPED_PROBLEM = """(define (problem p) (:domain typed)
  (:objects t1 t2 - truck p1 - plane a b - place)
  (:init (at t1 a) (at t2 b) (at p1 a) (road a b) (road b a) (road a a) (road b hub))
  (:goal (and (at t1 b) (at p1 hub) (not (broken t1)))))
"""


@pytest.fixture(scope="module")
def typed():
    return parse_problem(TYPED_PROBLEM, parse_domain(TYPED))


@pytest.mark.parametrize("text, expected", [
    ("(unstack a b)", ("unstack", ("a", "b"))),
    ("unstack a b", ("unstack", ("a", "b"))),
    ("  ( UNSTACK  A   b )  ", ("unstack", ("a", "b"))),
    ("(handempty)", ("handempty", ())),
    ("pick-up a", ("pick-up", ("a",))),
])
def test_parse_step(text, expected):
    assert parse_step(text) == expected


@pytest.mark.parametrize("text", ["", "(unstack a b", "unstack a b)", "((unstack a b))", "unstack(a, b)", "()"])
def test_parse_step_rejects(text):
    with pytest.raises(PlanStepError) as info:
        parse_step(text)
    assert info.value.kind == "syntax"


def test_parse_plan_skips_comments_and_blank_lines():
    assert parse_plan("(a x)\n\n ; comment\n(b y) ; trailing\n; cost = 2 (unit cost)\n") == ["(a x)", "(b y)"]


def test_ground_step_errors_are_precise():
    gp = ground(problem("blocksworld", 2))
    cases = {
        "(unstak d c)": ("unknown_action", ("unknown action 'unstak' (the domain has: pick-up, put-down, stack, "
                                           "unstack)")),
        "(unstack d)": ("arity", "'unstack' takes 2 arguments (unstack ?ob ?underob), got 1"),
        "(unstack d e)": ("unknown_object", "unknown object 'e' (the problem has: a, b, c, d)"),
        "(unstack d c": ("syntax", "expected a step like '(action arg1 arg2)'"),
    }
    for step, (kind, reason) in cases.items():
        with pytest.raises(PlanStepError) as info:
            ground_step(gp, step)
        assert (info.value.kind, info.value.reason) == (kind, reason)
        assert str(info.value) == f"{step}: {reason}"


def test_types_are_checked_for_steps(typed):
    gp = ground(typed)
    with pytest.raises(PlanStepError) as info:
        ground_step(gp, "(move p1 a b)")
    assert info.value.kind == "type"
    assert info.value.reason == "argument 1 of 'move' (?v) must be of type 'truck', but 'p1' is of type 'plane'"
    assert ground_step(gp, "(break p1)").args == ("p1",)  # plane is a vehicle
    assert ground_step(gp, ("move", "T1", "A", "B")) is ground_step(gp, "(move t1 a b)")


def test_apply_and_applicable(typed):
    gp = ground(typed)
    move = ground_step(gp, "(move t1 a b)")
    assert applicable(gp.init, move)
    s = apply(gp.init, move)
    assert Atom("at", ("t1", "b")) in gp.decode(s) and Atom("at", ("t1", "a")) not in gp.decode(s)
    assert not applicable(s, move)
    assert [str(lit) for lit in move.unmet(s)] == ["(at t1 a)"]
    # delete relaxation keeps the deleted atom
    assert Atom("at", ("t1", "a")) in gp.decode(apply(gp.init, move, ignore_deletes=True))
    # negative precondition
    broken = apply(gp.init, ground_step(gp, "(break t1)"))
    assert [str(lit) for lit in move.unmet(broken)] == ["(not (broken t1))"]
    # equality: the ground action exists but can never apply
    loop = ground_step(gp, "(move t1 a a)")
    assert loop.impossible and not applicable(gp.init, loop)
    assert [str(lit) for lit in loop.unmet(gp.init)] == ["(not (= a a))"]
    states = [s for _, s in run(gp, ["(move t1 a b)", "(fly p1 a)"])]
    assert gp.goal_reached(states[-1])
    with pytest.raises(PlanStepError, match=r"step 2 is not applicable: unmet \(at t1 a\)"):
        list(run(gp, ["(move t1 a b)", "(move t1 a b)"]))


def test_all_actions_respect_types_statics_and_equality(typed):
    gp = ground(typed)
    names = sorted(str(a) for a in gp.actions())
    # move: trucks only (types), only along roads (static), never a→a (equality)
    assert [n for n in names if n.startswith("(move")] == [
        "(move t1 a b)", "(move t1 b a)", "(move t1 b hub)", "(move t2 a b)", "(move t2 b a)", "(move t2 b hub)"]
    assert [n for n in names if n.startswith("(fly")] == ["(fly p1 a)"]  # p1 is never at b (relaxed reachability)
    assert len([n for n in names if n.startswith("(break")]) == 3


def test_static_pruning_on_logistics():
    prob = problem("logistics", 12)
    gp = ground(prob)
    n_objects = len(prob.all_objects)
    naive = sum(n_objects ** a.arity for a in prob.domain.actions)
    assert len(gp.actions()) < naive / 50
    for a in gp.actions():
        if a.name == "drive-truck":
            truck, frm, to, city = a.args
            assert {Atom("truck", (truck,)), Atom("in-city", (frm, city)), Atom("in-city", (to, city))} <= \
                set(prob.init)


def test_lazy_grounding_does_not_ground_everything():
    gp = ground(problem("logistics", 250))
    ground_step(gp, "(load-truck p0 t0 l0-0)")
    assert len(gp._ground) == 1 and gp._all is None
