"""Per-call overhead of the MCP path and the recording proxy on loopback (issue #17).

MCP: one case served by a real `planprobe serve` subprocess (HTTP and stdio); the SDK's client
calls one of its tools N times (each call runs on the case's environment and is recorded).
Peer, in the same run: the same call on the same environment in process (`env.call`).

Proxy: `planprobe serve --proxy-upstream` in front of a minimal OpenAI-compatible upstream on
loopback; N chat completions through the proxy (each recorded into the served case) against N
sent straight to the upstream, interleaved in the same run.

    python benchmarks/mcp_overhead.py --calls 300 --reps 3
    python benchmarks/mcp_overhead.py --calls 300 --reps 3 --nagle   # the upstream as it was (45 ms per call)
    python benchmarks/mcp_overhead.py --calls 100 --reps 1 --llama   # + the proxy before llama.cpp's server

With ``--llama`` the proxy is also put in front of llama.cpp's OpenAI-compatible server with the
embedded model (started on loopback, stopped by PID): ``GET /models`` and one-token chat
completions, direct and through the proxy, interleaved.
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
from planprobe.suites.constraints.generator import (
    ConstraintSuiteOptions,
    generate_cases,
)
from planprobe.suites.io import write_suite
from planprobe.suites.registry import get_family

REPLY = json.dumps({"id": "x", "object": "chat.completion", "model": "m", "choices": [
    {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
    "usage": {"prompt_tokens": 10, "completion_tokens": 2}}).encode()


class Upstream(BaseHTTPRequestHandler):
    """A minimal OpenAI-compatible upstream. It writes the status line and headers, then the body:
    two small writes on a kept-alive connection. With Nagle's algorithm on (http.server's default)
    the body waits for the client to ACK the headers, and the client delays that ACK by ~40 ms
    (Linux' minimum): every call cost 45 ms more than it should, direct or proxied. Real servers
    (uvicorn under llama_cpp.server, any asyncio server) set TCP_NODELAY; so does this one now.
    ``--nagle`` keeps the old behaviour to show the effect."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(REPLY)))
        self.end_headers()
        self.wfile.write(REPLY)


class NagleUpstream(Upstream):
    disable_nagle_algorithm = False


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


CHAT = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


async def proxy_calls(proxy: str, upstream: str, n: int, body: dict | None = CHAT) -> tuple[list[float], list[float]]:
    """n calls through the proxy and n straight to the upstream, interleaved: chat completions
    with ``body``, or ``GET /models`` when body is None."""
    import httpx

    async def one(http, url: str) -> float:
        t = time.perf_counter()
        if body is None:
            r = await http.get(url + "/models")
        else:
            r = await http.post(url + "/chat/completions", json=body)
        assert r.status_code == 200, r.text
        return time.perf_counter() - t

    via, direct = [], []
    async with httpx.AsyncClient(timeout=600) as http:
        for url in (proxy, upstream):  # warm-up both
            await one(http, url)
        for _ in range(n):
            via.append(await one(http, proxy))
            direct.append(await one(http, upstream))
    return via, direct


async def alone_calls(upstream: str, n: int) -> list[float]:
    """Straight to the upstream, one after another (not interleaved with proxied calls: that
    interleaving hid the upstream's own 45 ms in the first runs)."""
    import httpx

    out = []
    async with httpx.AsyncClient() as http:
        await http.post(upstream + "/chat/completions", json=CHAT)
        for _ in range(n):
            t = time.perf_counter()
            await http.post(upstream + "/chat/completions", json=CHAT)
            out.append(time.perf_counter() - t)
    return out


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
    ap.add_argument("--nagle", action="store_true", help="the upstream without TCP_NODELAY (http.server's default)")
    ap.add_argument("--llama", action="store_true", help="also the proxy before llama.cpp's server")
    a = ap.parse_args()
    case, name, args = case_and_call()
    tmp = Path(tempfile.mkdtemp())
    suite = tmp / "suite.jsonl"
    write_suite([case], suite)
    upstream = ThreadingHTTPServer(("127.0.0.1", 0), NagleUpstream if a.nagle else Upstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    up_url = f"http://127.0.0.1:{upstream.server_address[1]}/v1"
    from mcp.client.stdio import StdioServerParameters

    rows: dict[str, list[float]] = {k: [] for k in ("direct env.call", "MCP HTTP", "MCP stdio", "upstream direct",
                                                    "upstream alone", "through proxy")}
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
        rows["upstream alone"] += asyncio.run(alone_calls(up_url, a.calls))
    upstream.shutdown()
    if a.llama:
        rows.update(llama_rows(suite, tmp, a.calls))
    for k, xs in rows.items():
        print(f"{k:24s} {len(xs):5d} calls  {ms(xs)}")
    d = statistics.median(rows["direct env.call"])
    for k in ("MCP HTTP", "MCP stdio"):
        m = statistics.median(rows[k])
        print(f"{k}: overhead per tool call {1000 * (m - d):.2f} ms (median), {m / d:.0f}x the in-process call")
    for via, direct in (("through proxy", "upstream direct"), ("llama /models via proxy", "llama /models direct"),
                        ("llama chat via proxy", "llama chat direct")):
        if via in rows:
            p, u = statistics.median(rows[via]), statistics.median(rows[direct])
            print(f"{via}: overhead per model call {1000 * (p - u):.2f} ms (median), {p / u:.2f}x {direct}")


def llama_rows(suite: Path, tmp: Path, n: int) -> dict[str, list[float]]:
    """The proxy in front of llama.cpp's server with the embedded model (a real upstream)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from llama_server import require_local_model, running_llama_server

    rows: dict[str, list[float]] = {}
    (tmp / "llama").mkdir()
    with running_llama_server(require_local_model(), tmp / "llama") as url:
        proc, endpoint, proxy = start_serve(suite, tmp / "proxy-llama", "--proxy-upstream", url)
        try:
            via, direct = asyncio.run(proxy_calls(proxy, url, n, None))
            rows["llama /models via proxy"], rows["llama /models direct"] = via, direct
            body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 1, "temperature": 0,
                    "seed": 0}
            via, direct = asyncio.run(proxy_calls(proxy, url, n, body))
            rows["llama chat via proxy"], rows["llama chat direct"] = via, direct
            asyncio.run(finish(endpoint))
        finally:
            proc.wait(timeout=600)
    return rows


if __name__ == "__main__":
    main()
