"""Each way a model service can fail, injected by a real misbehaving server on loopback
(tests/http_faults.py), and how planprobe must take it: a wrong endpoint stops the run
at once with one line; an outage, a dripping or malformed reply becomes ``infra`` (never
a planning failure or an agent crash); a context overflow is a limit, as for the
embedded model; a key the server echoes is never stored or printed. No test here
depends on the machine's speed: hangs and drips outlast every deadline set."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest

from helpers import cases
from http_faults import Drip, Drop, Hang, Reply, ScriptedServer, always, chat_reply
from planprobe.agents.tools_agent import ToolsAgent
from planprobe.errors import (
    ContextLimitError,
    InfrastructureError,
    PlanprobeError,
    ServiceUnusableError,
)
from planprobe.models import ModelOptions, RetryPolicy, make_model
from planprobe.models.base import ChatParams
from planprobe.models.redact import redact
from planprobe.runner.engine import run_episode
from planprobe.schema import Message, TraceStatus
from planprobe.suites.registry import get_family

KEY = "sk-test-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"
NO_WAIT = RetryPolicy(max_attempts=2, base_s=0.001, cap_s=0.001)
UNLIMITED = 10 ** 6  # a case time limit no test reaches: the deadlines under test are the requests'


def model(url, *, key_env="PLANPROBE_TEST_KEY", request_timeout=30.0, retry=NO_WAIT, cache=False, **kw):
    return make_model("openai:m", ModelOptions(base_url=url, api_key_env=key_env, request_timeout=request_timeout,
                                               retry=retry, cache=cache, **kw))


def chat(m, content="hello"):
    async def go():
        try:
            return await m.chat([Message(role="user", content=content)], None, ChatParams())
        finally:
            await m.aclose()
    return asyncio.run(go())


def episode(m):
    """One tools-agent episode on a small case, judged: (trace, verdict)."""
    from planprobe.environment import Limits

    case = cases(1, seed=3, actions=(2, 2))[0]

    async def go():
        try:
            return await run_episode(case, ToolsAgent(m, ChatParams(max_tokens=16)), Limits(timeout_s=UNLIMITED))
        finally:
            await m.aclose()
    trace = asyncio.run(go())
    return trace, get_family(case.family).check(case, trace)


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("PLANPROBE_TEST_KEY", KEY)


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"  # bound and released: nothing listens there


# -- 2. a wrong endpoint stops at once, naming the cause -----------------------------------------------------


@pytest.mark.parametrize("status", [401, 403, 404, 405])
def test_a_rejecting_endpoint_stops_at_once_without_retrying(status):
    with ScriptedServer(always(lambda: Reply(status, {"error": {"message": "no"}}))) as server:
        with pytest.raises(ServiceUnusableError, match=rf"HTTP {status} from {server.url}/chat/completions"):
            chat(model(server.url, retry=RetryPolicy(max_attempts=5, base_s=0.001, cap_s=0.001)))
    assert len(server.requests) == 1  # not retried


def test_nothing_listening_stops_at_once():
    url = closed_port_url()
    with pytest.raises(ServiceUnusableError, match=f"cannot reach the model service at {url}: connection refused"):
        chat(model(url))
    with pytest.raises(ServiceUnusableError, match="host name not found"):
        chat(model("http://no-such-host.invalid/v1"))


@pytest.mark.parametrize("url", ["127.0.0.1:8000/v1", "ftp://127.0.0.1/v1", "http:///v1", "http://127.0.0.1:99999/v1"])
def test_an_invalid_base_url_is_refused_before_any_call(url):
    with pytest.raises(PlanprobeError, match="--base-url"):
        model(url)


def test_an_outage_after_the_service_answered_is_infra_not_a_stop():
    """Once the endpoint has answered, a refused connection is an outage: retried, then infra."""
    server = ScriptedServer(always(chat_reply)).__enter__()
    m = model(server.url)

    async def go():
        try:
            first = await m.chat([Message(role="user", content="a")], None, ChatParams())
            server.__exit__(None, None, None)  # the server goes away
            with pytest.raises(InfrastructureError, match=r"connection refused .*failed after 2 attempt"):
                await m.chat([Message(role="user", content="b")], None, ChatParams())
            return first
        finally:
            await m.aclose()
    assert asyncio.run(go()).message.content == "done"


# -- 3. a deadline per request, not per read ------------------------------------------------------------------


def test_a_dripping_server_is_cut_at_the_request_deadline_and_becomes_infra():
    drip = Drip(json.dumps(chat_reply().body).encode() * 50, interval=0.05)  # ~ 10 min for the whole body
    with ScriptedServer(always(lambda: drip)) as server:
        trace, verdict = episode(model(server.url, request_timeout=0.5))
    assert trace.status == TraceStatus.INFRA_ERROR and verdict.errors == ["infra"], trace.errors
    assert "no complete reply" in trace.errors[-1].message and "within 0.5 s" in trace.errors[-1].message
    assert len(server.requests) == 2  # the attempt and its retry


def test_a_hang_and_a_dropped_connection_become_infra():
    for action in (Hang(), Drop()):
        with ScriptedServer(always(lambda action=action: action)) as server:
            trace, verdict = episode(model(server.url, request_timeout=0.5))
        assert trace.status == TraceStatus.INFRA_ERROR and verdict.infra, (action, trace.errors)


def test_after_every_kind_of_fault_a_retried_call_recovers():
    """429 with Retry-After, 500, a cut-short body, a hang (cut at the deadline), a dropped
    connection — then a reply: the call succeeds, each fault noted as a retry."""
    faults = [Reply(429, {"error": "slow down"}, {"Retry-After": "0"}), Reply(500, {"error": "boom"}),
              Reply(200, json.dumps(chat_reply().body)[:30]), Hang(), Drop()]
    with ScriptedServer(lambda i, body, headers: faults[i] if i < len(faults) else chat_reply("recovered")) as server:
        # the deadline must let the final, instant reply through even on a stalled machine: 5 s
        trace, _verdict = episode(model(server.url, request_timeout=5,
                                       retry=RetryPolicy(max_attempts=6, base_s=0.001, cap_s=0.001)))
    assert trace.status == TraceStatus.COMPLETED and trace.final_answer == "recovered"
    retries = [e.message for e in trace.errors if e.kind == "infra_retry"]
    assert len(retries) == 5 and len(server.requests) == 6
    for word, message in zip(["HTTP 429", "HTTP 500", "malformed reply", "no complete reply", "connection"], retries):
        assert word in message, retries


# -- 4. malformed replies are infra, never agent_crash --------------------------------------------------------

MALFORMED = {
    "message null": Reply(200, {"choices": [{"message": None, "finish_reason": "stop"}]}),
    "usage not numeric": chat_reply(usage={"prompt_tokens": "many", "completion_tokens": 1}),
    "usage negative": chat_reply(usage={"prompt_tokens": -3}),
    "truncated JSON": Reply(200, json.dumps(chat_reply().body)[:40]),
    "no choices": Reply(200, {"choices": []}),
    "error body with 200": Reply(200, {"error": {"message": "overloaded"}}),
    "content not text": chat_reply(content={"text": 1}),
    "tool call without a name": chat_reply(content=None, tool_calls=[{"id": "c", "function": {"arguments": "{}"}}]),
    "arguments not text": chat_reply(content=None, tool_calls=[{"id": "c", "function": {"name": "x",
                                                                                        "arguments": 5}}]),
    "body not an object": Reply(200, "[1, 2]"),
}


@pytest.mark.parametrize("fault", list(MALFORMED))
def test_malformed_replies_are_infra(fault):
    with ScriptedServer(always(lambda: MALFORMED[fault])) as server:
        trace, verdict = episode(model(server.url))
    assert trace.status == TraceStatus.INFRA_ERROR and verdict.errors == ["infra"], trace.errors
    assert "malformed reply from" in trace.errors[-1].message
    assert not any(e.kind == "agent_error" for e in trace.errors)


def test_lenient_but_valid_shapes_are_accepted():
    """Content as text parts, arguments as an object, missing usage: odd, but a reply."""
    replies = [chat_reply(content=[{"type": "text", "text": "do"}, {"type": "text", "text": "ne"}]),
               Reply(200, {"choices": [{"message": {"role": "assistant", "content": "done"}}]})]
    for reply in replies:
        with ScriptedServer(always(lambda reply=reply: reply)) as server:
            assert chat(model(server.url)).message.content == "done"
    call = chat_reply(content=None, tool_calls=[{"id": "c1", "function": {"name": "f", "arguments": {"a": 1}}}])
    with ScriptedServer(always(lambda: call)) as server:
        msg = chat(model(server.url)).message
    assert msg.tool_calls[0]["function"] == {"name": "f", "arguments": '{"a": 1}'}


# -- 4. context overflow is a limit, for a server as for the embedded model ------------------------------------


def test_a_servers_context_overflow_ends_the_episode_as_a_context_limit():
    body = {"error": {"message": "This model's maximum context length is 4096 tokens. However, you requested 5000 "
                                 "tokens", "type": "invalid_request_error", "code": "context_length_exceeded"}}
    with ScriptedServer(always(lambda: Reply(400, body))) as server:
        with pytest.raises(ContextLimitError):
            chat(model(server.url))
        trace, verdict = episode(model(server.url))
    assert trace.status == TraceStatus.CONTEXT_LIMIT and verdict.errors == ["timeout"]
    assert "context window" in verdict.evidence[0].text
    with ScriptedServer(always(lambda: Reply(400, {"error": {"message": "bad tool schema"}}))) as server:
        trace, verdict = episode(model(server.url))
    assert trace.status == TraceStatus.INFRA_ERROR  # any other 400 is the service's


# -- 6. secrets ----------------------------------------------------------------------------------------------


def _echo_key(i, body, headers):
    key = headers.get("authorization", "").removeprefix("Bearer ")
    return Reply(401, {"error": {"message": f"Incorrect API key provided: {key}. Also {key[:12]}...{key[-6:]}"}})


def test_a_key_echoed_in_an_error_is_redacted():
    with ScriptedServer(_echo_key) as server:
        with pytest.raises(ServiceUnusableError) as info:
            chat(model(server.url))
    text = str(info.value)
    assert "Incorrect API key provided: [redacted]" in text and KEY not in text
    assert KEY[:12] not in text and KEY[-8:] not in text


def test_a_key_echoed_in_a_reply_is_redacted_before_it_is_stored(tmp_path):
    def echo(i, body, headers):
        return chat_reply(content="your key is " + headers.get("authorization", ""))
    with ScriptedServer(echo) as server:
        result = chat(model(server.url, cache=True, cache_path=tmp_path / "cache.sqlite"))
    assert result.message.content == "your key is Bearer [redacted]"
    assert KEY.encode() not in (tmp_path / "cache.sqlite").read_bytes()


def test_redaction_masks_fragments_and_leaves_other_text_alone():
    from planprobe.models.redact import register_secret

    register_secret(KEY)
    assert redact(f"a {KEY} b") == "a [redacted] b"
    assert redact(f"x{KEY[5:20]}y") == "x[redacted]y"
    assert redact("sk-test") == "sk-test" and redact("plain words") == "plain words"


def test_one_model_over_several_event_loops_and_closed_from_another():
    """A sweep's points and dissect's cases each run their own event loop with one model:
    every loop gets working connections, and closing it afterwards is not an error."""
    with ScriptedServer(always(lambda: chat_reply("hi"))) as server:
        m = model(server.url)
        for _ in range(3):
            reply = asyncio.run(m.chat([Message(role="user", content="x")], None, ChatParams()))
            assert reply.message.content == "hi"
        asyncio.run(m.aclose())  # the clients' loop has ended: nothing to close, no "Event loop is closed"
        one_loop = model(server.url)

        async def both() -> None:
            await one_loop.chat([Message(role="user", content="x")], None, ChatParams())
            await one_loop.aclose()

        asyncio.run(both())
    assert len(server.requests) == 4


def test_release_closes_a_loops_connections_in_it_and_the_next_loop_opens_new_ones(caplog):
    """A study runs one model over many loops (runs, detectors, re-rollouts): ``release`` at the end
    of each loop closes its connections there, so none is closed later from another loop (which
    fails: "Event loop is closed"); the model keeps answering, and closing it afterwards is fine."""
    import gc
    import logging

    caplog.set_level(logging.ERROR, logger="asyncio")
    with ScriptedServer(always(lambda: chat_reply("hi"))) as server:
        m = model(server.url)
        asyncio.run(m.release())  # a loop that never called the model: nothing to release

        async def one_loop() -> str | None:
            try:
                reply = await m.chat([Message(role="user", content="x")], None, ChatParams())
                return reply.message.content
            finally:
                await m.release()

        assert [asyncio.run(one_loop()) for _ in range(4)] == ["hi"] * 4
        asyncio.run(m.aclose())
        gc.collect()
    assert len(server.requests) == 4
    assert "Event loop is closed" not in caplog.text and "never retrieved" not in caplog.text
