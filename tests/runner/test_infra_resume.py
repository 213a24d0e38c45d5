"""`planprobe run` against a real misbehaving server on loopback: infra results are
re-run on resume (bounded, recorded), a run that ends with them exits 3 naming the
first cause, and a wrong endpoint stops the run at once with one line."""

from __future__ import annotations

import subprocess

import pytest

from helpers import cases, planprobe_cmd, subprocess_env
from http_faults import Reply, ScriptedServer, always, chat_reply, mentions
from planprobe.runner.store import RunStore
from planprobe.suites.io import write_suite

KEY = "sk-live-0123456789abcdefghijklmnopqrstuv"


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    path = tmp_path_factory.mktemp("suite") / "suite.jsonl"
    suite_cases = cases(4, seed=5, actions=(2, 2))
    write_suite(suite_cases, path)
    return path, suite_cases


def run(suite_path, out, url, *extra):
    """One `planprobe run` with the tools agent, one case at a time, one request per case."""
    args = ["run", str(suite_path), "--out", str(out), "--model", "openai:m", "--base-url", url, "--no-cache",
            "--retries", "1", "--concurrency", "1", "--max-tokens", "8", "-q", *extra]
    return subprocess.run(planprobe_cmd() + args, capture_output=True, text=True, timeout=300,
                          env=subprocess_env(OPENAI_API_KEY=KEY))


def stored(out):
    store = RunStore(out)
    try:
        return {(t.case_id, t.trial): t for t, _ in store.results()}
    finally:
        store.close()


def test_infra_results_are_rerun_on_resume_and_the_run_exits_3_until_they_pass(suite, tmp_path):
    suite_path, _suite_cases = suite
    state = {"down": True}

    def outage(i, body, headers):  # two cases answered, then the service fails
        return Reply(503, {"error": "down"}) if i >= 2 and state["down"] else chat_reply()

    with ScriptedServer(outage) as server:
        first = run(suite_path, tmp_path / "run", server.url)
        assert first.returncode == 3, first.stderr
        line = first.stderr.strip().splitlines()[-1]
        assert line.startswith("error: 2 result(s) failed for infrastructure reasons")
        assert f"first cause: HTTP 503 from {server.url}/chat/completions" in line
        assert "re-run the same command to retry 2 of them" in line
        assert sum(t.status.value == "infra_error" for t in stored(tmp_path / "run").values()) == 2
        state["down"] = False  # the service is back
        before = len(server.requests)
        second = run(suite_path, tmp_path / "run", server.url)
        assert second.returncode == 0, second.stderr
        assert len(server.requests) - before == 2  # only the two infra cases ran again
    traces = stored(tmp_path / "run")
    assert len(traces) == 4 and all(t.status.value == "completed" for t in traces.values())
    retried = [t for t in traces.values() if "attempt" in t.meta]
    assert len(retried) == 2 and all(t.meta["attempt"] == 2 for t in retried)
    assert all("HTTP 503" in t.meta["earlier_infra"][0] for t in retried)


def test_attempts_per_case_are_bounded_and_counted_across_resumes(suite, tmp_path):
    suite_path, suite_cases = suite
    poisoned = suite_cases[1].task  # the server fails every request about this case

    def script(i, body, headers):
        return Reply(500, {"error": "boom"}) if mentions(body, poisoned) else chat_reply()

    with ScriptedServer(script) as server:
        codes, calls = [], []
        for _ in range(3):
            before = len(server.requests)
            r = run(suite_path, tmp_path / "run", server.url, "--infra-attempts", "2")
            codes.append(r.returncode)
            calls.append(len(server.requests) - before)
    assert codes == [3, 3, 3]
    assert calls == [4, 1, 0]  # the third run has nothing left to try
    assert "each has had its 2 attempts; raise --infra-attempts" in r.stderr
    [infra] = [t for t in stored(tmp_path / "run").values() if t.status.value == "infra_error"]
    assert infra.case_id == suite_cases[1].id and infra.meta["attempt"] == 2


def _one_line_error(r, code=3):
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert r.returncode == code and len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert "Traceback" not in r.stderr and KEY not in r.stderr + r.stdout
    return lines[0]


def test_a_wrong_endpoint_stops_the_run_at_once_with_one_line_and_records_nothing(suite, tmp_path):
    suite_path, _ = suite

    def echo_key(i, body, headers):
        return Reply(401, {"error": {"message": f"invalid key {headers.get('authorization', '')}"}})

    with ScriptedServer(echo_key) as server:
        line = _one_line_error(run(suite_path, tmp_path / "a", server.url, "--concurrency", "4"))
    assert f"HTTP 401 from {server.url}/chat/completions" in line and "[redacted]" in line
    assert len(server.requests) <= 4  # the cases already in flight, nothing more
    assert stored(tmp_path / "a") == {}  # nothing recorded: resuming runs every case

    with ScriptedServer(always(lambda: Reply(404, {"error": "model not found"}))) as server:
        line = _one_line_error(run(suite_path, tmp_path / "b", server.url))
    assert "HTTP 404" in line and "check --base-url and the model name" in line

    with socket_closed() as url:
        line = _one_line_error(run(suite_path, tmp_path / "c", url))
    assert f"cannot reach the model service at {url}: connection refused" in line

    line = _one_line_error(run(suite_path, tmp_path / "d", "localhost:8000"), code=2)
    assert "--base-url" in line and "not an http(s) URL" in line


class socket_closed:
    """A loopback URL where nothing listens."""

    def __enter__(self):
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return f"http://127.0.0.1:{s.getsockname()[1]}/v1"

    def __exit__(self, *exc):
        return False
