"""A proxy in front of the real server injects service faults: 429 with Retry-After,
500, truncated JSON and dropped connections. The run must finish, nothing may
crash, every fault must be handled as infrastructure, and the cases it did not
break must come out exactly as without it.

The server's replies are remembered by request body and shared between the runs: the
real model answers every request the first time it is sent, and a request sent again
gets the same answer. llama.cpp reuses the key-value cache of the previous prompt, so
the same prompt evaluated after a different one can round differently and change a
greedy token; without the memory the comparison would test the model's rounding, not
the harness. With it, the check is stronger: the faulty runs must send exactly the
requests of the clean run (every request a remembered one) and get its results.

Nothing here races the clock: the request deadline and the cases' time limit are
out of reach, so a loaded machine only makes the test slower. The fault that needs a
deadline — a server that hangs or drips — is injected by a scripted server in
test_service_failures.py, where the hang outlasts any deadline and no real reply
competes with it (under load a real reply can take as long as a deadline)."""

from __future__ import annotations

import http.client
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse

from planprobe import ConstraintSuiteOptions, Limits, generate_cases, run_suite
from planprobe.agents.tools_agent import ToolsAgent
from planprobe.models import ModelOptions, RetryPolicy, make_model
from planprobe.models.base import ChatParams
from planprobe.runner.store import RunStore

FAULTS = ["429", "500", "truncated", "drop"]


class FaultProxy:
    """Forwards to ``upstream``; request k is faulted when k % period < len(FAULTS),
    cycling through the faults, so the fault rate is len(FAULTS)/period."""

    def __init__(self, upstream: str, memo: dict, period: int = 8, inject: bool = True):
        up = urlparse(upstream)
        self.host, self.port = up.hostname, up.port
        self.period = period
        self.inject = inject
        self.memo = memo  # (path, body) -> the server's reply, shared between runs
        self.new_requests = 0  # requests this proxy sent that no run had sent before
        self.count = 0
        self.injected: dict[str, int] = {f: 0 for f in FAULTS}
        self.lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                self._forward(b"")

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with proxy.lock:
                    k = proxy.count
                    proxy.count += 1
                    slot = k % proxy.period
                    fault = FAULTS[slot] if proxy.inject and slot < len(FAULTS) else None
                    if fault:
                        proxy.injected[fault] += 1
                if fault == "429":
                    return self._reply(429, b'{"error": "slow down"}', {"Retry-After": "1"})
                if fault == "500":
                    return self._reply(500, b'{"error": "boom"}')
                if fault == "drop":
                    self.close_connection = True
                    self.connection.close()
                    return
                status, data, ctype = proxy.upstream(self.command, self.path, body, self.headers)
                if fault == "truncated":
                    data = data[: len(data) // 2]
                self._reply(status, data, {"Content-Type": ctype})

            def _forward(self, body):
                status, data, ctype = proxy.upstream(self.command, self.path, body, self.headers)
                self._reply(status, data, {"Content-Type": ctype})

            def _reply(self, status, data, headers=None):
                try:
                    self.send_response(status)
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client gave up first

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def upstream(self, method, path, body, headers):
        if method == "POST":
            with self.lock:
                known = self.memo.get((path, body))
            if known is None:
                known = self._ask(method, path, body)
                with self.lock:
                    self.new_requests += 1
                    self.memo.setdefault((path, body), known)
                    known = self.memo[(path, body)]
            return known
        return self._ask(method, path, body)

    def _ask(self, method, path, body):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=UNREACHED)
        try:
            conn.request(method, path, body=body, headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            return resp.status, resp.read(), resp.getheader("Content-Type", "application/json")
        finally:
            conn.close()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


PARAMS = ChatParams(max_tokens=32)  # short replies: on a loaded machine every token of the real model counts


UNREACHED = 10 ** 6  # seconds: a deadline and a time limit no loaded machine reaches


def _run(url, out, cases, retry):
    model = make_model("openai:smollm2", ModelOptions(base_url=url, tool_result_role="user", cache=False,
                                                      request_timeout=UNREACHED, retry=retry))
    # one case at a time; neither the request deadline nor the cases' time limit is ever reached
    run_suite(cases, ToolsAgent(model, PARAMS), out, limits=Limits(max_iterations=3, timeout_s=UNREACHED), concurrency=1)
    return {t.case_id: (t, v) for t, v in RunStore(out).results()}


def _plan(trace):
    return [(c.name, c.arguments) for c in trace.tool_calls]


def test_service_faults_are_infrastructure_and_leave_other_cases_unchanged(llama_server, tmp_path):
    # the first call alone meets all four faults (requests 0-3) before its fifth attempt passes. Two cases
    # (the real model's replies are what this test costs): each must come out as in the clean run
    cases = list(generate_cases(ConstraintSuiteOptions(actions=(2, 2), n=2, seed=12)))
    memo: dict = {}
    with FaultProxy(llama_server, memo, inject=False) as proxy:
        clean = _run(proxy.url, tmp_path / "clean", cases, RetryPolicy(max_total_s=UNREACHED))
    assert proxy.new_requests > 0 and sum(proxy.injected.values()) == 0

    with FaultProxy(llama_server, memo) as proxy:  # faults at 4 in 8 requests; retries recover every call
        faulty = _run(proxy.url, tmp_path / "faulty", cases, RetryPolicy(max_attempts=8, base_s=0.05, cap_s=0.2,
                                                                          max_total_s=UNREACHED))
    assert all(n > 0 for n in proxy.injected.values()), proxy.injected
    assert proxy.new_requests == 0  # the harness sent exactly the clean run's requests
    retries = [e for t, _ in faulty.values() for e in t.errors if e.kind == "infra_retry"]
    assert len(retries) >= sum(proxy.injected.values()) - 1
    for cid, (trace, verdict) in faulty.items():
        assert trace.status.value != "agent_error"
        assert not verdict.infra
        assert _plan(trace) == _plan(clean[cid][0]) and verdict.errors == clean[cid][1].errors

    with FaultProxy(llama_server, memo, period=2) as proxy:  # faults at 1 in 2 requests and no retries: some calls fail
        broken = _run(proxy.url, tmp_path / "broken", cases, RetryPolicy(max_attempts=1))
    assert proxy.new_requests == 0
    statuses = {t.status.value for t, _ in broken.values()}
    assert "infra_error" in statuses and "agent_error" not in statuses
    summary = RunStore(tmp_path / "broken")
    from planprobe.analysis.summary import summarize

    s = summarize(summary)
    assert s.infra == sum(1 for t, _ in broken.values() if t.status.value == "infra_error")
    assert "infra" not in s.overall.errors  # never counted as a planning failure
    for cid, (trace, verdict) in broken.items():
        if verdict.infra:
            assert verdict.errors == ["infra"] and "failed after 1 attempt" in trace.errors[-1].message
        else:
            assert _plan(trace) == _plan(clean[cid][0])
