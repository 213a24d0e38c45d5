"""Bad input at the MCP server: a malformed request, a client that disconnects mid-case, a
call after the case is over. Each is recorded as what it is (infra for a disconnect), one
line is printed, and nothing else is lost: re-running the command serves what is left."""

from __future__ import annotations

import subprocess

from serve_helpers import rpc_reply as _reply
from serve_helpers import send_rpc as _send
from serve_helpers import start_stdio as _start
from serve_helpers import suite_cases

from helpers import planprobe_cmd, subprocess_env
from llama_server import stop
from planprobe.runner.store import RunStore
from planprobe.schema import TraceStatus
from planprobe.suites.io import write_suite


def test_malformed_request_then_disconnect_mid_case(tmp_path):
    cases = suite_cases(3)
    suite = tmp_path / "suite.jsonl"
    write_suite(cases, suite)
    proc = _start(suite, tmp_path / "run")
    try:
        _send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "raw", "version": "0"}}})
        assert "result" in _reply(proc, 1)
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(proc, "this is not JSON-RPC {")  # malformed: answered or dropped, never fatal
        _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": 3}})  # invalid params
        assert "error" in _reply(proc, 2)
        _send(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
        tools = _reply(proc, 3)["result"]["tools"]
        names = [t["name"] for t in tools]
        assert names[-1] == "finish" and names[:-1] == [t.name for t in cases[0].tools]
        first = cases[0].tools[0]
        _send(proc, {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                     "params": {"name": first.name, "arguments": {"start_time": 0}}})
        result = _reply(proc, 4)["result"]
        assert result["content"][0]["type"] == "text"
        proc.stdin.close()  # the client goes away mid-case
        code = proc.wait(timeout=600)
        err = proc.stderr.read()
    finally:
        stop(proc)
    assert code == 3, err
    assert "disconnected" in err and "Traceback" not in err
    store = RunStore(tmp_path / "run")
    try:
        got = list(store.results())
        assert len(got) == 1  # the case in flight; the other two are still to serve
        trace, verdict = got[0]
        assert trace.case_id == cases[0].id and trace.status == TraceStatus.INFRA_ERROR and verdict.infra
        assert [c.name for c in trace.tool_calls] == [first.name]  # its call is kept
    finally:
        store.close()


def test_calls_after_all_cases_are_done_are_told_so(tmp_path):
    cases = suite_cases(1)
    suite = tmp_path / "suite.jsonl"
    write_suite(cases, suite)
    proc = _start(suite, tmp_path / "run")
    try:
        _send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "raw", "version": "0"}}})
        _reply(proc, 1)
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                     "params": {"name": "finish", "arguments": {"answer": "nothing to do"}}})
        text = _reply(proc, 2)["result"]["content"][0]["text"]
        assert "All cases are done" in text
        _send(proc, {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "planprobe://task"}})
        assert "All cases are done" in _reply(proc, 3)["result"]["contents"][0]["text"]
        proc.stdin.close()
        code = proc.wait(timeout=600)
    finally:
        stop(proc)
    assert code == 0, proc.stderr.read()
    store = RunStore(tmp_path / "run")
    try:
        (trace, verdict), = store.results()
        assert trace.final_answer == "nothing to do" and not trace.tool_calls and not verdict.passed
    finally:
        store.close()


def test_bad_options_are_one_line(tmp_path):
    cases = suite_cases(1)
    suite = tmp_path / "suite.jsonl"
    write_suite(cases, suite)
    bad = {
        ("--transport", "carrier-pigeon"): "--transport 'carrier-pigeon'",
        ("--transport", "stdio", "--parallel", "2"): "--parallel",
        ("--proxy-upstream", "ftp://x"): "--upstream 'ftp://x'",
        ("--parallel", "0"): "--parallel 0",
        ("--port", "70000"): "--port 70000",
    }
    for args, expected in bad.items():
        done = subprocess.run(planprobe_cmd() + ["serve", str(suite), "--out", str(tmp_path / "r"), *args],
                              capture_output=True, text=True, env=subprocess_env(), timeout=600)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1 and expected in lines[0], (args, done.stderr)
    assert not (tmp_path / "r").exists()


def test_missing_extra_is_one_clear_line(monkeypatch):
    import sys

    import pytest

    from planprobe.errors import PlanprobeError
    from planprobe.serve.mcp_server import require_mcp

    monkeypatch.setitem(sys.modules, "mcp", None)  # as if not installed
    with pytest.raises(PlanprobeError, match=r"pip install 'planprobe\[mcp\]'"):
        require_mcp()


def test_a_case_ended_by_its_limit_takes_no_more_calls(tmp_path, monkeypatch):
    """The server ends a case at --max-iterations while the client's agent goes on: its next
    calls are refused (not run on the next case) until it calls finish."""
    import asyncio

    from serve_helpers import ServeProcess, plan_script, plans_for, scripted_model

    from http_faults import ScriptedServer
    from planprobe.agents.tools_agent import ToolsAgent
    from planprobe.serve.client import run_mcp_client

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    cases = suite_cases(3)
    suite = tmp_path / "suite.jsonl"
    write_suite(cases, suite)
    with ScriptedServer(plan_script(plans_for(cases))) as server:
        serve = ServeProcess(suite, tmp_path / "run", "--max-iterations", "2", "--timeout", "1000000")
        try:
            (endpoint,) = serve.endpoints()
            model = scripted_model(server.url)
            seen = asyncio.run(run_mcp_client(endpoint, ToolsAgent(model), close_model=model.aclose))
            code, _out, err = serve.finish()
        finally:
            serve.stop()
    assert code == 0, err
    assert len(seen) == 3 and all("is over" in t.errors[0].message for t in seen)
    store = RunStore(tmp_path / "run")
    try:
        got = {t.case_id: t for t, _ in store.results()}
    finally:
        store.close()
    for case in cases:
        trace = got[case.id]
        assert trace.status == TraceStatus.ITERATION_LIMIT
        assert len(trace.tool_calls) == 2  # the third call was refused, and ran nowhere
        assert all(c.name in {t.name for t in case.tools} | {"launch_rockets"} for c in trace.tool_calls)


def test_a_disconnected_case_is_counted_once_as_infra_not_also_as_unserved(tmp_path):
    cases = suite_cases(3)
    suite = tmp_path / "suite.jsonl"
    write_suite(cases, suite)
    proc = _start(suite, tmp_path / "run")
    try:
        _send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "raw", "version": "0"}}})
        _reply(proc, 1)
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "planprobe://task"}})
        assert _reply(proc, 2)["result"]["contents"][0]["text"] == cases[0].task  # the first case is being served
        proc.stdin.close()
        code = proc.wait(timeout=600)
        err = proc.stderr.read()
    finally:
        stop(proc)
    assert code == 3, err
    (line,) = [x for x in err.splitlines() if x.startswith("error:")]
    # 3 cases: 1 infra (to serve again) + 2 never served, not 1 + 3
    assert "1 result(s) failed for infrastructure reasons" in line and "2 result(s) were not served" in line, line
    assert "re-run the same command to serve 3 of them" in line, line
