"""The rubric as data and the prompt built from it; Cohen's and Fleiss' kappa."""

from __future__ import annotations

import pytest

from helpers import cases, run_agent
from planprobe.agents.reference import OracleAgent
from planprobe.analysis.stats import cohen_kappa, fleiss_kappa
from planprobe.llm_judge.context import build_context
from planprobe.llm_judge.judge import JUDGE_TOOL
from planprobe.llm_judge.rubric import (
    ERROR_CODES,
    GRADE_VALUES,
    JSON_FORMAT,
    SETTINGS,
    SYSTEM_PROMPT,
    JudgeContext,
    implied_grade,
    judgement_tool_schema,
    render_prompt,
)
from planprobe.models.local import tool_grammar


def test_the_rubric_has_apbs_six_codes_and_six_grades():
    assert [e.code for e in ERROR_CODES] == ["E1", "E2", "E3", "E4", "E5", "E6"]
    assert [e.label for e in ERROR_CODES][3] == "E4_LOGICAL_DEFECT"
    assert GRADE_VALUES == (1.0, 0.8, 0.6, 0.4, 0.2, 0.0)
    for e in ERROR_CODES:
        assert e.code in SYSTEM_PROMPT and e.name in SYSTEM_PROMPT
    for g in GRADE_VALUES:
        assert f"{g:.1f} (" in SYSTEM_PROMPT


@pytest.mark.parametrize("codes,grade", [
    ((), 1.0), (("E5",), 0.6), (("E4", "E5"), 0.4), (("E2",), 0.4), (("E1",), 0.2), (("E2", "E2"), 0.4),
    (("E3", "E4"), 0.2), (("E1", "E6"), 0.0),
])
def test_implied_grade_follows_the_scale(codes, grade):
    assert implied_grade(codes) == grade


def _ctx(**kw):
    base = {"settings": ("plan",), "task": "Do {a} then {b}", "tools": "- a(): A {x}",
            "trajectory": "1. a({})\n -> {ok}"}
    return JudgeContext(**{**base, **kw})


def test_untrusted_text_goes_in_verbatim():
    system, user = render_prompt(_ctx(reference="1. a({})"))
    assert system == SYSTEM_PROMPT
    for text in ("Do {a} then {b}", "- a(): A {x}", "1. a({})\n -> {ok}", "## Reference solution"):
        assert text in user
    assert user.rstrip().endswith(JSON_FORMAT)


def test_each_setting_adds_its_instruction():
    for setting in SETTINGS:
        _, user = render_prompt(_ctx(settings=(setting,)))
        assert SETTINGS[setting] in user
    _, user = render_prompt(_ctx(settings=("next_steps", "broken"), notes=("Broken tool: x",)))
    assert SETTINGS["next_steps"] in user and SETTINGS["broken"] in user and "- Broken tool: x" in user
    assert SETTINGS["plan"] not in user
    with pytest.raises(ValueError):
        render_prompt(_ctx(settings=("bogus",)))


def test_the_tool_format_has_a_schema_the_local_grammar_accepts():
    schema = judgement_tool_schema()
    assert schema["required"][0] == "reasoning" and schema["required"][-2:] == ["grade", "is_correct"]
    grammar = tool_grammar([JUDGE_TOOL], allow_answer=False)
    assert '"E4_LOGICAL_DEFECT\\": "' in grammar and '"0.6"' in grammar
    _, user = render_prompt(_ctx(), "tool")
    assert "submit_judgement" in user


def test_a_formal_case_is_judged_as_planning_with_its_solver_plan_as_reference():
    case = cases(1, seed=1)[0]
    trace = run_agent(OracleAgent(), case)
    ctx = build_context(case, trace)
    assert ctx.settings == ("plan",) and ctx.task == case.task
    assert ctx.reference.startswith("One valid sequence of calls:")
    assert all(t.name in ctx.tools for t in case.tools)
    assert "Final answer: All tasks are done." in ctx.trajectory
    assert build_context(case, trace, reference=False).reference is None


def test_long_traces_are_cut_to_the_budget():
    case = cases(1, seed=1)[0]
    trace = run_agent(OracleAgent(), case)
    trace.tool_calls = [trace.tool_calls[0].model_copy(update={"index": i}) for i in range(500)]
    ctx = build_context(case, trace, max_trace_chars=2000)
    assert len(ctx.trajectory) < 2600 and "more calls not shown" in ctx.trajectory


# ---------------------------------------------------------------------------
# kappa
# ---------------------------------------------------------------------------


def test_cohen_kappa_hand_computed():
    # 50 items: both yes 20, A yes/B no 5, A no/B yes 10, both no 15.
    # p_o = 35/50 = 0.7; p_e = 0.5*0.6 + 0.5*0.4 = 0.5; kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert cohen_kappa([True, False, True], [True, False, True]) == pytest.approx(1.0)
    assert cohen_kappa([True, True, False, False], [False, False, True, True]) == pytest.approx(-1.0)
    assert cohen_kappa([True] * 4, [True] * 4) is None  # no variation: undefined
    assert cohen_kappa([], []) is None
    with pytest.raises(ValueError):
        cohen_kappa([True], [])


def test_fleiss_kappa_hand_computed():
    # Fleiss (1971)-style worked example: 10 items, 14 raters, 5 categories -> 0.210
    rows = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
            [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    assert fleiss_kappa(rows) == pytest.approx(0.2099, abs=1e-4)
    # 2 raters, binary: p_bar = 2/3, p_e = (3/6)^2 * 2 = 0.5 -> (2/3 - 1/2) / (1/2) = 1/3
    assert fleiss_kappa([[2, 0], [0, 2], [1, 1]]) == pytest.approx(1 / 3)
    assert fleiss_kappa([[3, 0], [3, 0]]) is None
    with pytest.raises(ValueError):
        fleiss_kappa([[2, 0], [1, 2]])
