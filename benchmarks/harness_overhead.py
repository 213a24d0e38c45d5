"""Harness overhead per model call, and throughput against concurrency.

    python benchmarks/harness_overhead.py [--cases 400] [--latency 0.1]

An endpoint in a separate process (benchmarks/instant_endpoint.py) answers every
call from a template: instantly for the overhead figure, after a fixed latency for
the scaling figure. Each case is a full episode of the function-calling agent
(2 calls: one tool call, one final answer) through the real stack: OpenAI client,
retry wrapper, agent, environment, oracle and the SQLite store. Cache off.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, start_endpoint  # noqa: E402

from planprobe import ConstraintSuiteOptions, Limits, generate_cases  # noqa: E402
from planprobe.agents.tools_agent import ToolsAgent  # noqa: E402
from planprobe.models import ModelOptions, make_model  # noqa: E402
from planprobe.runner.engine import RunConfig, open_run, run_pending  # noqa: E402

HERE = Path(__file__).resolve().parent


def cpu_seconds(pid=None) -> float:
    """User+system CPU time of a process (this one by default), from /proc."""
    with open(f"/proc/{pid or 'self'}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(url: str, cases, concurrency: int) -> tuple[float, int]:
    model = make_model("openai:bench", ModelOptions(base_url=url, cache=False))
    agent = ToolsAgent(model)
    config = RunConfig(agent="tools", model=model.name, concurrency=concurrency, limits=Limits())
    with tempfile.TemporaryDirectory() as tmp:
        store = open_run(Path(tmp) / "run", cases, config)
        calls = 0

        def on_result(trace, verdict):
            nonlocal calls
            calls += trace.usage.model_calls

        async def go():
            try:
                await run_pending(store, agent, config, on_result)
            finally:
                await model.aclose()

        t0 = time.perf_counter()
        asyncio.run(go())
        dt = time.perf_counter() - t0
        store.close()
    return dt, calls


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=400)
    ap.add_argument("--latency", type=float, default=0.1)
    args = ap.parse_args()
    cases = list(generate_cases(ConstraintSuiteOptions(actions=(3, 3), n=args.cases, seed=1)))
    print(f"machine: {machine()}")

    proc, url = start_endpoint(0.0)
    try:
        run(url, cases[:50], 1)  # warm up
        dt, calls = run(url, cases, 1)
        print(f"instant endpoint, concurrency 1: {calls} calls in {dt:.2f} s -> {1000 * dt / calls:.2f} ms per call "
              "(harness + client + loopback HTTP + endpoint)")
    finally:
        proc.terminate()

    proc, url = start_endpoint(args.latency)
    try:
        print(f"\nendpoint with {1000 * args.latency:.0f} ms latency: ideal throughput is C / latency")
        print("| concurrency C | calls/s | ideal calls/s | scaling vs C=1 | efficiency (scaling / C) | "
              "harness CPU ms/call | endpoint CPU ms/call |")
        print("|---|---|---|---|---|---|---|")
        base = None
        for c in (1, 4, 16, 64):
            n = min(len(cases), max(40, 12 * c))
            ours, theirs = cpu_seconds(), cpu_seconds(proc.pid)
            dt, calls = run(url, cases[:n], c)
            ours, theirs = cpu_seconds() - ours, cpu_seconds(proc.pid) - theirs
            rate = calls / dt
            base = base or rate
            print(f"| {c} | {rate:,.1f} | {c / args.latency:,.0f} | {rate / base:.2f}x | {rate / base / c:.2f} | "
                  f"{1000 * ours / calls:.2f} | {1000 * theirs / calls:.2f} |")
    finally:
        proc.terminate()


if __name__ == "__main__":
    main()
