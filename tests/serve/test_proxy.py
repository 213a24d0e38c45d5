"""The recording proxy: under `serve --proxy-upstream` each model call of the external agent
lands in the trace of the case being served (messages, tokens, reasoning); streaming is
relayed as it comes; an unreachable upstream makes the case infrastructure; keys are passed
on and never written."""

from __future__ import annotations

import asyncio
import json

import httpx
from serve_helpers import (
    ServeProcess,
    plan_script,
    plans_for,
    scripted_model,
    suite_cases,
    tool_log,
)

from http_faults import Reply, ScriptedServer
from llama_server import free_port
from planprobe.agents.tools_agent import ToolsAgent
from planprobe.runner.store import RunStore
from planprobe.schema import TraceStatus
from planprobe.suites.io import write_suite

KEY = "sk-test-proxy-key-never-stored-0123456789"


def stored(out):
    store = RunStore(out)
    try:
        return list(store.results())
    finally:
        store.close()


def test_serve_with_proxy_records_model_calls_into_the_case(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    from planprobe.serve.client import run_mcp_client

    cases = suite_cases(3)
    suite = tmp_path / "suite.jsonl"
    write_suite(cases, suite)
    with ScriptedServer(plan_script(plans_for(cases))) as upstream:
        serve = ServeProcess(suite, tmp_path / "run", "--proxy-upstream", upstream.url, "--timeout", "1000000")
        try:
            (endpoint,) = serve.endpoints()
            (proxy_url,) = serve.proxies
            model = scripted_model(proxy_url)
            client = asyncio.run(run_mcp_client(endpoint, ToolsAgent(model), close_model=model.aclose))
            code, _out, err = serve.finish()
        finally:
            serve.stop()
        sent = upstream.headers
    assert code == 0, err
    assert sent and all(h.get("authorization") == f"Bearer {KEY}" for h in sent)  # passed on as is
    results = {t.case_id: t for t, _ in stored(tmp_path / "run")}
    assert len(results) == 3
    for seen, case in zip(client, cases):
        trace = results[case.id]
        # every model call is in the served case's trace, with its usage: equal to what the agent counted
        assert trace.usage.model_calls == seen.usage.model_calls == len(trace.meta["proxy_calls"]) > 0
        assert (trace.usage.prompt_tokens, trace.usage.completion_tokens) == \
            (seen.usage.prompt_tokens, seen.usage.completion_tokens)
        assert trace.iterations == seen.usage.model_calls  # with the proxy, a model call is an iteration
        assert [m.role for m in trace.messages] == [m.role for m in seen.messages]
        assert [m.content for m in trace.messages if m.role != "tool"] == \
            [m.content for m in seen.messages if m.role != "tool"]
        # the agent saw what the ground-truth environment answered, and an error where it recorded one
        assert [c[:3] for c in tool_log(trace)] == [c[:3] for c in tool_log(seen)]
        assert [c[3] is None for c in tool_log(trace)] == [c[3] is None for c in tool_log(seen)]
    for path in (tmp_path / "run").rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes()
            assert KEY[8:24].encode() not in path.read_bytes()


def test_unreachable_upstream_makes_the_case_infra_and_the_rest_go_on(tmp_path):
    from mcp.client import Client

    cases = suite_cases(2)
    suite = tmp_path / "suite.jsonl"
    write_suite(cases, suite)
    dead = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    serve = ServeProcess(suite, tmp_path / "run", "--proxy-upstream", dead, "--timeout", "1000000")
    try:
        (endpoint,) = serve.endpoints()
        (proxy_url,) = serve.proxies

        async def agent():
            async with Client(endpoint) as client:
                await client.read_resource("planprobe://task")  # the first case is being served
                async with httpx.AsyncClient() as http:
                    r = await http.post(proxy_url + "/chat/completions",
                                        json={"model": "m", "messages": [{"role": "user", "content": "hi"}]})
                assert r.status_code == 502 and "unreachable" in r.json()["error"]["message"]
                refused = await client.call_tool(cases[0].tools[0].name, {})  # the case is over: refused
                assert refused.is_error and "unreachable" in refused.content[0].text
                ack = await client.call_tool("finish", {"answer": "late"})  # acknowledges, finishes nothing
                assert "was already over" in ack.content[0].text
                result = await client.call_tool("finish", {"answer": "x"})  # the second case
                assert "is finished" in result.content[0].text
                return result

        asyncio.run(agent())
        code, _out, err = serve.finish()
    finally:
        serve.stop()
    assert code == 3
    assert err.count("unreachable") == 1 and "Traceback" not in err
    got = {t.case_id: (t, v) for t, v in stored(tmp_path / "run")}
    first, second = got[cases[0].id], got[cases[1].id]
    assert first[0].status == TraceStatus.INFRA_ERROR and first[1].infra
    assert second[0].final_answer == "x" and not second[1].infra  # judged as usual


def _sse(*chunks) -> bytes:
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"


def test_streaming_is_relayed_and_assembled(tmp_path):
    from planprobe.serve.mcp_server import listen, shutdown
    from planprobe.serve.proxy import Proxy

    chunks = [
        {"model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "reasoning_content": "think "}}]},
        {"model": "m", "choices": [{"index": 0, "delta": {"reasoning_content": "more", "content": "I will "}}]},
        {"model": "m", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "c1", "function": {"name": "book", "arguments": "{\"a\""}}]}}]},
        {"model": "m", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": ": 1}"}}]}, "finish_reason": "tool_calls"}]},
        {"model": "m", "choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 5}},
    ]
    body = _sse(*chunks)

    class Collect:
        def __init__(self):
            self.calls = []

        def before_call(self):
            return None

        def record(self, request, reply):
            self.calls.append((request, reply))

        def failed(self, cause):
            raise AssertionError(cause)

    recorder = Collect()
    with ScriptedServer(lambda i, b, h: Reply(200, body)) as upstream:
        async def go():
            proxy = Proxy(upstream.url, lambda key: recorder)
            server, task, port = await listen(proxy.app(), 0)
            try:
                async with httpx.AsyncClient() as http:
                    async with http.stream("POST", f"http://127.0.0.1:{port}/v1/chat/completions",
                                           json={"model": "m", "stream": True, "messages": []}) as r:
                        got = b"".join([part async for part in r.aiter_bytes()])
            finally:
                await shutdown(server, task)
                await proxy.aclose()
            return got

        relayed = asyncio.run(go())
        sent = upstream.requests[0]
    assert sent["stream_options"] == {"include_usage": True}  # asked for, to count tokens
    assert relayed == _sse(*chunks[:-1])  # the usage chunk the client did not ask for is not passed on
    (_request, reply), = recorder.calls
    message = reply["choices"][0]["message"]
    assert message["content"] == "I will " and message["reasoning_content"] == "think more"
    assert message["tool_calls"] == [{"id": "c1", "type": "function", "function": {"name": "book",
                                                                                  "arguments": "{\"a\": 1}"}}]
    assert reply["usage"] == {"prompt_tokens": 7, "completion_tokens": 5}
    assert reply["choices"][0]["finish_reason"] == "tool_calls"


