"""``--model litellm:<provider/model>`` through LiteLLM itself (the litellm extra), routed to real
servers on loopback: a scripted one for exact verdicts and token counts, llama.cpp's with the
embedded model for a real model's replies, and a port where nothing listens."""

from __future__ import annotations

import subprocess
import sys

import pytest
from plan_script import PlanScript

from helpers import cases, planprobe_cmd, run_agent, subprocess_env
from http_faults import ScriptedServer
from llama_server import free_port
from planprobe.agents.tools_agent import ToolsAgent
from planprobe.errors import PlanprobeError
from planprobe.models import ModelOptions, make_model
from planprobe.models.base import ChatParams
from planprobe.runner.store import RunStore
from planprobe.suites.io import write_suite

pytest.importorskip("litellm", reason="the litellm extra is not installed")




def _model(url, **kw):
    return make_model("litellm:openai/scripted", ModelOptions(base_url=url, cache=False, request_timeout=100000, **kw))


def test_litellm_routes_to_the_server_and_records_usage_and_exact_verdicts():
    suite = cases(3, seed=11, actions=(3, 3))
    for mode, passes in (("reference", True), ("reversed", False)):
        with ScriptedServer(PlanScript(suite, mode)) as server:
            for case in suite:
                trace = run_agent(ToolsAgent(_model(server.url), ChatParams(seed=0)), case)
                from planprobe import check

                verdict = check(case, trace)
                n = len(trace.tool_calls)
                assert trace.status.value == "completed" and trace.final_answer == "All done."
                assert verdict.passed is passes, (mode, verdict.errors)
                # the tokens the server reported, call by call (LiteLLM does not re-count them)
                assert trace.usage.model_calls == n + 1
                assert trace.usage.prompt_tokens == sum(100 + i for i in range(n)) + 200
                assert trace.usage.completion_tokens == 7 * n + 3
        assert all(server.requests), "every request went to the scripted server"
        assert {r["model"] for r in server.requests} == {"scripted"}  # the provider prefix is LiteLLM's, not sent


def test_litellm_against_the_embedded_model_on_llama_cpp(llama_server, tmp_path):
    suite = tmp_path / "suite.jsonl"
    write_suite(cases(1, seed=4, actions=(2, 2)), suite)  # one case: the plumbing, not the model, is under test
    out = tmp_path / "run"
    proc = subprocess.run(planprobe_cmd() + ["run", str(suite), "--model", "litellm:openai/smollm2", "--base-url",
                                             llama_server, "--agent", "tools", "--out", str(out), "--no-cache",
                                             "--timeout", "1000000", "--request-timeout", "100000",
                                             "--max-iterations", "4", "--tool-results-as", "user"],
                          capture_output=True, text=True, check=False, env=subprocess_env())
    assert proc.returncode == 0, proc.stderr
    results = list(RunStore(out).results())
    assert len(results) == 1
    for trace, verdict in results:
        assert not verdict.infra and trace.usage.model_calls >= 1 and trace.usage.prompt_tokens > 0


def test_unreachable_upstream_is_an_infrastructure_result_with_one_line(tmp_path):
    suite = tmp_path / "suite.jsonl"
    write_suite(cases(1, seed=4, actions=(2, 2)), suite)
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    proc = subprocess.run(planprobe_cmd() + ["run", str(suite), "--model", "litellm:openai/x", "--base-url", url,
                                             "--out", str(tmp_path / "run"), "--no-cache", "--retries", "1"],
                          capture_output=True, text=True, check=False, env=subprocess_env())
    assert proc.returncode == 3, proc.stderr
    err = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(err) == 1 and "Connection error" in err[0] and "Traceback" not in proc.stderr
    (_trace, verdict), = RunStore(tmp_path / "run").results()
    assert verdict.infra


def test_a_model_name_without_provider_and_a_missing_extra_are_one_line(monkeypatch):
    with pytest.raises(PlanprobeError, match="expected litellm:<provider>/<model>"):
        make_model("litellm:gpt", ModelOptions(cache=False))
    monkeypatch.setitem(sys.modules, "litellm", None)  # as if not installed
    with pytest.raises(PlanprobeError, match=r"needs the litellm extra: pip install 'planprobe\[litellm\]'"):
        make_model("litellm:openai/gpt", ModelOptions(cache=False))
