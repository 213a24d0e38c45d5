"""The validator: outcomes, explanations, relaxations, and agreement with PlanBench's verdicts."""

from __future__ import annotations

import json

import pytest
from pddl_data import gpt4_rows, problem

from planprobe.pddl import (
    Outcome,
    Relaxation,
    ground,
    parse_domain,
    parse_problem,
    validate,
)

OPTIMAL_2 = ["(unstack d c)", "(put-down d)", "(pick-up c)", "(stack c a)"]  # blocksworld instance 2


@pytest.fixture(scope="module")
def bw2():
    return problem("blocksworld", 2)


def test_valid_plan(bw2):
    r = validate(bw2, OPTIMAL_2)
    assert r.valid and bool(r) and r.outcome is Outcome.VALID and r.step is None
    assert r.plan_length == 4
    assert r.explain() == "Plan valid: 4 steps executed, goal satisfied."
    assert "(on c a)" in {str(a) for a in r.state_atoms}
    assert validate(bw2, "\n".join(OPTIMAL_2) + "\n; cost = 4 (unit cost)\n").valid  # plan-file text


def test_inexecutable_names_step_action_and_each_unmet_precondition(bw2):
    r = validate(bw2, ["(unstack d c)", "(pick-up d)", "(stack d a)"])
    assert r.outcome is Outcome.INEXECUTABLE and not r.valid
    assert (r.step, r.action) == (2, "(pick-up d)")
    assert [str(lit) for lit in r.unmet_preconditions] == ["(clear d)", "(ontable d)", "(handempty)"]
    assert r.explain() == (
        "Plan invalid: step 2 (pick-up d) is not executable.\n"
        "Plan failed because of unsatisfied preconditions in (pick-up d) at step 2:\n"
        "  (clear d) is false\n  (ontable d) is false\n  (handempty) is false\n"
        "Plan Repair Advice:\n"
        "  (Set (clear d) to true)\n  (Set (ontable d) to true)\n  (Set (handempty) to true)")


def test_goal_not_reached_names_each_unmet_goal():
    prob = problem("blocksworld", 40)  # goal: (on a c) (on c d) (on d b); (on c d) holds initially
    r = validate(prob, [])
    assert r.outcome is Outcome.GOAL_NOT_REACHED and r.step is None
    assert [str(lit) for lit in r.unmet_goals] == ["(on a c)", "(on d b)"]
    assert r.explain().startswith("Plan invalid: 0 steps executed, but the goal is not satisfied.\n"
                                  "Unsatisfied goals:\n  (on a c) is false\n")


@pytest.mark.parametrize("step, kind", [("(unstak d c)", "unknown_action"), ("(unstack d)", "arity"),
                                        ("(unstack d q)", "unknown_object"), ("unstack d c)", "syntax")])
def test_unparseable_step(bw2, step, kind):
    r = validate(bw2, ["(unstack d c)", "(put-down d)", step])
    assert r.outcome is Outcome.UNPARSEABLE_STEP and (r.step, r.action) == (3, step)
    assert r.error.kind == kind
    assert r.explain().startswith(f"Plan invalid: step 3 {step!r} ")
    assert "\n" not in r.explain()


NEG = """(define (domain lights)
  (:requirements :strips :negative-preconditions :equality)
  (:predicates (on ?l) (linked ?a ?b))
  (:action switch-on :parameters (?l) :precondition (not (on ?l)) :effect (on ?l))
  (:action switch-off :parameters (?l) :precondition (on ?l) :effect (not (on ?l)))
  (:action toggle-pair :parameters (?a ?b)
    :precondition (and (not (= ?a ?b)) (linked ?a ?b) (on ?a) (not (on ?b)))
    :effect (and (not (on ?a)) (on ?b))))
"""
NEG_PROBLEM = """(define (problem p) (:domain lights) (:objects x y)
  (:init (on x) (linked x y)) (:goal (and (on y) (not (on x)))))"""


def test_negative_preconditions_equality_and_negative_goals():
    prob = parse_problem(NEG_PROBLEM, parse_domain(NEG))
    assert validate(prob, ["(toggle-pair x y)"]).valid
    r = validate(prob, ["(switch-on x)"])
    assert [str(lit) for lit in r.unmet_preconditions] == ["(not (on x))"]
    assert "(not (on x)) is false: (on x) is true" in r.explain()
    assert "(Set (on x) to false)" in r.explain()
    r = validate(prob, ["(toggle-pair x x)"])
    assert r.outcome is Outcome.INEXECUTABLE
    assert [str(lit) for lit in r.unmet_preconditions] == ["(not (= x x))", "(linked x x)", "(not (on x))"]
    r = validate(prob, ["(switch-on y)"])
    assert r.outcome is Outcome.GOAL_NOT_REACHED and [str(lit) for lit in r.unmet_goals] == ["(not (on x))"]


def test_relaxations(bw2):
    skipping = ["(put-down d)", "(pick-up c)", "(stack c a)"]  # forgets to unstack d first
    assert validate(bw2, skipping).outcome is Outcome.INEXECUTABLE
    assert validate(bw2, skipping, "delete").outcome is Outcome.INEXECUTABLE
    assert validate(bw2, skipping, Relaxation.PRECONDITION).valid
    assert validate(bw2, skipping, "both").valid
    # delete relaxation: (clear c) stays true after stacking on it, so a second block fits on top
    prob = problem("blocksworld", 2)
    twice = [*OPTIMAL_2, "(pick-up d)", "(stack d a)"]
    assert validate(prob, twice).outcome is Outcome.INEXECUTABLE
    relaxed = validate(prob, twice, "delete")
    assert relaxed.valid and "under delete relaxation" in relaxed.explain()
    # a plan valid in the real model is valid under every relaxation
    for relax in Relaxation:
        assert validate(bw2, OPTIMAL_2, relax).valid
    with pytest.raises(ValueError, match="expected one of none, delete, precondition, both"):
        validate(bw2, OPTIMAL_2, "deletes")


def test_to_dict_is_json_ready(bw2):
    d = validate(bw2, ["(put-down d)"]).to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["outcome"] == "inexecutable" and d["step"] == 1 and d["unmet_preconditions"] == ["(holding d)"]


def test_ground_problem_is_cached_and_reused(bw2):
    gp = ground(bw2)
    assert ground(bw2) is gp
    assert validate(gp, OPTIMAL_2).valid
    assert "(unstack d c)" in gp.step_cache


@pytest.mark.parametrize("domain_dir, folder", [("blocksworld", "generated_basic"),
                                                ("blocksworld_3", "generated_basic_3")])
def test_agrees_with_planbench_verdicts_and_relaxed_checks(domain_dir, folder):
    """PlanBench's t1 file records, per GPT-4 plan, its verdict and its verdict under
    each relaxation (1 valid, -1 invalid); ours must match on every one."""
    relax = {"no_relax": None, "del_relax_only": "delete", "precond_relax_only": "precondition",
             "del_and_precond_relax": "both"}
    rows = gpt4_rows(domain_dir, "task_1_plan_generation.jsonl.gz")
    checked = 0
    for row in rows:
        prob = problem("blocksworld", row["instance_id"], folder)
        plan = row["extracted_llm_plan"]
        assert validate(prob, plan).valid == bool(row["llm_correct"]), row["instance_id"]
        assert validate(prob, row["ground_truth_plan"]).valid
        for key, value in row["relaxed_checks"].items():
            assert validate(prob, plan, relax[key]).valid == (value == 1), (row["instance_id"], key)
            checked += 1
    assert checked == 4 * len(rows) >= 200
