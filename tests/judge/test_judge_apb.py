"""Importing APB's split JSONL: each split becomes the right kind of judged case,
the mock tools replay recorded outputs, and every bad row names file:line:field."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from helpers import planprobe_here, run_agent
from planprobe.agents.reference import OracleAgent
from planprobe.environment import Limits
from planprobe.errors import PlanprobeError
from planprobe.importers.apb import SPLITS, import_apb, iter_apb
from planprobe.llm_judge.context import build_context
from planprobe.schema import OracleKind, ToolCallError
from planprobe.suites.io import load_suite
from planprobe.suites.judged.spec import parse_spec
from planprobe.suites.registry import get_family

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "apb_sample.jsonl"


@pytest.fixture(scope="module")
def apb():
    return {c.meta.generator["split"]: c for c in iter_apb(SAMPLE)}


def test_every_split_becomes_a_judged_case(apb):
    assert sorted(apb) == sorted(SPLITS)
    settings = {split: parse_spec(c).settings for split, c in apb.items()}
    assert settings == {
        "holistic_planning": ["plan"], "holistic_tool_extraneous": ["plan", "extraneous"],
        "holistic_unsolvable": ["unsolvable"], "step_wise_planning": ["next_steps"],
        "step_wise_tool_extraneous": ["next_steps", "extraneous"], "step_wise_tool_broken": ["next_steps", "broken"],
    }
    for split, case in apb.items():
        assert case.family == "judged" and case.oracle == OracleKind.JUDGED
        assert case.id.startswith("apb-") and "apb" in case.meta.tags and split in case.meta.tags


def test_tools_of_every_shape_become_tool_specs(apb):
    hp = apb["holistic_planning"]
    assert [t.name for t in hp.tools] == ["get_sunset_time", "weather_report", "get_5_day_forecast"]
    assert hp.tools[0].parameters["required"] == ["city"]
    sp = apb["step_wise_planning"]  # {"tool_name", "description", "parameters": {name: description}}
    assert sp.tools[1].name == "Calculator" and sp.tools[1].parameters["properties"]["expression"]["type"] == "string"
    hu = apb["holistic_unsolvable"]  # {"name", "description", "example"}
    assert "Example: update_profile" in hu.tools[0].description


def test_step_wise_cases_show_the_prefix_and_the_horizon(apb):
    sp = apb["step_wise_planning"]
    spec = parse_spec(sp)
    assert spec.horizon == 1 and spec.prefix[0].tool == "SearchEngine"
    assert spec.prefix[0].output.startswith("Paris has")  # the tool message became the step's output
    assert "Steps already taken:\n1. SearchEngine" in sp.task and "Take only the next 1 step(s)" in sp.task
    assert spec.reference.steps[0].tool == "Calculator" and spec.remaining[0].tool == "Finish"
    assert parse_spec(apb["step_wise_tool_extraneous"]).horizon == 2  # "2" as text


def test_robustness_fields(apb):
    hx = parse_spec(apb["holistic_tool_extraneous"])
    assert hx.distractors == ["get_pollen_count"]
    sb = apb["step_wise_tool_broken"]
    spec = parse_spec(sb)
    assert spec.broken_tool == "Calculator" and spec.replacement_tool == "MathematicalExpressionEvaluator"
    assert "MathematicalExpressionEvaluator" in [t.name for t in sb.tools]
    hu = parse_spec(apb["holistic_unsolvable"])
    assert hu.unsolvable_type == "information_missing" and hu.reference is None
    assert "REFUSE:" in apb["holistic_unsolvable"].task


def test_mock_tools_replay_outputs_and_the_broken_tool_fails(apb):
    family = get_family("judged")
    env = family.environment(apb["step_wise_tool_broken"], limits=Limits())
    assert env.call("Calculator", {"expression": "1+1"}).startswith("Error: Calculator failed")
    assert env.trace.tool_calls[-1].error == ToolCallError.TOOL_FAILURE.value
    assert env.call("MathematicalExpressionEvaluator", {"expression": "3*499*1.085"}) == "1624.245"
    env = family.environment(apb["step_wise_tool_extraneous"], limits=Limits())
    assert env.call("weather_report", {"city": "Madrid"}) == "Sunny, 31 C."
    assert env.call("get_pollen_count", {"city": "Madrid"}) == "get_pollen_count completed."


def test_reference_agent_and_pending_verdicts(apb):
    case = apb["step_wise_tool_broken"]
    trace = run_agent(OracleAgent(), case)
    assert [c.name for c in trace.tool_calls] == ["MathematicalExpressionEvaluator"]
    verdict = get_family("judged").check(case, trace)
    assert verdict.oracle == OracleKind.JUDGED and not verdict.passed and verdict.errors == ["unjudged"]
    ctx = build_context(case, trace)
    assert ctx.settings == ("next_steps", "broken")
    assert any("Broken tool: Calculator" in n for n in ctx.notes)
    assert "Next step(s):\n1. MathematicalExpressionEvaluator" in ctx.reference
    assert run_agent(OracleAgent(), apb["holistic_unsolvable"]).tool_calls == []


def test_the_written_suite_loads_and_validates(tmp_path):
    out = tmp_path / "apb.jsonl"
    assert import_apb(SAMPLE, out) == 6
    assert [c.id for c in load_suite(out)][:2] == ["apb-hp-001", "apb-hx-002"]
    assert import_apb(SAMPLE, out, splits=["step_wise_tool_broken"]) == 1


# ---------------------------------------------------------------------------
# Bad rows
# ---------------------------------------------------------------------------

GOOD_ROW = json.loads(SAMPLE.read_text().splitlines()[0])


def _bad(tmp_path, **changes):
    row = {**GOOD_ROW, **changes}
    row = {k: v for k, v in row.items() if v is not ...}
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(GOOD_ROW) + "\n\n" + json.dumps(row) + "\n")
    return path


@pytest.mark.parametrize("changes,field,words", [
    ({"query": ...}, "query", "missing"),
    ({"split": "holistic_guessing"}, "split", "unknown split"),
    ({"split": ...}, "split", "missing"),
    ({"tools_json": "[{'name': 1"}, "tools_json", "not valid JSON"),
    ({"tools_json": '{"a": 1}'}, "tools_json", "expected a JSON list"),
    ({"tools_json": '[{"description": "no name"}]'}, "tools_json[0]", "no name"),
    ({"tools_json": '["a.b", "a_b"]'}, "tools_json[1]", "both become"),
    ({"extraneous_tool_names_json": '["nope"]'}, "extraneous_tool_names_json[0]", "not one of the row's tools"),
    ({"split": "step_wise_tool_broken"}, "broken_tool_name", "needs the broken tool"),
    ({"split": "step_wise_planning", "prediction_horizon": "soon"}, "prediction_horizon", "number of steps"),
    ({"id": GOOD_ROW["id"]}, "id", "duplicate id"),
])
def test_a_bad_row_names_file_line_and_field(tmp_path, changes, field, words):
    path = _bad(tmp_path, **changes)
    with pytest.raises(PlanprobeError) as err:
        list(iter_apb(path))
    assert f"{path}:3: field '{field}':" in str(err.value) and words in str(err.value)


def test_not_json_and_skipping(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(GOOD_ROW) + "\n{not json\n[1, 2]\n")
    with pytest.raises(PlanprobeError, match=r"bad.jsonl:2: field '\(row\)': not valid JSON"):
        list(iter_apb(path))
    skipped = []
    assert len(list(iter_apb(path, skip_invalid=True, on_skip=skipped.append))) == 1
    assert [s.split(": field")[0].rsplit(":", 1)[1] for s in skipped] == ["2", "3"]
    with pytest.raises(PlanprobeError, match="unknown APB split"):
        list(iter_apb(path, splits=["nope"]))
    with pytest.raises(PlanprobeError, match="not found"):
        list(iter_apb(tmp_path / "missing.jsonl"))


def _cli(*args: str, check: bool = False) -> subprocess.CompletedProcess:
    """The command line in this process (helpers.planprobe_here): output, files and exit codes are checked."""
    r = planprobe_here(*args)
    if check:
        r.check_returncode()
    return r


def test_cli_import_and_bad_input(tmp_path):
    out = tmp_path / "suite.jsonl"
    ok = _cli("import", "apb", str(SAMPLE), "-o", str(out), "--split", "holistic_planning",
              "--split", "holistic_unsolvable", "--protocol", "execute")
    assert ok.returncode == 0, ok.stderr
    assert "wrote 2 judged cases" in ok.stderr and len(out.read_text().splitlines()) == 2
    bad = _bad(tmp_path, split="holistic_guessing")
    r = _cli("import", "apb", str(bad), "-o", str(tmp_path / "x.jsonl"), "--protocol", "execute")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"{bad}:3: field 'split': unknown split" in " ".join(r.stderr.split())
    assert not (tmp_path / "x.jsonl").exists()
    r = _cli("import", "apb", str(bad), "-o", str(tmp_path / "y.jsonl"), "--skip-invalid", "--protocol", "execute")
    assert r.returncode == 0 and "skipped" in r.stderr and "1 rows skipped" in r.stderr


def test_cli_judge_bad_input(tmp_path):
    r = _cli("judge", str(tmp_path / "nowhere"))
    assert r.returncode == 2 and "run directory not found" in r.stderr and "Traceback" not in r.stderr
    r = _cli("judge", str(tmp_path), "--samples", "0")
    assert r.returncode == 2 and "--samples must be at least 1" in r.stderr
    r = _cli("judge", str(tmp_path), "--format", "xml")
    assert r.returncode == 2 and "--format" in r.stderr
    suite = tmp_path / "s.jsonl"
    _cli("generate", "constraints", "-o", str(suite), "--n", "2", check=True)
    _cli("run", str(suite), "--out", str(tmp_path / "run"), "-q", check=True)
    r = _cli("judge", str(tmp_path / "run"), "--judge-model", "nonsense")
    assert r.returncode == 2 and "--calibrate" in r.stderr  # only formal cases: said before any model loads
    r = _cli("judge", str(tmp_path / "run"), "--calibrate", "--judge-model", "nonsense")
    assert r.returncode == 2 and "unknown model 'nonsense'" in r.stderr
