"""`serve --otel-out` and `proxy --otel-out` write what they record as OTLP/JSON spans (GenAI
conventions); `check --format otel` reads them back to the same verdicts and tool logs. The
scripted model makes one case pass and two fail differently, so equal verdicts mean something."""

from __future__ import annotations

import asyncio
import json
import subprocess

import pytest
from serve_helpers import (
    ServeProcess,
    plan_script,
    plans_for,
    scripted_model,
    suite_cases,
    tool_log,
)

from helpers import planprobe_cmd, subprocess_env
from http_faults import ScriptedServer
from llama_server import stop
from planprobe import check
from planprobe.agents.tools_agent import ToolsAgent
from planprobe.environment import Limits
from planprobe.runner.store import RunStore
from planprobe.suites.io import write_suite
from planprobe.suites.registry import get_family


def results(out):
    with RunStore(out) as store:
        return {t.case_id: (t, v) for t, v in store.results()}


def check_otel(suite, spans, out):
    proc = subprocess.run(planprobe_cmd() + ["check", str(suite), str(spans), "--out", str(out), "-q",
                                             "--format", "otel"],
                          capture_output=True, text=True, env=subprocess_env(), timeout=600)
    assert proc.returncode == 0, proc.stderr
    return results(out)


def assert_same(read_back, original, classes=True):
    assert set(read_back) == set(original)
    for cid, (trace, verdict) in read_back.items():
        o_trace, o_verdict = original[cid]
        assert (verdict.passed, verdict.errors) == (o_verdict.passed, o_verdict.errors), cid
        assert tool_log(trace) == tool_log(o_trace), cid
        assert (trace.status, [e.kind for e in trace.errors]) == (o_trace.status, [e.kind for e in o_trace.errors])
    if not classes:
        return
    assert sorted((v.passed, tuple(v.errors[:1])) for _, v in original.values()) == [
        (False, ("act_error",)), (False, ("order_error",)), (True, ())]


@pytest.fixture
def scripted(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-stored")
    cases = suite_cases(3)
    suite = tmp_path / "suite.jsonl"
    write_suite(cases, suite)
    with ScriptedServer(plan_script(plans_for(cases))) as server:
        yield cases, suite, server


@pytest.mark.parametrize("with_proxy, limit", [(False, None), (True, None), (False, "2")])
def test_serve_writes_otlp_that_check_reads_back_to_the_same_verdicts(scripted, tmp_path, with_proxy, limit):
    from planprobe.serve.client import run_mcp_client

    _cases, suite, server = scripted
    spans = tmp_path / "served.otlp.jsonl"
    extra = ["--proxy-upstream", server.url] if with_proxy else []
    if limit:  # every case ends on its iteration limit: the status travels too
        extra += ["--max-iterations", limit]
    serve = ServeProcess(suite, tmp_path / "mcp", "--timeout", "1000000", "--otel-out", str(spans), *extra)
    try:
        (endpoint,) = serve.endpoints()
        model = scripted_model(serve.proxies[0] if with_proxy else server.url)
        asyncio.run(run_mcp_client(endpoint, ToolsAgent(model), close_model=model.aclose))
        code, _out, err = serve.finish()
    finally:
        serve.stop()
    assert code == 0, err
    lines = [json.loads(x) for x in spans.read_text().splitlines()]
    assert len(lines) == 3  # one trace per stored result
    names = {s["name"].split()[0] for x in lines for s in x["resourceSpans"][0]["scopeSpans"][0]["spans"]}
    assert names == ({"invoke_agent", "execute_tool", "chat"} if with_proxy else {"invoke_agent", "execute_tool"})
    read_back = check_otel(suite, spans, tmp_path / "check")
    served = results(tmp_path / "mcp")
    assert_same(read_back, served, classes=not limit)
    for trace, _ in read_back.values():
        assert trace.final_answer == (None if limit else "done")
        assert trace.status.value == ("iteration_limit" if limit else "completed")


def _agent(client, case, env):
    """An OpenAI-client agent with tools of its own (the case's environment stands in for them)."""
    tools = [{"type": "function", "function": t.model_dump()} for t in case.tools]
    messages = [{"role": "user", "content": case.task}]
    for _ in range(20):
        message = client.chat.completions.create(model="scripted", messages=messages, tools=tools).choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content
        for call in message.tool_calls:
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": env.call(call.function.name, call.function.arguments)})
    return None


def test_the_standalone_proxy_writes_otlp_that_check_reads_back(scripted, tmp_path):
    openai = pytest.importorskip("openai")
    cases, suite, server = scripted
    spans = tmp_path / "proxy.otlp.jsonl"
    proc = subprocess.Popen(planprobe_cmd() + ["proxy", "--upstream", server.url, "--otel-out", str(spans)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=subprocess_env())
    direct = {}
    try:
        line = proc.stdout.readline()
        assert line.startswith("proxy: http://127.0.0.1:"), proc.stderr.read() if not line else line
        base = line.split()[1].removesuffix("/v1")
        for case in cases:  # each case on its own path: /case/ID/v1 names the case in the spans
            client = openai.OpenAI(base_url=f"{base}/case/{case.id}/v1", api_key="unused", max_retries=0)
            env = get_family(case.family).environment(case, Limits(), 0, "production")
            answer = _agent(client, case, env)
            if answer is not None:
                env.finish(answer)
            direct[case.id] = (env.trace, check(case, env.trace))
    finally:
        stop(proc)
    assert assert_same(check_otel(suite, spans, tmp_path / "check"), direct) is None
    traces = {s["traceId"] for x in map(json.loads, spans.read_text().splitlines())
              for s in x["resourceSpans"][0]["scopeSpans"][0]["spans"]}
    assert len(traces) == 3  # the calls of one conversation share a trace


def test_proxy_needs_a_record_or_an_otel_file(tmp_path):
    proc = subprocess.run(planprobe_cmd() + ["proxy", "--upstream", "http://127.0.0.1:9/v1"], capture_output=True,
                          text=True, env=subprocess_env(), timeout=120)
    assert proc.returncode != 0 and "--record FILE (JSONL), --otel-out FILE (OTLP/JSON) or both" in proc.stderr
