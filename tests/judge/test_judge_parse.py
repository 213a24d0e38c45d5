"""Judge replies are untrusted text: every shape a model produces either parses to
the judgement it states or is reported unparseable — never an exception."""

from __future__ import annotations

import json
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planprobe.llm_judge.parse import OK, PARTIAL, UNPARSEABLE, parse_judgement
from planprobe.llm_judge.rubric import CODES, GRADE_VALUES

GOOD = '{"is_correct": false, "grade": 0.6, "error_list": [0, 0, 0, 1, 0, 0], "reasoning": "step 3 needs data"}'


@pytest.mark.parametrize("reply", [
    GOOD,
    "```json\n" + GOOD + "\n```",
    "```\n" + GOOD + "\n```",
    "Here is my evaluation of the plan.\n" + GOOD + "\nI hope this helps!",
    "Sure! ```json\n" + GOOD + "``` Let me know.",
    GOOD.replace('"', "'"),
    GOOD.replace("]", ",]").replace("}", ",}"),
    GOOD.replace("false", "False"),
    GOOD.replace("0.6", '"0.6"'),
    GOOD.replace("0.6", '"60%"'),
    GOOD.replace("0.6", "60%"),
    GOOD.replace("0.6", '"3/5"'),
    GOOD.replace("0.6", "60"),
    '{"judgement": ' + GOOD + "}",
    GOOD.replace('"error_list": [0, 0, 0, 1, 0, 0]', '"errors": ["E4_LOGICAL_DEFECT"]'),
    GOOD.replace('"error_list": [0, 0, 0, 1, 0, 0]', '"E4_LOGIC_ERROR": true, "E5_TOOL_USE_ERROR": false'),
    GOOD.replace('"error_list": [0, 0, 0, 1, 0, 0]', '"error_list": {"E4": 1, "E1": 0}'),
    GOOD.replace('"error_list": [0, 0, 0, 1, 0, 0]', '"error_list": "E4"'),
    GOOD[:-25],  # cut off by the token limit inside the reasoning
    "{is_correct: no, grade: 0.6, error_list: [0,0,0,1,0,0]}",
    "Example format: {\"is_correct\": boolean, ...}\nMy answer: " + GOOD,
])
def test_shapes_models_produce_give_the_stated_judgement(reply):
    j = parse_judgement(reply)
    assert j.status == OK, j
    assert j.grade == pytest.approx(0.6)
    assert j.errors == ("E4",)
    assert j.is_correct is False


@pytest.mark.parametrize("reply,grade,errors,status", [
    ('{"is_correct": true}', 1.0, (), PARTIAL),  # grade missing: from is_correct
    ('{"is_correct": "NO"}', 0.0, (), PARTIAL),
    ('{"error_list": [0, 1, 0, 0, 0, 0]}', 0.4, ("E2",), PARTIAL),  # grade implied by the rubric
    ('{"error_list": [0, 0, 0, 0, 0, 0]}', 1.0, (), PARTIAL),
    ('{"grade": 1.0, "error_list": [1, 0, 0, 0, 0, 0]}', 0.8, ("E1",), OK),  # 1.0 with an error: capped
    ("The plan is fine. Grade: 0.8", 0.8, (), PARTIAL),  # prose only
    ("**Score:** 80%", 0.8, (), PARTIAL),
    ('{"grade": 1, "is_correct": "yes"}', 1.0, (), OK),
])
def test_missing_fields_are_derived_and_said(reply, grade, errors, status):
    j = parse_judgement(reply)
    assert (j.grade, j.errors, j.status) == (pytest.approx(grade), errors, status)
    assert j.problems or status == OK


@pytest.mark.parametrize("reply", [
    "", "   ", "I cannot evaluate this.", "{}", '{"reasoning": "looks fine"}', "[1, 2, 3]", '{"grade": "high"}',
    '{"grade": -0.5}', '{"grade": 250}', '{"grade": NaN}', '{"grade": Infinity}', "```json\n```", "{" * 5000,
    "__import__('os').system('echo pwned')", None, 42, ["grade", 1.0],
])
def test_replies_without_a_judgement_are_unparseable(reply):
    j = parse_judgement(reply)
    assert j.status == UNPARSEABLE and j.grade is None and j.problems


def test_a_grade_outside_the_range_is_reported_not_clipped():
    j = parse_judgement('{"grade": 7.5e3, "is_correct": false}')
    assert j.grade == 0.0 and any("outside" in p for p in j.problems)


def test_contradictions_are_noted_and_the_grade_decides():
    j = parse_judgement('{"is_correct": true, "grade": 0.4, "error_list": [0,0,0,0,0,0]}')
    assert j.grade == 0.4 and any("contradicts" in p for p in j.problems)


def test_repairs_are_recorded():
    j = parse_judgement("{'grade': 0.8, 'is_correct': False,}")
    assert j.status == OK and j.grade == 0.8
    assert any("single quotes" in p and "trailing commas" in p for p in j.problems)


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=True) | st.integers() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_never_raises_on_any_text(text):
    j = parse_judgement(text)
    assert j.status in (OK, PARTIAL, UNPARSEABLE)
    assert j.grade is None or 0.0 <= j.grade <= 1.0


@settings(max_examples=300, deadline=None)
@given(json_values, st.sampled_from(["", "```json\n", "Answer: "]), st.booleans())
def test_never_raises_on_any_json(value, prefix, truncate):
    text = prefix + json.dumps(value)
    if truncate:
        text = text[: len(text) // 2]
    j = parse_judgement(text)
    assert j.grade is None or 0.0 <= j.grade <= 1.0


REASONING = st.text(alphabet=string.ascii_letters + string.digits + " .,;:!?'\"{}[]-_()", max_size=60)
WRAPPERS = {
    "plain": lambda d: json.dumps(d),
    "fenced": lambda d: "```json\n" + json.dumps(d, indent=2) + "\n```",
    "prose": lambda d: "Let me evaluate the plan step by step.\n" + json.dumps(d) + "\nThat is my verdict.",
    "python": lambda d: repr(d),  # single quotes, True/False
    "trailing": lambda d: json.dumps(d)[:-1] + ",}",
    "grade_string": lambda d: json.dumps({**d, "grade": str(d["grade"])}),
    "grade_percent": lambda d: json.dumps({**d, "grade": f"{round(d['grade'] * 100)}%"}),
    "flag_keys": lambda d: json.dumps({"grade": d["grade"], "reasoning": d["reasoning"],
                                       **{f"{c}_X": bool(v) for c, v in zip(CODES, d["error_list"])}}),
}


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(GRADE_VALUES), st.lists(st.booleans(), min_size=6, max_size=6), REASONING,
       st.sampled_from(sorted(WRAPPERS)))
def test_a_stated_judgement_survives_every_wrapper(grade, flags, reasoning, wrapper):
    if any(flags):
        grade = min(grade, 0.8)  # the rubric: 1.0 means no error
    reply = WRAPPERS[wrapper]({"is_correct": grade == 1.0 and not any(flags), "grade": grade,
                               "error_list": [int(f) for f in flags], "reasoning": reasoning})
    j = parse_judgement(reply)
    assert j.status == OK, (reply, j)
    assert j.grade == pytest.approx(grade)
    assert j.errors == tuple(c for c, f in zip(CODES, flags) if f)
