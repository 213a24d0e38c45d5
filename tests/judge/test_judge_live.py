"""The judge end to end against a real model: the embedded SmolLM2-135M behind
llama.cpp's OpenAI-compatible server (the session fixture in llama_server.py).
A 135M model is no judge; these tests check the plumbing — real replies in,
judged verdicts out, nothing crashing — not the quality of the judgements."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

from apb_fixture import STANDIN_APB_CODE

from helpers import planprobe_cmd, run_agent, subprocess_env
from llama_server import require_local_model
from planprobe.agents.reference import OracleAgent
from planprobe.importers.apb import iter_apb
from planprobe.llm_judge.judge import JudgeConfig, judge_trace_detailed
from planprobe.models import ModelOptions, make_model
from planprobe.schema import OracleKind

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "apb_sample.jsonl"


def _small_case_and_trace(split="holistic_unsolvable"):
    """The unsolvable case has the shortest prompt: the tests stay quick on a busy machine."""
    case = next(c for c in iter_apb(SAMPLE) if c.meta.generator["split"] == split)
    return case, run_agent(OracleAgent(), case)


def test_real_replies_over_http_become_judged_verdicts(llama_server, tmp_path):
    case, trace = _small_case_and_trace()
    model = make_model("openai:smollm2", ModelOptions(base_url=llama_server, cache_path=tmp_path / "cache.sqlite",
                                                       request_timeout=100000))  # out of reach on a loaded machine

    async def go():
        try:
            return await judge_trace_detailed(model, case, trace, JudgeConfig(samples=2, max_tokens=24))
        finally:
            await model.aclose()

    j = asyncio.run(go())
    v = j.verdict
    assert v.oracle == OracleKind.JUDGED and v.checker.startswith("judge:openai:smollm2")
    assert len(j.samples) == 2 and all(s.raw or s.parsed.problems for s in j.samples)
    assert (v.score is None) == (j.usable == 0)
    assert v.passed == (v.score is not None and v.score >= 1.0)


def test_the_embedded_model_with_the_tool_format_always_gives_a_grade(tmp_path):
    """In process, tool calls are decoded under a grammar: every reply has the judgement's shape."""
    require_local_model()
    case, trace = _small_case_and_trace()
    model = make_model("local", ModelOptions(cache=False))

    async def go():
        try:
            return await judge_trace_detailed(model, case, trace, JudgeConfig(samples=1, max_tokens=200,
                                                                               reply_format="tool"))
        finally:
            await model.aclose()

    j = asyncio.run(go())
    assert j.usable == 1 and j.samples[0].parsed.status == "ok", j.samples[0]
    assert j.verdict.score in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def test_cli_judges_a_run_and_resumes_from_the_log(llama_server, tmp_path):
    suite, run = tmp_path / "apb.jsonl", tmp_path / "run"
    env = subprocess_env(XDG_CACHE_HOME=str(tmp_path / "cache"))
    subprocess.run(planprobe_cmd() + ["import", "apb", str(SAMPLE), "-o", str(suite), "--apb-code",
                                      str(STANDIN_APB_CODE), "--split", "holistic_unsolvable",
                                      "--split", "step_wise_planning"], check=True, env=env,
                   capture_output=True)
    subprocess.run(planprobe_cmd() + ["run", str(suite), "--out", str(run), "-q"], check=True, env=env,
                   capture_output=True)
    args = planprobe_cmd() + ["judge", str(run), "--judge-model", "openai:smollm2", "--base-url", llama_server,
                              "--samples", "1", "--limit", "1", "--max-tokens", "24", "--json", "-q",
                              "--request-timeout", "100000"]  # out of reach on a loaded machine (60 s was not)
    first = subprocess.run(args, check=False, capture_output=True, text=True, env=env)
    assert first.returncode == 0, first.stderr
    data = json.loads(first.stdout)
    assert data["summary"]["judged"] == 1 and data["calibration"] is None  # --limit 1 of the run's 2 cases
    assert data["identity"]["judge_model"] == "openai:smollm2" and data["identity"]["samples"] == 1
    lines = (run / "judge.jsonl").read_text().splitlines()
    assert len(lines) == 1 and all(json.loads(x)["verdict"]["oracle"] == "judged" for x in lines)
    again = subprocess.run(args, check=False, capture_output=True, text=True, env=env)
    assert again.returncode == 0 and json.loads(again.stdout)["summary"] == data["summary"]
    assert len((run / "judge.jsonl").read_text().splitlines()) == 1  # resumed: nothing judged twice
