"""`planprobe serve` driven by a real MCP client (the SDK's) running planprobe's tools agent:
the verdicts and the ground-truth tool logs equal those of `--agent tools` with the same model."""

from __future__ import annotations

import asyncio

import pytest
from serve_helpers import (
    ServeProcess,
    plan_script,
    plans_for,
    scripted_model,
    suite_cases,
    tool_log,
)

from http_faults import ScriptedServer
from planprobe import run_suite
from planprobe.agents.tools_agent import ToolsAgent
from planprobe.environment import Limits
from planprobe.runner.store import RunStore
from planprobe.suites.io import write_suite

LIMITS = Limits(max_iterations=20, timeout_s=10 ** 6)


def results(out):
    store = RunStore(out)
    try:
        return {t.case_id: (t, v) for t, v in store.results()}
    finally:
        store.close()


@pytest.fixture
def scripted(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-stored")
    cases = suite_cases(3)
    with ScriptedServer(plan_script(plans_for(cases))) as server:
        yield cases, server


def direct_run(cases, url, out):
    run_suite(cases, ToolsAgent(scripted_model(url)), out, limits=LIMITS, concurrency=1)
    return results(out)


def client_run(endpoint, url, **kw):
    from planprobe.serve.client import run_mcp_client

    model = scripted_model(url)
    return asyncio.run(run_mcp_client(endpoint, ToolsAgent(model), close_model=model.aclose, **kw))


def assert_same_results(mcp, direct):
    assert set(mcp) == set(direct)
    for cid, (trace, verdict) in mcp.items():
        d_trace, d_verdict = direct[cid]
        assert (verdict.passed, verdict.errors) == (d_verdict.passed, d_verdict.errors), cid
        assert tool_log(trace) == tool_log(d_trace), cid


def test_http_serve_gives_the_verdicts_of_the_tools_agent(scripted, tmp_path):
    cases, server = scripted
    suite = tmp_path / "suite.jsonl"
    write_suite(cases, suite)
    direct = direct_run(cases, server.url, tmp_path / "direct")
    # the script makes one case pass and two fail differently: the comparison can fail
    assert sorted((v.passed, tuple(v.errors[:1])) for _, v in direct.values()) == [
        (False, ("act_error",)), (False, ("order_error",)), (True, ())]
    serve = ServeProcess(suite, tmp_path / "mcp", "--timeout", "1000000")
    try:
        (endpoint,) = serve.endpoints()
        assert endpoint.startswith("http://127.0.0.1:") and endpoint.endswith("/mcp")
        traces = client_run(endpoint, server.url)
        code, out, err = serve.finish()
    finally:
        serve.stop()
    assert code == 0, err
    assert len(traces) == 3 and all(t.tool_calls for t in traces)
    assert out.count("serving case") == 3, out
    mcp = results(tmp_path / "mcp")
    assert_same_results(mcp, direct)
    for trace, _ in mcp.values():  # the answer given with the finish tool is the case's answer
        assert trace.final_answer == "done" and trace.agent == "mcp"


def test_parallel_endpoints_and_resume(scripted, tmp_path):
    cases, server = scripted
    suite = tmp_path / "suite.jsonl"
    write_suite(cases, suite)
    direct = direct_run(cases, server.url, tmp_path / "direct")
    serve = ServeProcess(suite, tmp_path / "mcp", "--parallel", "2", "--timeout", "1000000")
    try:
        endpoints = serve.endpoints(2)
        assert len(set(endpoints)) == 2

        async def both():
            from planprobe.serve.client import run_mcp_client

            models = [scripted_model(server.url) for _ in endpoints]
            return await asyncio.gather(*(run_mcp_client(e, ToolsAgent(m), close_model=m.aclose)
                                          for e, m in zip(endpoints, models)))

        served = asyncio.run(both())
        code, _out, err = serve.finish()
    finally:
        serve.stop()
    assert code == 0, err
    assert sum(len(t) for t in served) == 3
    assert_same_results(results(tmp_path / "mcp"), direct)
    again = ServeProcess(suite, tmp_path / "mcp", "--timeout", "1000000")  # resuming: nothing left to serve
    try:
        code, out, err = again.finish()
    finally:
        again.stop()
    assert code == 0, err
    assert "serving case" not in out


def test_stdio_server_started_by_the_sdk_client(scripted, tmp_path):
    from mcp.client.stdio import StdioServerParameters

    from helpers import planprobe_cmd, subprocess_env

    cases, server = scripted
    suite = tmp_path / "suite.jsonl"
    write_suite(cases, suite)
    direct = direct_run(cases, server.url, tmp_path / "direct")
    cmd = planprobe_cmd()
    params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], "serve", str(suite), "--out",
                                                        str(tmp_path / "mcp"), "--transport", "stdio",
                                                        "--timeout", "1000000"],
                                   env=subprocess_env())
    traces = client_run(params, server.url)
    assert len(traces) == 3
    assert_same_results(results(tmp_path / "mcp"), direct)
