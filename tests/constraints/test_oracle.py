"""The oracle on hand-built cases whose constraints are known exactly."""

import json

from planprobe.environment import Limits
from planprobe.schema import TraceError, TraceStatus
from planprobe.suites.constraints.generator import ConstraintSuiteOptions, build_case
from planprobe.suites.constraints.grammar import (
    Clause,
    NounPhrase,
    Relative,
    Sentence,
    Time,
)
from planprobe.suites.constraints.oracle import check
from planprobe.suites.registry import get_family

NAMES = ["sanitizing tools", "cutting hair", "washing hair"]
S, C, W = (n.replace(" ", "_") for n in NAMES)

# "Sanitizing tools comes before cutting hair, which comes before washing hair."
CHAIN = Sentence((Clause(1, True, NounPhrase((0,)), NounPhrase((1,), Relative(True, (2,), 0, None)), 0),), ())
# "Washing hair starts at or after 10:00; cutting hair ends by 12:00."
WINDOWS = Sentence((Clause(2, False, NounPhrase((2,)), Time(10), 0, 0),
                    Clause(2, True, NounPhrase((1,)), Time(12), 0, 0)), (0,))


def basic_case():
    return build_case(0, ConstraintSuiteOptions(), "Barber", NAMES, None, [CHAIN])


def extended_case():
    return build_case(0, ConstraintSuiteOptions(extended=True), "Barber", NAMES, [2, 1, 3], [CHAIN, WINDOWS])


def play(case, calls, status=TraceStatus.COMPLETED):
    env = get_family("constraints").environment(case, Limits(), 0, "test")
    for name, args in calls:
        if name == "RESTART":
            env.call("request_restart", "{}")
        else:
            env.call(name, args if isinstance(args, str) else json.dumps(args))
    env.trace.status = status
    return check(case, env.trace)


def test_the_case_says_what_the_tests_assume():
    case = basic_case()
    assert "Sanitizing tools comes before cutting hair, which comes before washing hair." in case.task
    assert [(c["kind"], c["a"], c["b"]) for c in case.spec["constraints"]] == [
        ("order", "a1", "a2"), ("order", "a2", "a3")]


def test_a_valid_plan_passes():
    v = play(basic_case(), [(S, "{}"), (C, "{}"), (W, "")])
    assert v.passed and v.errors == [] and v.oracle.value == "formal"


def test_order_error_names_the_constraint_in_both_forms():
    v = play(basic_case(), [(C, "{}"), (S, "{}"), (W, "{}")])
    assert v.errors == ["order_error"]
    ev = v.evidence[0]
    assert ev.constraint_ids == ["c1"] and ev.symbolic == "c1: pos(a1) < pos(a2)"
    assert '"sanitizing tools" must come before "cutting hair"' in ev.text
    assert '"Sanitizing tools comes before cutting hair, which comes before washing hair"' in ev.text
    assert v.unsat_core == ["c1"]


def test_lost_action_and_an_order_that_can_no_longer_be_completed():
    # cutting hair is never run; washing hair before sanitizing tools contradicts S < C < W
    v = play(basic_case(), [(W, "{}"), (S, "{}")])
    assert v.errors == ["action_lost", "order_error"]
    assert sorted(v.unsat_core) == ["c1", "c2"]
    assert any(e.kind == "unextendable" for e in v.evidence)
    # dropping an action from a valid plan is only Action Lost
    v = play(basic_case(), [(S, "{}"), (W, "{}")])
    assert v.errors == ["action_lost"] and v.unsat_core == []


def test_repeated_action():
    v = play(basic_case(), [(S, "{}"), (C, "{}"), (C, "{}"), (W, "{}")])
    assert v.errors == ["repeated_action"]
    assert "executed 2 times (steps 1, 2)" in v.evidence[0].text


def test_act_errors_execute_nothing():
    for bad in [("cut_hair", "{}"), (C, '{"x": '), (C, '{"force": true}')]:
        v = play(basic_case(), [(S, "{}"), bad, (C, "{}"), (W, "{}")])
        assert v.errors == ["act_error"], bad
    kinds = [e.kind for e in play(basic_case(), [("nope", "{}"), (C, "[")]).evidence]
    assert kinds[:2] == ["unknown_tool", "malformed_arguments"]


def test_the_oracle_judges_raw_calls_not_the_environments_annotations():
    case = basic_case()
    env = get_family("constraints").environment(case, Limits(), 0, "test")
    for name in (S, C, W):
        env.call(name, "{}")
    env.trace.tool_calls[1].error = "unknown_tool"  # a wrong annotation changes nothing
    assert check(case, env.trace).passed


