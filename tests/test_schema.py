import json

import pytest
from pydantic import ValidationError

from planprobe.errors import FormatVersionError
from planprobe.schema import (
    SCHEMA_VERSION,
    Case,
    ErrorClass,
    OracleKind,
    ToolCall,
    ToolSpec,
    Trace,
    Verdict,
    granted_restart,
    sort_errors,
)
from planprobe.suites.io import parse_case_line


def test_case_round_trips_through_json():
    case = Case(id="x", family="constraints", task="do it", tools=[ToolSpec(name="a_b", description="d")],
                spec={"k": [1, 2]})
    again = Case.model_validate_json(case.model_dump_json())
    assert again == case
    assert again.schema_version == SCHEMA_VERSION


def test_other_families_fit_without_changing_the_format():
    # a PDDL-style case, a robustness variant and a judged case use the same fields
    pddl = Case(id="bw-1", family="pddl", task="stack the blocks", oracle=OracleKind.FORMAL,
                spec={"domain": "(define ...)", "problem": "(define ...)"},
                tools=[ToolSpec(name="stack", description="stack a block",
                                parameters={"type": "object", "properties": {"x": {"type": "string"}},
                                            "required": ["x"]})])
    variant = pddl.model_copy(update={"id": "bw-1-x3", "meta": pddl.meta.model_copy(
        update={"transforms": ["extraneous:3"], "parent": "bw-1"})})
    judged = Case(id="open-1", family="judge", task="plan a trip", oracle=OracleKind.JUDGED, spec={"rubric": "E1-E6"})
    for c in (pddl, variant, judged):
        assert Case.model_validate_json(c.model_dump_json()) == c


def test_unknown_fields_are_rejected_so_typos_surface():
    with pytest.raises(ValidationError):
        Case.model_validate({"id": "x", "family": "f", "task": "t", "taks": "typo"})


def test_tool_names_follow_the_function_calling_rules():
    with pytest.raises(ValidationError):
        ToolSpec(name="has space", description="d")


def test_newer_format_versions_are_refused_with_a_clear_message():
    line = json.dumps({"schema_version": SCHEMA_VERSION + 1, "id": "x", "family": "f", "task": "t"})
    with pytest.raises(FormatVersionError, match="newer than this planprobe"):
        parse_case_line(line, "suite.jsonl:1")


def test_error_precedence_puts_the_primary_class_first():
    assert sort_errors({"order_error", "action_lost", "act_error"}) == ["act_error", "action_lost", "order_error"]
    assert sort_errors(["order_error", "some_future_class"])[-1] == "some_future_class"
    assert [e.value for e in ErrorClass][:3] == ["infra", "agent_crash", "timeout"]


RESTART = ToolSpec(name="request_restart", description="restart")


def _calls(*specs):
    return [ToolCall(index=i, name=name, arguments=args) for i, (name, args) in enumerate(specs)]


def test_judged_calls_are_the_last_attempt_found_from_the_raw_restart_calls():
    calls = _calls(("t", "{}"), ("t", "{}"), ("request_restart", "{}"), ("t", "{}"), ("t", "{}"))
    trace = Trace(case_id="c", agent="a", tool_calls=calls)  # no annotations at all
    assert [c.index for c in trace.judged_calls(RESTART)] == [3, 4]
    assert [[c.index for c in a] for a in trace.attempts(RESTART)] == [[0, 1, 2], [3, 4]]
    assert trace.restart_count(RESTART) == 1
    assert trace.judged_calls(None) == calls  # a case without a restart tool: every call is judged
    ends = Trace(case_id="c", agent="a", tool_calls=calls[:3])
    assert ends.judged_calls(RESTART) == [] and ends.restart_count(RESTART) == 1


def test_forged_annotations_are_ignored():
    calls = _calls(("t", "{}"), ("t", "{}"), ("t", "{}"))
    forged = [c.model_copy(update={"attempt": a}) for c, a in zip(calls, [0, 1, 2])]
    trace = Trace(case_id="c", agent="a", tool_calls=forged, restarts=2)  # claims two restarts, none asked for
    assert trace.judged_calls(RESTART) == forged and trace.restart_count(RESTART) == 0
    honest = _calls(("t", "{}"), ("request_restart", "{}"), ("t", "{}"))
    wrong = Trace(case_id="c", agent="a", restarts=0,  # the restart hidden by wrong attempt numbers
                  tool_calls=[c.model_copy(update={"attempt": 0}) for c in honest])
    assert [c.index for c in wrong.judged_calls(RESTART)] == [2]


def test_a_malformed_or_invalid_restart_call_grants_nothing():
    for bad in ("{oops", '{"now": true}', "[]"):
        calls = _calls(("t", "{}"), ("request_restart", bad), ("t", "{}"))
        trace = Trace(case_id="c", agent="a", tool_calls=calls, restarts=1)
        assert trace.judged_calls(RESTART) == calls and trace.restart_count(RESTART) == 0
    assert granted_restart("request_restart", "", RESTART)  # some servers send "" for {}
    assert not granted_restart("other_tool", "{}", RESTART) and not granted_restart("request_restart", "{}", None)


def test_verdict_primary_and_infra():
    v = Verdict(case_id="c", passed=False, errors=["infra"])
    assert v.primary == "infra" and v.infra
    assert Verdict(case_id="c", passed=True).primary is None
