"""--style paper: PDoctor's own templates, tools and error classes; --style planprobe unchanged."""

import json

import pytest

from helpers import run_agent
from planprobe.agents import make_agent
from planprobe.environment import Limits
from planprobe.errors import PlanprobeError
from planprobe.suites.constraints.generator import (
    PAPER_BASIC_TEMPLATE,
    PAPER_EXTENDED_TEMPLATE,
    ConstraintSuiteOptions,
    build_case,
    generate_cases,
)
from planprobe.suites.constraints.grammar import Clause, NounPhrase, Sentence, Time
from planprobe.suites.constraints.oracle import check
from planprobe.suites.constraints.reference_plans import PAPER_FAULTS
from planprobe.suites.registry import get_family

NAMES = ["sanitizing tools", "cutting hair", "washing hair"]
S, C, W = (n.replace(" ", "_") for n in NAMES)
CHAIN = Sentence((Clause(1, True, NounPhrase((0,)), NounPhrase((1,)), 0),
                  Clause(1, True, NounPhrase((1,)), NounPhrase((2,)), 0)), (0,))
WINDOW = Sentence((Clause(2, False, NounPhrase((2,)), Time(10), 0, 0),), ())
FAMILY = get_family("constraints")


def case(style: str, extended: bool):
    opts = ConstraintSuiteOptions(extended=extended, style=style)
    return build_case(0, opts, "Barber", NAMES, [2, 1, 3] if extended else None, [CHAIN, WINDOW] if extended
                      else [CHAIN])


def play(c, calls):
    env = FAMILY.environment(c, Limits(), 0, "test")
    results = [env.call(name, args if isinstance(args, str) else json.dumps(args)) for name, args in calls]
    return check(c, env.trace), results


def test_paper_templates_and_tools_are_the_seeds():
    basic, timed = case("paper", False), case("paper", True)
    assert basic.task.startswith(PAPER_BASIC_TEMPLATE.split("{")[0]) and "The tasks are" not in basic.task
    assert timed.task.startswith(PAPER_EXTENDED_TEMPLATE.split("{")[0])
    assert basic.tools[0].description == "Sanitizing tools."
    assert "Receive one argument: start_time, which is a integer" in timed.tools[0].description
    assert "minimum" not in json.dumps(timed.tools[0].parameters)
    _, results = play(timed, [(S, {"start_time": 6})])
    assert results == ["Sanitizing tools takes 2 hours."]  # the duration only (Fig. 7b)
    _, results = play(case("planprobe", True), [(S, {"start_time": 6})])
    assert results == ["Sanitizing tools took 2 hours: it started at 06:00 and ended at 08:00."]


def test_paper_classes_repeated_action_is_an_order_error():
    for extended in (False, True):
        c = case("paper", extended)
        if extended:
            calls = [(S, {"start_time": 6}), (C, {"start_time": 8}), (W, {"start_time": 10}), (W, {"start_time": 14})]
        else:
            calls = [(S, "{}"), (C, "{}"), (W, "{}"), (W, "{}")]
        v, _ = play(c, calls)
        assert v.errors == ["order_error"] and v.evidence[0].kind == "repeated_action"
        v, _ = play(case("planprobe", extended), calls)
        assert v.errors == ["repeated_action"]


def test_paper_classes_a_start_time_outside_the_day_is_a_parameter_error():
    v, _ = play(case("paper", True), [(S, {"start_time": 6}), (C, {"start_time": 8}), (W, {"start_time": 30})])
    assert "parameter_error" in v.errors and any(e.kind == "start_out_of_range" for e in v.evidence)
    v, _ = play(case("paper", True), [(S, {"start_time": -2}), (C, {"start_time": 8}), (W, {"start_time": 10})])
    assert v.errors == ["parameter_error"]
    v, _ = play(case("planprobe", True), [(S, {"start_time": 6}), (C, {"start_time": 8}), (W, {"start_time": 30})])
    assert v.errors[0] == "act_error"  # the schema refuses it; nothing ran


def test_paper_classes_forgive_a_malformed_call_repaired_later_but_not_one_left_broken():
    c = case("paper", True)
    repaired = [(S, '{"start_time": 6'), (S, {"start_time": 6}), (C, {"start_time": 8}), (W, {"start_time": 10})]
    assert play(c, repaired)[0].passed
    assert play(case("planprobe", True), repaired)[0].errors == ["act_error"]
    broken_after = [(S, {"start_time": 6}), (C, {"start_time": 8}), (W, {"start_time": 10}), (C, '{"start_time": 8')]
    assert play(c, broken_after)[0].errors == ["act_error"]
    unknown = [(S, {"start_time": 6}), ("juggling", "{}"), (C, {"start_time": 8}), (W, {"start_time": 10})]
    assert play(c, unknown)[0].errors == ["act_error"]


@pytest.mark.parametrize("extended", [False, True], ids=["basic", "timed"])
def test_in_paper_style_the_oracle_agent_passes_and_each_fault_is_its_paper_class(extended):
    suite = list(generate_cases(ConstraintSuiteOptions(n=120, seed=9, extended=extended, style="paper",
                                                       actions=(2, 6))))
    oracle = make_agent("oracle")
    assert all(FAMILY.check(c, run_agent(oracle, c)).passed for c in suite)
    for fault, expected in PAPER_FAULTS.items():
        agent = make_agent(f"faulty:{fault}")
        for c in suite[:60]:
            trace = run_agent(agent, c)
            verdict = FAMILY.check(c, trace)
            assert trace.meta["expected_error"] == expected
            if trace.meta["fault_injected"]:
                assert verdict.errors == [expected], (fault, c.id, verdict.errors)


def test_unknown_style_is_refused_naming_the_option():
    with pytest.raises(PlanprobeError, match="--style 'pdoctor'"):
        ConstraintSuiteOptions(style="pdoctor").check()
