"""SIGTERM to `serve` and `proxy` (a service manager's stop): each stops cleanly and says what
it stored; `serve` exits 143 with its finished results kept (a case in flight is served again
on resume), `proxy` exits 0 (stopping is how a proxy ends). No test depends on timing: each
waits for a line that says the process is ready (or a case is stored), then signals, then
waits for the exit with a generous timeout."""

from __future__ import annotations

import json
import signal
import subprocess

from serve_helpers import ServeProcess, rpc_reply, send_rpc, start_stdio, suite_cases

from helpers import planprobe_cmd, subprocess_env
from http_faults import ScriptedServer, chat_reply
from llama_server import stop
from planprobe.runner.store import RunStore
from planprobe.suites.io import write_suite

EXIT = 600  # seconds: a generous bound on the exit, never a measure of speed


def _stored(out):
    store = RunStore(out)
    try:
        return list(store.results())
    finally:
        store.close()


def test_sigterm_stops_an_http_server_and_its_proxy_saying_what_is_saved(tmp_path):
    write_suite(suite_cases(2), tmp_path / "suite.jsonl")
    with ScriptedServer(lambda i, b, h: chat_reply("hello")) as upstream:
        serve = ServeProcess(tmp_path / "suite.jsonl", tmp_path / "run", "--proxy-upstream", upstream.url)
        try:
            serve.endpoints()  # listening: the endpoint and its proxy are announced
            serve.proc.send_signal(signal.SIGTERM)
            serve.proc.wait(timeout=EXIT)
            code, _out, err = serve.finish()
        finally:
            serve.stop()
    assert code == 143, err
    assert "terminated (SIGTERM): 0/2 results are saved in" in err and "Traceback" not in err
    assert _stored(tmp_path / "run") == []


def test_sigterm_under_stdio_keeps_the_finished_case_and_exits_with_stdin_still_open(tmp_path):
    cases = suite_cases(3)
    write_suite(cases, tmp_path / "suite.jsonl")
    proc = start_stdio(tmp_path / "suite.jsonl", tmp_path / "run")
    try:
        send_rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "raw", "version": "0"}}})
        rpc_reply(proc, 1)
        send_rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        send_rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                     "params": {"name": "finish", "arguments": {"answer": "done"}}})
        assert "next case" in rpc_reply(proc, 2)["result"]["content"][0]["text"]
        # the next case's task is given once it is served, i.e. after the first case is stored
        send_rpc(proc, {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "planprobe://task"}})
        assert rpc_reply(proc, 3)["result"]["contents"][0]["text"] == cases[1].task
        proc.send_signal(signal.SIGTERM)  # the client keeps stdin open
        code = proc.wait(timeout=EXIT)
        err = proc.stderr.read()
    finally:
        stop(proc)
    assert code == 143, err
    assert "terminated (SIGTERM): 1/3 results are saved in" in err and "Traceback" not in err
    ((trace, _verdict),) = _stored(tmp_path / "run")
    assert trace.case_id == cases[0].id and trace.final_answer == "done"


def test_sigterm_stops_the_standalone_proxy_saying_what_it_recorded(tmp_path):
    import httpx

    record = tmp_path / "calls.jsonl"
    with ScriptedServer(lambda i, b, h: chat_reply("hello")) as upstream:
        proc = subprocess.Popen(planprobe_cmd() + ["proxy", "--upstream", upstream.url, "--record", str(record)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=subprocess_env())
        try:
            line = proc.stdout.readline()  # ready: it prints its URL once it listens
            assert line.startswith("proxy: http://127.0.0.1:"), proc.stderr.read() if not line else line
            base = line.split()[1]
            for _ in range(2):
                r = httpx.post(f"{base}/chat/completions", json={"model": "m", "messages": []})
                assert r.status_code == 200
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=EXIT)
            err = proc.stderr.read()
        finally:
            stop(proc)
    assert code == 0, err
    assert f"proxy stopped by SIGTERM: 2 model call(s) and 0 unreachable-upstream error(s) recorded to {record}" in err
    assert len([json.loads(x) for x in record.read_text().splitlines()]) == 2
