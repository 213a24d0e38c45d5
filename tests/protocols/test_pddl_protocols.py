"""The protocols on the PDDL agent family: the oracle passes every holistic and
step-wise case; step-wise judging simulates the steps and asks whether the goal is
still reachable (a dead end in an irreversible domain fails, naming what is lost)."""

import collections
import json

import pytest
from protocol_cases import FixedJ, answer_verdict, steps

from helpers import run_agent
from planprobe.agents import make_agent
from planprobe.pddl.parser import parse_domain, parse_problem
from planprobe.suites.pddl_agent import PDDLSuiteOptions, build_case, generate_cases
from planprobe.suites.protocols import stepwise_rng, wrap_holistic, wrap_stepwise
from planprobe.suites.registry import get_family

SUITES = {
    "blocksworld": list(generate_cases(PDDLSuiteOptions(n=15, seed=1))),
    "logistics-mystery": list(generate_cases(PDDLSuiteOptions(domain="logistics", n=8, seed=1, obfuscate="mystery",
                                                               packages=(1, 2)))),
    "failed-calls-allowed": list(generate_cases(PDDLSuiteOptions(n=6, seed=2, failed_calls="allowed"))),
}

JARS = """(define (domain jars) (:requirements :strips)
  (:predicates (whole ?j) (filled ?j) (empty ?j))
  (:action fill :parameters (?j) :precondition (and (whole ?j) (empty ?j)) :effect (and (filled ?j) (not (empty ?j))))
  (:action smash :parameters (?j) :precondition (whole ?j) :effect (not (whole ?j))))"""
TWO_JARS = """(define (problem two) (:domain jars) (:objects j1 j2)
  (:init (whole j1) (whole j2) (empty j1) (empty j2)) (:goal (and (filled j1) (filled j2))))"""


def jars_case():
    domain = parse_domain(JARS, "jars")
    return build_case("jars-0", parse_problem(TWO_JARS, domain, "two"), language="pddl")


@pytest.mark.parametrize("name", SUITES)
def test_oracle_passes_every_pddl_protocol_case(name):
    wrapped = [wrap_holistic(c) for c in SUITES[name]]
    wrapped += [wrap_stepwise(c, k, stepwise_rng(0, c)) for c in SUITES[name] for k in (1, 2, 3)]
    agent = make_agent("oracle")
    failed = [(c.id, v.errors) for c in wrapped
              if not (v := get_family(c.family).check(c, run_agent(agent, c))).passed]
    assert not failed
    assert all(c.task.startswith(base.task) for c, base in zip(wrapped, SUITES[name]))


def test_random_holistic_plans_fail():
    agent = make_agent("random")
    outcomes = collections.Counter(
        get_family("holistic").check(c, run_agent(agent, c)).passed
        for c in map(wrap_holistic, SUITES["blocksworld"]))
    assert outcomes[True] <= 2


def test_a_dead_end_fails_and_a_valid_step_passes():
    case = wrap_stepwise(jars_case(), 1, FixedJ(0))
    v = answer_verdict(case, steps(("smash", {"j": "j1"})))
    assert v.errors == ["order_error"] and v.evidence[0].kind == "dead_end"
    assert "(filled j1) can never be made true again" in v.evidence[0].text
    assert answer_verdict(case, steps(("fill", {"j": "j2"}))).passed  # not the gold step (fill j1), still valid


def test_an_inapplicable_step_fails_even_where_failed_calls_are_allowed():
    base = SUITES["failed-calls-allowed"][0]
    case = wrap_stepwise(base, 1, FixedJ(0))
    family = get_family("pddl")
    tool = next(t for t in base.tools if t.name == "stack")  # nothing is held at the start
    args = {k: v["enum"][0] for k, v in tool.parameters["properties"].items()}
    ok, _why = family.extendable(base, [])
    assert ok
    v = answer_verdict(case, json.dumps({"next_steps": [{"tool": "stack", "parameters": args}]}))
    assert not v.passed and v.errors[0] in ("order_error", "act_error")
