"""Execute mode (``import apb --protocol execute``) and planprobe's judge lose nothing silently:
every row APB accepts imports, text actions stay actions, outputs stay with their calls,
required parameters stay required, and every cut says how much it left out."""

from __future__ import annotations

import json

from apb_fixture import STANDIN_APB_CODE, records

from planprobe.importers.apb import convert_row
from planprobe.llm_judge.context import build_context, render_tools
from planprobe.schema import ToolSpec, Trace
from planprobe.suites.judged.render import clip
from planprobe.suites.judged.spec import parse_spec


def _case(rid: str):
    row = next(r for r in records() if r["id"] == rid)
    return convert_row(row, "fixture.jsonl", 1)


def test_every_fixture_row_imports():
    assert all(convert_row(r) for r in records())


def test_a_tool_listed_twice_is_accepted_and_counted():
    case = _case("hol-1")
    assert [t.name for t in case.tools] == ["weather_forecast", "event_search"]
    assert case.meta.generator["repeated_tools"] == 1


def test_optional_false_parameters_are_required():
    tools = {t.name: t for t in _case("hol-1").tools}
    assert tools["event_search"].parameters["required"] == ["city", "date"]
    assert tools["weather_forecast"].parameters["required"] == ["city"]


def test_opencua_sentences_and_framethinker_actions_stay_actions():
    opencua = parse_spec(_case("sw-1"))
    assert opencua.prefix[0].action == "Click on the 'Personal info' link in the left navigation pane."
    assert opencua.prefix[0].tool is None and opencua.reference.steps[0].action.startswith("Scroll down")
    frames = parse_spec(_case("sw-2"))
    act = [s for s in frames.prefix if s.action]
    assert act[0].action == "classify_environment(frames=[0, 620, 1240])"
    assert act[0].thought == "I should classify a sample of frames."
    assert act[0].output == "frame 0: indoor; frame 620: indoor; frame 1240: outdoor"  # the user turn is its output
    assert frames.reference.steps[0].action == "answer(choice='indoor')"


def test_recorded_outputs_are_attached_to_their_calls():
    gaia = parse_spec(_case("sw-0"))
    assert gaia.prefix[-1].output == "Nature published 1,002 research articles in 2020."
    assert gaia.reference.steps[-1].output == "Science published 747 research articles in 2020."
    ext = parse_spec(_case("swext-0"))  # its output is recorded at the start of the later steps
    assert ext.reference.steps[-1].tool == "GoogleSearch"
    assert ext.reference.steps[-1].output == "Science published 747 research articles in 2020."
    assert all(s.text is None or not s.text.startswith("tool:") for s in ext.remaining)


def test_cuts_say_how_much_they_left_out():
    assert clip("x" * 50, 10) == "x" * 10 + "… [40 more characters not shown]"
    tools = [ToolSpec(name=f"tool_{i}", description="d" * 150, parameters={"type": "object", "properties": {}})
             for i in range(25)]
    text = render_tools(tools)
    assert all(f"tool_{i}(" in text for i in range(25))  # no tool dropped, however many
    assert text.count("more characters not shown") == 25


def test_the_judge_sees_the_whole_reference_and_every_tool():
    row = dict(next(r for r in records() if r["id"] == "hext-0"))
    tools = json.loads(row["tools_json"]) + [
        {"type": "function", "function": {"name": f"Extra{i}", "description": "An unrelated helper " * 5,
                                          "parameters": {"type": "object", "properties": {}}}} for i in range(16)]
    row["tools_json"] = json.dumps(tools)
    case = convert_row(row)
    ctx = build_context(case, Trace(case_id=case.id, agent="x"))
    assert all(t.name in ctx.tools for t in case.tools) and "GoogleSearch" in (ctx.reference or "")


def test_planprobe_style_judge_gets_apbs_reference_for_apb_cases():
    from planprobe.importers.apb_cases import ImportTally, record_case
    from planprobe.importers.apb_prompts import load

    row = next(r for r in records() if r["id"] == "swbrk-0")
    case = record_case(row, "apb-swbrk-0", None, ImportTally(), prompts=load(STANDIN_APB_CODE))
    ctx = build_context(case, Trace(case_id=case.id, agent="x", final_answer='{"predicted_steps": []}'))
    assert "MathematicalExpressionEvaluator" in (ctx.reference or "") and "broken" in ctx.settings


def test_a_bad_byte_is_reported_on_its_own_line(tmp_path):
    """Read as text, the file was decoded a chunk ahead: a bad byte on line 3 was reported on line 1."""
    import pytest

    from planprobe.errors import PlanprobeError
    from planprobe.importers.apb_records import numbered_lines

    path = tmp_path / "apb.jsonl"
    path.write_bytes(b'{"a": 1}\n\n{"b": "\xff"}\n')
    with pytest.raises(PlanprobeError, match=r"apb\.jsonl:3: not UTF-8"):
        list(numbered_lines(path))
    path.write_bytes(b'{"a": 1}\r\n  \r\n{"b": 2}\r\n')
    assert list(numbered_lines(path)) == [(1, '{"a": 1}'), (3, '{"b": 2}')]
