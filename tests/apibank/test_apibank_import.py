"""``planprobe import api-bank``: determinism, bad input named by file/line/field with
nothing written, the reference agents and the model agents on API-Bank cases."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import planprobe_here, run_agent, shared_path
from planprobe.agents import make_agent
from planprobe.agents.react import ReactAgent
from planprobe.agents.tools_agent import ToolsAgent
from planprobe.errors import PlanprobeError
from planprobe.importers.apibank import import_cases
from planprobe.models.base import ChatResult
from planprobe.schema import Message
from planprobe.suites.registry import get_family


def cli(*args: str) -> subprocess.CompletedProcess:
    """The command line in this process (helpers.planprobe_here): output, files and exit codes are checked."""
    return planprobe_here(*args)


@pytest.fixture(scope="module")
def data() -> Path:
    return shared_path("data", "api-bank")


@pytest.fixture
def copy_of(data, tmp_path):
    """A writable copy of the parts of API-Bank the importer reads."""
    dst = tmp_path / "api-bank"
    for part in ("init_database", "lv1-lv2-samples", "test-data"):
        shutil.copytree(data / part, dst / part)
    for p in dst.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    return dst


def test_import_is_deterministic(data, tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for out in (a, b):
        r = cli("import", "api-bank", str(data), "--level", "2", "-o", str(out))
        assert r.returncode == 0, r.stderr
    assert a.read_bytes() == b.read_bytes()
    assert "api" in r.stderr and "response" in r.stderr


def _fails(copy_of: Path, tmp_path: Path, level: int, *needles: str) -> None:
    out = tmp_path / "suite.jsonl"
    r = cli("import", "api-bank", str(copy_of), "--level", str(level), "-o", str(out))
    assert r.returncode == 2, r.stdout + r.stderr
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, r.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert not out.exists()


def test_a_missing_database_table_is_named(copy_of, tmp_path):
    (copy_of / "init_database" / "Account.json").unlink()
    _fails(copy_of, tmp_path, 1, "Account.json", "missing")


def test_a_damaged_account_table_is_named(copy_of, tmp_path):
    path = copy_of / "init_database" / "Account.json"
    accounts = json.loads(path.read_text())
    del accounts["JohnDoe"]["token"]
    path.write_text(json.dumps(accounts))
    _fails(copy_of, tmp_path, 2, "Account.json", "JohnDoe", "token")


def test_a_bad_dialogue_line_is_named_by_file_line_and_field(copy_of, tmp_path):
    path = copy_of / "lv1-lv2-samples" / "level-1-given-desc" / "AddAgenda-level-1-1.jsonl"
    lines = path.read_text().splitlines()
    row = json.loads(lines[2])
    row["role"] = "Robot"
    lines[2] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n")
    _fails(copy_of, tmp_path, 1, "AddAgenda-level-1-1.jsonl:3", "'role'", "Robot")


def test_an_api_turn_without_its_result_is_named(copy_of, tmp_path):
    path = copy_of / "lv1-lv2-samples" / "level-2-toolsearcher" / "AddAgenda-level-3-1.jsonl"
    lines = path.read_text().splitlines()
    n = next(i for i, line in enumerate(lines) if '"role": "API"' in line)
    row = json.loads(lines[n])
    del row["result"]["exception"]
    lines[n] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n")
    _fails(copy_of, tmp_path, 2, f"AddAgenda-level-3-1.jsonl:{n + 1}", "result.exception")


def test_a_line_that_is_not_json_is_named(copy_of, tmp_path):
    path = copy_of / "lv1-lv2-samples" / "level-1-given-desc" / "Calculator-level-1-1.jsonl"
    path.write_text(path.read_text() + "{not json\n")
    _fails(copy_of, tmp_path, 1, "Calculator-level-1-1.jsonl:", "not JSON")


def test_a_level3_sample_without_calls_is_named(copy_of, tmp_path):
    path = copy_of / "test-data" / "level-3.json"
    samples = json.loads(path.read_text())
    samples[4]["apis"] = []
    path.write_text(json.dumps(samples))
    _fails(copy_of, tmp_path, 3, "level-3.json", "sample 4", "'apis'")


def test_bad_options_are_one_line(data, tmp_path):
    r = cli("import", "api-bank", str(data), "--level", "4", "-o", str(tmp_path / "x.jsonl"))
    assert r.returncode == 2 and "--level 4" in r.stderr
    for bad in ("x", "1.5", ""):  # not a number: the same one line, no usage box
        r = cli("import", "api-bank", str(data), "--level", bad, "-o", str(tmp_path / "x.jsonl"))
        assert r.returncode == 2 and r.stderr.strip().splitlines() == [f"error: --level {bad}: expected 1, 2 or 3"]
    r = cli("import", "api-bank", str(data), "--level", "1", "--kind", "run", "-o", str(tmp_path / "x.jsonl"))
    assert r.returncode == 2 and "--kind run" in r.stderr
    with pytest.raises(PlanprobeError):
        import_cases(data / "nowhere", 1)


def test_changed_databases_are_refused_at_run_time(copy_of, tmp_path):
    case = next(c for c in import_cases(copy_of, 1) if c.spec["kind"] == "api")
    path = copy_of / "init_database" / "Stock.json"
    path.write_text(path.read_text().replace("180.5", "999.9"))
    from planprobe.suites.apibank import environment

    environment._databases.cache_clear()
    with pytest.raises(PlanprobeError, match="changed since the suite was imported"):
        get_family(case.family).environment(case, __import__("planprobe").environment.Limits(), 0, "x")


@pytest.mark.parametrize("fault", ["drop", "unknown-tool", "malformed-args"])
def test_faulty_agents_fail_with_their_class(data, fault):
    for case in [c for c in import_cases(data, 3, ("step", "run"))][:30]:
        family = get_family(case.family)
        verdict = family.check(case, run_agent(make_agent(f"faulty:{fault}", seed=1), case))
        assert not verdict.passed
        assert family.faults[fault] in verdict.errors


def test_random_agent_runs(data):
    for case in import_cases(data, 2)[:40]:
        verdict = get_family(case.family).check(case, run_agent(make_agent("random", seed=0), case))
        assert verdict.checker == "api-bank"


class Scripted:
    """Plays tool calls (function calling or ReAct text), then a final answer."""

    name = "scripted"

    def __init__(self, calls, react: bool, answer: str = "done"):
        self.calls, self.react, self.answer, self.turn = list(calls), react, answer, 0
        self.seen_tools: list[list[str]] = []

    async def chat(self, messages, tools, params):
        self.seen_tools.append([t.name for t in tools or []])
        if self.turn < len(self.calls):
            name, args = self.calls[self.turn]
            self.turn += 1
            if self.react:
                return ChatResult(Message(role="assistant", content=f"Thought: go\nAction: {name}\nAction Input: {args}"))
            return ChatResult(Message(role="assistant", tool_calls=[
                {"id": f"c{self.turn}", "type": "function", "function": {"name": name, "arguments": args}}]))
        return ChatResult(Message(role="assistant", content=f"Final Answer: {self.answer}" if self.react else self.answer))

    async def aclose(self):
        pass


@pytest.mark.parametrize("react", [False, True], ids=["tools", "react"])
def test_model_agents_run_whole_level3_requirements(data, react):
    """A model that makes the recorded calls passes a run case; with function calling it
    sees the tools ToolSearcher reveals appear as it searches."""
    case = next(c for c in import_cases(data, 3, ("run",)))
    calls = [(g["api_name"], json.dumps(g["result"]["input"])) for g in case.spec["gold"]["calls"]]
    model = Scripted(calls, react, answer=case.spec["gold"]["text"])
    agent = ReactAgent(model) if react else ToolsAgent(model)
    trace = run_agent(agent, case)
    verdict = get_family(case.family).check(case, trace)
    assert verdict.passed, verdict.evidence
    labels = verdict.labels["api_bank"]
    assert labels["completeness"] == 1.0 and labels["rouge_l"] > 0.99
    if not react:
        assert model.seen_tools[0] == ["ToolSearcher"]
        assert len(model.seen_tools[-1]) > 1  # revealed by the searches


def test_level2_hidden_apis_are_callable_and_search_reveals_them(data):
    case = next(c for c in import_cases(data, 2) if c.spec["kind"] == "api" and c.spec["gold"]["api_name"] == "ToolSearcher")
    env = get_family(case.family).environment(case, __import__("planprobe").environment.Limits(), 0, "x")
    assert [t.name for t in env.tools] == ["ToolSearcher"]
    out = json.loads(env.call("ToolSearcher", json.dumps({"keywords": "add agenda"})))
    names = [d["name"] for d in out["output"]] if isinstance(out["output"], list) else [out["output"]["name"]]
    assert "AddAgenda" in names and "AddAgenda" in [t.name for t in env.tools]
    # an API never revealed can still be called by name, as API-Bank lets a model do
    assert json.loads(env.call("GetToday", "{}"))["output"] == "2023-03-31"


def test_response_cases_score_the_reply(data):
    case = next(c for c in import_cases(data, 1, ("response",)))
    family = get_family(case.family)
    good = run_agent(make_agent("oracle"), case)
    assert family.check(case, good).passed
    env = family.environment(case, __import__("planprobe").environment.Limits(), 0, "x")
    env.finish("")
    v = family.check(case, env.trace)
    assert not v.passed and v.score == 0.0 and v.errors == ["response_mismatch"]
    asyncio.run(asyncio.sleep(0))
