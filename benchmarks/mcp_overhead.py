"""Per-call overhead of the MCP path and the recording proxy on loopback (issue #17).

MCP: one case served by a real `planprobe serve` subprocess (HTTP and stdio); the SDK's client
calls one of its tools N times (each call runs on the case's environment and is recorded).
Peer, in the same run: the same call on the same environment in process (`env.call`).

Proxy: `planprobe serve --proxy-upstream` in front of a minimal OpenAI-compatible upstream on
loopback; N chat completions through the proxy (each recorded into the served case) against N
sent straight to the upstream, interleaved in the same run.

    python benchmarks/mcp_overhead.py --calls 300 --reps 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from planprobe.environment import Limits
from planprobe.suites.constraints.generator import ConstraintSuiteOptions, generate_cases
from planprobe.suites.io import write_suite
from planprobe.suites.registry import get_family

REPLY = json.dumps({"id": "x", "object": "chat.completion", "model": "m", "choices": [
    {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
    "usage": {"prompt_tokens": 10, "completion_tokens": 2}}).encode()


class Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(REPLY)))
        self.end_headers()
        self.wfile.write(REPLY)


def case_and_call():
    case = next(iter(generate_cases(ConstraintSuiteOptions(actions=(3, 3), n=1, seed=1))))
    tool = case.tools[0]
    return case, tool.name, {"start_time": 1} if "start_time" in json.dumps(tool.parameters) else {}


def direct_calls(case, name, args, n) -> list[float]:
    env = get_family(case.family).environment(case, Limits(max_iterations=10 ** 9), 0, "bench")
    out = []
    for _ in range(n):
        t = time.perf_counter()
        env.call(name, args)
        out.append(time.perf_counter() - t)
    return out


def start_serve(suite: Path, out: Path, *args: str) -> tuple[subprocess.Popen, str, str]:
    proc = subprocess.Popen([sys.executable, "-m", "planprobe", "serve", str(suite), "--out", str(out), "-q",
                             "--max-iterations", str(10 ** 8), "--timeout", str(10 ** 6), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    endpoint = line.split(": ", 1)[1].split()[0]
    proxy = line.rsplit("model calls: ", 1)[1].strip() if "model calls:" in line else ""
    return proc, endpoint, proxy


async def mcp_calls(server, name, args, n) -> list[float]:
    from mcp.client import Client

    out = []
    async with Client(server) as client:
        await client.read_resource("planprobe://task")
        await client.call_tool(name, args)  # warm-up
        for _ in range(n):
            t = time.perf_counter()
            await client.call_tool(name, args)
            out.append(time.perf_counter() - t)
        await client.call_tool("finish", {})
    return out


async def proxy_calls(proxy: str, upstream: str, n: int) -> tuple[list[float], list[float]]:
    import httpx

    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    via, direct = [], []
    async with httpx.AsyncClient() as http:
        for url, into in ((proxy, via), (upstream, direct)):  # warm-up both
            await http.post(url + "/chat/completions", json=body)
        for _ in range(n):
            for url, into in ((proxy, via), (upstream, direct)):
                t = time.perf_counter()
                r = await http.post(url + "/chat/completions", json=body)
                into.append(time.perf_counter() - t)
                assert r.status_code == 200, r.text
    return via, direct


async def finish(endpoint: str) -> None:
    from mcp.client import Client

    async with Client(endpoint) as client:
        await client.list_tools()
        await client.call_tool("finish", {})


def ms(xs: list[float]) -> str:
    xs = sorted(xs)
    return f"median {1000 * statistics.median(xs):.2f} ms, p90 {1000 * xs[int(0.9 * len(xs))]:.2f} ms"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    case, name, args = case_and_call()
    tmp = Path(tempfile.mkdtemp())
    suite = tmp / "suite.jsonl"
    write_suite([case], suite)
    upstream = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    up_url = f"http://127.0.0.1:{upstream.server_address[1]}/v1"
    from mcp.client.stdio import StdioServerParameters

    rows: dict[str, list[float]] = {k: [] for k in ("direct env.call", "MCP HTTP", "MCP stdio", "upstream direct",
                                                    "through proxy")}
    for rep in range(a.reps):
        rows["direct env.call"] += direct_calls(case, name, args, a.calls)
        proc, endpoint, _ = start_serve(suite, tmp / f"http{rep}")
        try:
            rows["MCP HTTP"] += asyncio.run(mcp_calls(endpoint, name, args, a.calls))
        finally:
            proc.wait(timeout=600)
        params = StdioServerParameters(command=sys.executable, args=[
            "-m", "planprobe", "serve", str(suite), "--out", str(tmp / f"stdio{rep}"), "--transport", "stdio",
            "--max-iterations", str(10 ** 8), "--timeout", str(10 ** 6)], env=dict(os.environ))
        rows["MCP stdio"] += asyncio.run(mcp_calls(params, name, args, a.calls))
        proc, endpoint, proxy = start_serve(suite, tmp / f"proxy{rep}", "--proxy-upstream", up_url)
        try:
            via, direct = asyncio.run(proxy_calls(proxy, up_url, a.calls))
            rows["through proxy"] += via
            rows["upstream direct"] += direct

            asyncio.run(finish(endpoint))
        finally:
            proc.wait(timeout=600)
    upstream.shutdown()
    for k, xs in rows.items():
        print(f"{k:18s} {len(xs):5d} calls  {ms(xs)}")
    d = statistics.median(rows["direct env.call"])
    for k in ("MCP HTTP", "MCP stdio"):
        m = statistics.median(rows[k])
        print(f"{k}: overhead per tool call {1000 * (m - d):.2f} ms (median), {m / d:.0f}x the in-process call")
    p, u = statistics.median(rows["through proxy"]), statistics.median(rows["upstream direct"])
    print(f"proxy: overhead per model call {1000 * (p - u):.2f} ms (median), {p / u:.2f}x the direct call")


if __name__ == "__main__":
    main()
