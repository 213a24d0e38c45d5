"""Throughput at high concurrency against a slow endpoint: planprobe against the ceiling of a
bare client on the same machine in the same sitting (issue #30).

    PYTHONPATH=src python benchmarks/slow_endpoint_throughput.py [--concurrency 64] [--delay 0.2] [--reps 3]

``benchmarks/instant_endpoint.py`` answers each call after ``--delay`` seconds. Ideal throughput
is C / (calls per case × delay) cases/s (2 calls per case: 160 cases/s at C = 64, 0.2 s). Two
ways, interleaved, ``--reps`` each, in this one process (one core's worth of event loop):

* planprobe: the function-calling agent through the whole run path (``run_pending``: agent,
  environment, oracle, SQLite store; cache off), 12 × C cases;
* peer: C asyncio tasks posting the same two requests per case with planprobe's HTTP client
  (``models/http.py``) and nothing else — what any Python harness could reach here, so the
  machine's own load (other processes, scheduling delays) shows as the peer's distance from
  the ideal, and planprobe's overhead as planprobe / peer.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine
from harness_overhead import cpu_seconds, run, start_endpoint

from planprobe import ConstraintSuiteOptions, generate_cases
from planprobe.models.http import Pool


def peer(url: str, cases: int, concurrency: int) -> float:
    """Seconds for ``cases`` cases of two calls each, ``concurrency`` at a time, bare client."""
    tool = {"type": "function", "function": {"name": "do", "parameters": {"type": "object", "properties": {}}}}
    first = {"model": "bench", "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
             "tools": [tool]}
    second = dict(first, messages=[*first["messages"], {"role": "assistant", "content": "", "tool_calls": []},
                                   {"role": "tool", "content": "ok", "tool_call_id": "c"}])

    async def go() -> None:
        pool = Pool(url + "/chat/completions", "none")
        todo = iter(range(cases))

        async def worker() -> None:
            for _ in todo:
                json.loads(await pool.post_json(first))
                json.loads(await pool.post_json(second))

        try:
            await asyncio.gather(*(worker() for _ in range(concurrency)))
        finally:
            await pool.close()

    t0 = time.perf_counter()
    asyncio.run(go())
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--delay", type=float, default=0.2)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    c = args.concurrency
    n = 12 * c
    cases = list(generate_cases(ConstraintSuiteOptions(actions=(3, 3), n=n, seed=1)))
    ideal = c / (2 * args.delay)
    proc, url = start_endpoint(args.delay)
    ours: list[float] = []
    bare: list[float] = []
    cpu: list[float] = []
    try:
        run(url, cases[:c], c)  # warm up
        for _ in range(args.reps):
            before = cpu_seconds()
            dt, calls = run(url, cases, c)
            cpu.append((cpu_seconds() - before) / n)
            assert calls == 2 * n, calls
            ours.append(n / dt)
            bare.append(n / peer(url, n, c))
    finally:
        proc.terminate()
    o, b = statistics.median(ours), statistics.median(bare)
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f}; C = {c}, delay {args.delay:g} s, "
          f"{n} cases, median of {args.reps}")
    print("| way | cases/s | of ideal | planprobe CPU per case |")
    print("|---|---|---|---|")
    print(f"| ideal C / (2 × delay) | {ideal:.1f} | 1.00 | |")
    print(f"| peer: bare client | {b:.1f} | {b / ideal:.2f} | |")
    print(f"| planprobe | {o:.1f} | {o / ideal:.2f} | {1000 * statistics.median(cpu):.2f} ms |")
    print(f"| planprobe / peer | {o / b:.2f} | | |")


if __name__ == "__main__":
    main()
