"""Shared by the serve/proxy/check tests: a scripted model that plays a fixed plan per case,
and a `planprobe serve` subprocess whose endpoint is read from its stdout."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from helpers import cases as make_cases
from helpers import planprobe_cmd, run_agent, subprocess_env
from http_faults import chat_reply
from llama_server import stop
from planprobe.agents import make_agent
from planprobe.models import ModelOptions, make_model
from planprobe.schema import Case

pytest.importorskip("mcp", reason="the mcp extra is not installed (pip install 'planprobe[mcp]')")


def plans_for(cases: list[Case]) -> dict[str, list[tuple[str, str]]]:
    """task -> the calls the scripted model makes: the oracle's plan for the first case, the
    same reversed for the second (an order error), an unknown tool first for the third."""
    plans: dict[str, list[tuple[str, str]]] = {}
    for i, case in enumerate(cases):
        calls = [(c.name, c.arguments) for c in run_agent(make_agent("oracle", 0), case).tool_calls]
        if i % 3 == 1:
            calls = calls[::-1]
        elif i % 3 == 2:
            calls = [("launch_rockets", "{}"), *calls]
        plans[case.task] = calls
    return plans


def plan_script(plans: dict[str, list[tuple[str, str]]]):
    """A ScriptedServer script: the n-th assistant turn of a case's conversation makes the
    n-th call of its plan, then says done (it reads the task from the first user message)."""

    def script(_index: int, body: dict, _headers: dict):
        messages = body.get("messages", [])
        task = next(m["content"] for m in messages if m.get("role") == "user")
        step = sum(1 for m in messages if m.get("role") == "assistant")
        plan = plans[task]
        if step < len(plan):
            name, args = plan[step]
            return chat_reply(None, tool_calls=[{"id": f"call_{step}", "type": "function",
                                                 "function": {"name": name, "arguments": args}}])
        return chat_reply("done")

    return script


def scripted_model(url: str):
    return make_model("openai:scripted", ModelOptions(base_url=url, cache=False, request_timeout=100000))


def suite_cases(n: int = 3) -> list[Case]:
    return make_cases(n=n, seed=7, actions=(3, 3))


class ServeProcess:
    """`planprobe serve` as a real subprocess; stopped by PID when the test ends."""

    def __init__(self, suite: Path, out: Path, *args: str):
        self.proc = subprocess.Popen(planprobe_cmd() + ["serve", str(suite), "--out", str(out), "-q", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=subprocess_env(PYTHONUNBUFFERED="1"))
        self.lines: list[str] = []
        self.proxies: list[str] = []  # the recording proxy's URL per endpoint (--proxy-upstream)

    def endpoints(self, n: int = 1) -> list[str]:
        """The MCP endpoints (and proxy URLs) printed at start: [(mcp, proxy or '')…]."""
        found = []
        while len(found) < n:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"serve exited: {self.proc.wait()} {self.proc.stderr.read()}")
            self.lines.append(line)
            if line.startswith("MCP endpoint"):
                found.append(line.split(": ", 1)[1].split()[0])
                if "model calls:" in line:
                    self.proxies.append(line.rsplit("model calls: ", 1)[1].strip())
        return found

    def finish(self) -> tuple[int, str, str]:
        # not communicate(): it reads the pipe's fd and would miss what readline() already buffered
        out = self.proc.stdout.read()
        err = self.proc.stderr.read()  # -q: a few lines at most, so stdout cannot block on a full stderr
        return self.proc.wait(), "".join(self.lines) + out, err

    def stop(self) -> None:
        stop(self.proc)


def tool_log(trace) -> list[tuple]:
    return [(c.name, json.loads(c.arguments) if c.args is not None else c.arguments, c.result, c.error)
            for c in trace.tool_calls]


# raw JSON-RPC over a stdio server's pipes (a client that sends exactly what a test needs)

def send_rpc(proc, message) -> None:
    proc.stdin.write((message if isinstance(message, str) else json.dumps(message)) + "\n")
    proc.stdin.flush()


def rpc_reply(proc, request_id):
    """The next JSON-RPC message answering ``request_id`` (notifications are skipped)."""
    while True:
        line = proc.stdout.readline()
        assert line, f"the server closed stdout: {proc.stderr.read() if proc.poll() is not None else ''}"
        message = json.loads(line)
        if message.get("id") == request_id:
            return message


def start_stdio(suite, out):
    return subprocess.Popen(planprobe_cmd() + ["serve", str(suite), "--out", str(out), "--transport", "stdio",
                                               "--timeout", "1000000"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=subprocess_env())
