"""The MCP path with real models: the embedded model (`--model local`) as planprobe's tools
agent over MCP, end to end; and llama.cpp's OpenAI-compatible server behind the recording
proxy, whose token counts reach the served cases' traces."""

from __future__ import annotations

import asyncio

from serve_helpers import ServeProcess, suite_cases

from llama_server import require_local_model
from planprobe.agents.tools_agent import ToolsAgent
from planprobe.environment import Limits
from planprobe.models import ModelOptions, make_model
from planprobe.models.base import ChatParams
from planprobe.runner.store import RunStore
from planprobe.suites.io import write_suite

PARAMS = ChatParams(max_tokens=64)


def _stored(out):
    store = RunStore(out)
    try:
        return {t.case_id: (t, v) for t, v in store.results()}
    finally:
        store.close()


def _served(suite, out, agent_model, *args, proxy=False):
    from planprobe.serve.client import run_mcp_client

    serve = ServeProcess(suite, out, "--max-iterations", "6", "--timeout", "1000000", *args)
    try:
        (endpoint,) = serve.endpoints()
        model = agent_model(serve.proxies[0]) if proxy else agent_model(None)
        traces = asyncio.run(run_mcp_client(endpoint, ToolsAgent(model, PARAMS), limits=Limits(max_iterations=6),
                                            close_model=model.aclose))
        code, _out, err = serve.finish()
    finally:
        serve.stop()
    return traces, code, err


def test_embedded_model_as_an_mcp_client_end_to_end(tmp_path):
    require_local_model()
    cases = suite_cases(1)
    suite = tmp_path / "suite.jsonl"
    write_suite(cases, suite)
    traces, code, err = _served(suite, tmp_path / "run", lambda _: make_model("local", ModelOptions(cache=False)))
    assert code == 0, err
    stored = _stored(tmp_path / "run")
    assert len(traces) == 1 and set(stored) == {c.id for c in cases}
    for seen, case in zip(traces, cases):
        trace, verdict = stored[case.id]
        assert not verdict.infra and verdict.checker == "constraints/1"
        # every call the model made reached the server's environment, in order, and nothing else did
        assert [c.name for c in trace.tool_calls] == [c.name for c in seen.tool_calls if c.args is not None]
        assert seen.usage.model_calls >= 1


def test_llama_server_behind_the_recording_proxy(llama_server, tmp_path):
    cases = suite_cases(2)
    suite = tmp_path / "suite.jsonl"
    write_suite(cases, suite)

    def model(proxy_url):
        return make_model("openai:smollm2", ModelOptions(base_url=proxy_url, tool_result_role="user", cache=False,
                                                         request_timeout=100000))

    traces, code, err = _served(suite, tmp_path / "run", model, "--proxy-upstream", llama_server, proxy=True)
    assert code == 0, err
    stored = _stored(tmp_path / "run")
    for seen, case in zip(traces, cases):
        trace, verdict = stored[case.id]
        assert not verdict.infra
        assert trace.usage.model_calls == seen.usage.model_calls >= 1
        assert trace.usage.prompt_tokens == seen.usage.prompt_tokens > 0
        assert trace.usage.completion_tokens == seen.usage.completion_tokens > 0
        assert trace.messages[0].content == seen.messages[0].content
