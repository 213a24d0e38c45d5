"""Attempt boundaries come from the raw tool log only (issue #10, item 5).

For every family that judges attempts, the same raw calls are judged identically
with the environment's annotations (``ToolCall.attempt``, ``Trace.restarts``)
removed or forged, and forged annotations never hide calls or invent restarts.
"""

from __future__ import annotations

import random

from helpers import cases
from planprobe.environment import Limits
from planprobe.llm_judge.context import build_context
from planprobe.schema import Case, Trace
from planprobe.suites.pddl_agent import PDDLSuiteOptions
from planprobe.suites.pddl_agent import generate_cases as pddl_cases
from planprobe.suites.planbench import PlanBenchOptions
from planprobe.suites.planbench import generate_cases as planbench_cases
from planprobe.suites.protocols import wrap_holistic
from planprobe.suites.registry import get_family, restart_tool_of
from planprobe.suites.robust import parse_transforms, robustify


def stripped(trace: Trace) -> Trace:
    calls = [c.model_copy(update={"attempt": 0}) for c in trace.tool_calls]
    return trace.model_copy(update={"tool_calls": calls, "restarts": 0})


def forged(trace: Trace, rng: random.Random) -> Trace:
    """Annotations that claim restarts at random places (or none where there were some)."""
    attempt, calls = 0, []
    for c in trace.tool_calls:
        attempt += rng.random() < 0.3
        calls.append(c.model_copy(update={"attempt": attempt}))
    return trace.model_copy(update={"tool_calls": calls, "restarts": attempt})


def play(case: Case, calls) -> Trace:
    """Run (name, arguments) calls through the case's real environment."""
    env = get_family(case.family).environment(case, Limits(), 0, "test")
    for name, arguments in calls:
        env.call(name, arguments)
    env.finish("done")
    return env.trace


def judged_alike(case: Case, trace: Trace, seed: int = 0) -> None:
    family = get_family(case.family)
    verdict = family.check(case, trace).model_dump()
    assert family.check(case, stripped(trace)).model_dump() == verdict
    rng = random.Random(seed)
    for _ in range(3):
        assert family.check(case, forged(trace, rng)).model_dump() == verdict
    return verdict


def _restart_traces(case: Case, rng: random.Random):
    """Traces with real restarts: a random attempt, a restart, then the reference plan (passes);
    and the same calls without the restart call (fails: nothing granted a restart)."""
    family = get_family(case.family)
    first = [tuple(c) for c in family.random_plan(case, rng)]
    ref = [tuple(c) for c in family.reference_plan(case)]
    return play(case, first + [("request_restart", "{}")] + ref), play(case, first + ref)


def test_constraint_oracle_judges_attempts_from_raw_calls_only():
    rng = random.Random(1)
    for case in cases(12, seed=7, extended=True):
        restarted, not_restarted = _restart_traces(case, rng)
        assert restarted.restarts == 1 and judged_alike(case, restarted)["passed"]
        verdict = judged_alike(case, not_restarted)
        assert not verdict["passed"] and "repeated_action" in verdict["errors"]
        # annotations that claim the restart no call asked for are not believed
        claim = [c.model_copy(update={"attempt": 0 if k < len(not_restarted.tool_calls) - len(case.tools) + 1 else 1})
                 for k, c in enumerate(not_restarted.tool_calls)]
        lie = not_restarted.model_copy(update={"tool_calls": claim, "restarts": 1})
        assert not get_family(case.family).check(case, lie).passed


def test_a_malformed_restart_call_is_an_act_error_in_its_attempt_and_restarts_nothing():
    case = cases(1, seed=2, extended=True)[0]
    family = get_family(case.family)
    ref = [tuple(c) for c in family.reference_plan(case)]
    trace = play(case, ref[:1] + [("request_restart", '{"reason": "late"}')] + ref)
    assert trace.restarts == 0  # the environment refused it, as the oracle does
    verdict = judged_alike(case, trace)
    assert verdict["errors"][0] == "act_error" and "repeated_action" in verdict["errors"]
    assert any(e["kind"] == "invalid_arguments" and e["step"] == 1 for e in verdict["evidence"])


def test_a_basic_case_has_no_restart_tool():
    case = cases(1, seed=2)[0]
    assert restart_tool_of(case) is None
    ref = [tuple(c) for c in get_family(case.family).reference_plan(case)]
    verdict = judged_alike(case, play(case, ref + [("request_restart", "{}")] + ref))
    assert verdict["errors"][0] == "act_error"  # an unknown tool here, and nothing is discarded


def test_robust_oracle_judges_attempts_from_raw_calls_only():
    rng = random.Random(3)
    variants = [robustify(c, parse_transforms(["extraneous:2"]), 0) for c in cases(8, seed=4, extended=True)]
    for case in variants:
        assert restart_tool_of(case).name == "request_restart"
        restarted, not_restarted = _restart_traces(case, rng)
        assert judged_alike(case, restarted)["passed"]
        assert not judged_alike(case, not_restarted)["passed"]


def test_protocol_pddl_and_planbench_oracles_ignore_forged_restarts():
    rng = random.Random(5)
    holistic = wrap_holistic(cases(1, seed=1, extended=True)[0])
    trace = play(holistic, [("anything", "{}")])
    trace.final_answer = get_family(holistic.family).reference_answer(holistic)
    assert not judged_alike(holistic, trace)["passed"]  # a tool call in a plan-only protocol, never hidden

    pddl = list(pddl_cases(PDDLSuiteOptions(domain="blocksworld", n=4, seed=5, blocks=(3, 4))))
    for case in pddl:
        family = get_family(case.family)
        bad = [("no_such_action", "{}")] + [tuple(c) for c in family.random_plan(case, rng)]
        ref = [tuple(c) for c in family.reference_plan(case)]
        trace = play(case, bad + ref)
        lie = trace.model_copy(update={"restarts": 1, "tool_calls": [
            c.model_copy(update={"attempt": int(k >= len(bad))}) for k, c in enumerate(trace.tool_calls)]})
        v = judged_alike(case, trace)
        assert family.check(case, lie).model_dump() == v and v["errors"][0] == "act_error"

    pb = next(iter(planbench_cases(PlanBenchOptions(task="t1", domain="blocksworld", n=2, seed=4))))
    trace = play(pb, [("stack", "{}")])
    trace.final_answer = get_family(pb.family).reference_answer(pb) if hasattr(get_family(pb.family),
                                                                               "reference_answer") else ""
    assert judged_alike(pb, trace)["errors"][0] == "act_error"


def test_the_judge_sees_every_call_when_annotations_claim_a_restart():
    case = cases(1, seed=1)[0]
    ref = [tuple(c) for c in get_family(case.family).reference_plan(case)]
    trace = play(case, ref)
    lie = trace.model_copy(update={"restarts": 1, "tool_calls": [
        c.model_copy(update={"attempt": int(k > 0)}) for k, c in enumerate(trace.tool_calls)]})
    assert build_context(case, lie).trajectory == build_context(case, trace).trajectory
    assert "restarted" not in build_context(case, lie).trajectory
    ext = cases(1, seed=1, extended=True)[0]
    ref = [tuple(c) for c in get_family(ext.family).reference_plan(ext)]
    shown = build_context(ext, stripped(play(ext, ref[:1] + [("request_restart", "{}")] + ref))).trajectory
    assert "restarted 1 time(s)" in shown