def test_timeouts_and_crashes_are_judged_alone():
    case = basic_case()
    v = play(case, [(S, "{}")], status=TraceStatus.ITERATION_LIMIT)
    assert v.errors == ["timeout"]
    v = play(case, [], status=TraceStatus.TIMEOUT)
    assert v.errors == ["timeout"]
    v = play(case, [], status=TraceStatus.AGENT_ERROR)
    assert v.errors == ["agent_crash"]
    v = play(case, [], status=TraceStatus.INFRA_ERROR)
    assert v.errors == ["infra"] and v.infra


def test_extended_valid_schedule_passes_and_tools_reveal_durations():
    case = extended_case()
    env = get_family("constraints").environment(case, Limits(), 0, "test")
    assert env.call(S, '{"start_time": 6}') == "Sanitizing tools took 2 hours: it started at 06:00 and ended at 08:00."
    env.call(C, {"start_time": 8})
    env.call(W, {"start_time": 10})
    assert check(case, env.trace).passed


def test_extended_parameter_errors():
    case = extended_case()
    v = play(case, [(S, {"start_time": 6}), (C, {"start_time": 7}), (W, {"start_time": 10})])
    assert v.errors == ["parameter_error", "order_error"]  # overlap also breaks S before C
    assert v.evidence[0].kind == "overlap" and "before \"sanitizing tools\"" in v.evidence[0].text
    v = play(case, [(S, {"start_time": 6}), (C, {"start_time": 8}), (W, {"start_time": 22})])
    assert v.errors == ["parameter_error"] and v.evidence[0].kind == "past_day"


def test_extended_window_violations_are_order_errors():
    case = extended_case()
    v = play(case, [(S, {"start_time": 6}), (C, {"start_time": 8}), (W, {"start_time": 9})])
    assert v.errors == ["order_error"]
    assert "must start at 10:00 or later" in v.evidence[0].text and '"Washing hair starts at or after 10:00"' in v.evidence[0].text
    v = play(case, [(S, {"start_time": 9}), (C, {"start_time": 12}), (W, {"start_time": 13})])
    assert v.errors == ["order_error"] and "must end by 12:00" in v.evidence[0].text


def test_extended_schema_violations_are_act_errors():
    case = extended_case()
    for args in ['{"start_time": 30}', '{"start_time": "8"}', "{}", '{"start_time": 8, "end_time": 9}']:
        v = play(case, [(S, {"start_time": 6}), (C, args), (C, {"start_time": 8}), (W, {"start_time": 10})])
        assert v.errors == ["act_error"], args


def test_only_the_last_attempt_is_judged_after_a_restart():
    case = extended_case()
    v = play(case, [(S, {"start_time": 11}), ("RESTART", None),
                    (S, {"start_time": 6}), (C, {"start_time": 8}), (W, {"start_time": 10})])
    assert v.passed
    v = play(case, [(S, {"start_time": 6}), (C, {"start_time": 8}), (W, {"start_time": 10}), ("RESTART", None),
                    (S, {"start_time": 6})])
    assert v.errors == ["action_lost"] and "in the last attempt" in v.evidence[0].text


def test_extended_unextendable_core_from_z3():
    # C at 11-12 leaves S (2h, before C) no room: S would have to end by 11 but also follow... fit it at 09-11
    case = extended_case()
    v = play(case, [(C, {"start_time": 11}), (W, {"start_time": 12})])
    assert v.errors == ["action_lost"]  # S still fits 09:00-11:00
    v = play(case, [(C, {"start_time": 0}), (W, {"start_time": 12})])
    assert v.errors == ["action_lost", "order_error"]
    assert v.unsat_core == ["c1"]  # S must end before C starts at 00:00: impossible


def test_restart_request_with_bad_arguments_is_an_act_error():
    case = extended_case()
    v = play(case, [("request_restart", '{"now": 1}'), (S, {"start_time": 6}), (C, {"start_time": 8}),
                    (W, {"start_time": 10})])
    assert v.errors == ["act_error"]


def test_timeout_evidence_includes_the_recorded_reason():
    case = basic_case()
    env = get_family("constraints").environment(case, Limits(), 0, "test")
    env.trace.status = TraceStatus.TIMEOUT
    env.trace.errors.append(TraceError(kind="timeout", message="over 180 s"))
    assert "over 180 s" in check(case, env.trace).evidence[0].text
