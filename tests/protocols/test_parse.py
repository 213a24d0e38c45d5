"""Reading plans out of untrusted answers: fences, prose, near-JSON; never a crash,
never an eval, and an unreadable answer becomes an Act Error that quotes it."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_cases import C, S, W, answer_verdict, basic_case, stepwise

from planprobe.lenient_json import MAX_CHARS
from planprobe.suites.base import PlannedCall
from planprobe.suites.protocols import parse_plan, wrap_holistic

KEYS = ("tool_chain", "steps", "calls")
PLAN = {"plan": "sanitize, then cut, then wash", "tool_chain": [
    {"tool": S, "parameters": {}, "reason": "first"},
    {"tool": C, "parameters": {}, "reason": "after sanitizing"},
    {"tool": W, "parameters": {}, "reason": "free"}]}
EXPECTED = [PlannedCall(S, "{}"), PlannedCall(C, "{}"), PlannedCall(W, "{}")]


@pytest.mark.parametrize("text", [
    json.dumps(PLAN),
    "```json\n" + json.dumps(PLAN, indent=2) + "\n```",
    "Here is my plan:\n```\n" + json.dumps(PLAN) + "\n```\nLet me know if you need anything else.",
    "Sure! " + json.dumps(PLAN) + " That should do it.",
    "```json\n" + json.dumps(PLAN),  # an unclosed fence (the reply was cut)
    json.dumps(PLAN)[:-2] + "],}",  # trailing commas
    json.dumps([s for s in PLAN["tool_chain"]]),  # a bare list of steps
    # APB's own key names
    json.dumps({"plan": "p", "tool_chain": [{"name": t, "parameter_description": {}} for t in (S, C, W)]}),
    # arguments double-encoded as a JSON string, and OpenAI's function shape
    json.dumps({"tool_chain": [{"tool": S, "parameters": "{}"}, {"function": {"name": C, "arguments": "{}"}},
                               {"tool": W}]}),
])
def test_plans_are_read_through_the_usual_wrapping(text):
    parsed = parse_plan(text, KEYS)
    assert parsed.problem is None and parsed.calls == EXPECTED


@pytest.mark.parametrize("text, problem", [
    ("", "the agent gave no answer"),
    (None, "the agent gave no answer"),
    ("First sanitize the tools, then cut the hair.", "it contains no JSON object"),
    ("{'plan': 'x', 'tool_chain': [{'tool': 'a'}]}", "the JSON in it is not valid"),
    ('{"plan": "only words"}', "it has no 'tool_chain' list"),
    ('{"tool_chain": "sanitize then cut"}', "'tool_chain' is not a list of steps"),
])
def test_unreadable_answers_say_why(text, problem):
    parsed = parse_plan(text, KEYS)
    assert parsed.calls is None and parsed.problem.startswith(problem)


def test_faulty_steps_are_kept_for_the_oracle():
    parsed = parse_plan(json.dumps({"tool_chain": [{"parameters": {}}, {"tool": S, "parameters": "soon"},
                                                   {"tool": 7}, "just text"]}), KEYS)
    assert parsed.calls == [PlannedCall("", "{}"), PlannedCall(S, "soon"), PlannedCall("7", "{}"),
                            PlannedCall("", '"just text"')]


def test_verdicts_on_bad_answers_are_act_errors_that_quote_them():
    case = wrap_holistic(basic_case())
    v = answer_verdict(case, "{'tool_chain': [{'tool': 'sanitizing_tools'}]}")
    assert v.errors == ["act_error"] and v.evidence[0].kind == "unparsed_answer"
    assert "not valid" in v.evidence[0].text and "{'tool_chain'" in v.evidence[0].text
    # a step the oracle cannot run is an Act Error at that step, with the rest still judged
    v = answer_verdict(case, json.dumps({"tool_chain": [{"tool": S}, {"tool": C, "parameters": "now"}, {"tool": W}]}))
    assert v.errors == ["act_error", "action_lost"] and v.evidence[0].step == 1
    assert answer_verdict(stepwise(basic_case(), 1, 0), "```json\n{\"next_steps\": [{\"tool\": \"%s\"}]}\n```" % S).passed


def test_long_and_hostile_answers_are_bounded():
    nested = "[" * 5000 + "]" * 5000
    assert parse_plan(nested, KEYS).problem.endswith("(nested too deeply)")  # no RecursionError escapes
    huge = "{" * (MAX_CHARS * 2)
    assert parse_plan(huge, KEYS).calls is None
    assert parse_plan("__import__('os').system('echo hi')", KEYS).calls is None


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('{}[]",:0123456789abc \n`tool_chainparameters')), max_size=200))
def test_arbitrary_text_never_crashes(text):
    parsed = parse_plan(text, KEYS)
    assert (parsed.calls is None) == (parsed.problem is not None)
    if parsed.calls is not None:
        assert all(isinstance(c.name, str) and isinstance(c.arguments, str) for c in parsed.calls)