def test_standalone_proxy_writes_one_line_per_call_and_no_key(tmp_path):
    import subprocess

    from helpers import planprobe_cmd, subprocess_env
    from http_faults import chat_reply
    from llama_server import stop

    record = tmp_path / "calls.jsonl"
    with ScriptedServer(lambda i, b, h: chat_reply("hello")) as upstream:
        proc = subprocess.Popen(planprobe_cmd() + ["proxy", "--upstream", upstream.url, "--record", str(record)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=subprocess_env())
        try:
            line = proc.stdout.readline()
            assert line.startswith("proxy: http://127.0.0.1:"), proc.stderr.read() if not line else line
            base = line.split()[1].removesuffix("/v1")
            r = httpx.post(f"{base}/case/c-7/v1/chat/completions", headers={"Authorization": f"Bearer {KEY}"},
                           json={"model": "m", "messages": [{"role": "user", "content": "hi"}]})
            assert r.status_code == 200 and r.json()["choices"][0]["message"]["content"] == "hello"
        finally:
            stop(proc)
        assert upstream.headers[0]["authorization"] == f"Bearer {KEY}"
    (entry,) = [json.loads(x) for x in record.read_text().splitlines()]
    assert entry["case_id"] == "c-7" and entry["reply"]["content"] == "hello"
    assert entry["usage"] == {"prompt_tokens": 10, "completion_tokens": 2}
    assert KEY[8:24] not in record.read_text()
