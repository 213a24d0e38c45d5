"""Peak memory of a 10,000-case run: results stream to the store as cases finish.

    python benchmarks/run_memory.py [--cases 10000] [--concurrency 16]

The function-calling agent runs against the template endpoint
(benchmarks/instant_endpoint.py, no latency), through the whole stack; resident
memory is sampled every tenth of the run.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, rss_mib  # noqa: E402
from harness_overhead import start_endpoint  # noqa: E402

from planprobe import ConstraintSuiteOptions, Limits, generate_cases  # noqa: E402
from planprobe.agents.tools_agent import ToolsAgent  # noqa: E402
from planprobe.models import ModelOptions, make_model  # noqa: E402
from planprobe.runner.engine import RunConfig, open_run, run_pending  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--concurrency", type=int, default=16)
    args = ap.parse_args()
    print(f"machine: {machine()}")
    start = rss_mib()
    cases = list(generate_cases(ConstraintSuiteOptions(actions=(3, 5), n=args.cases, seed=3)))
    loaded = rss_mib()
    proc, url = start_endpoint(0.0)
    samples = []
    done = 0
    step = max(1, args.cases // 10)

    def on_result(trace, verdict):
        nonlocal done
        done += 1
        if done % step == 0:
            samples.append((done, rss_mib()))

    try:
        model = make_model("openai:bench", ModelOptions(base_url=url, cache=False))
        config = RunConfig(agent="tools", model=model.name, concurrency=args.concurrency, limits=Limits())
        with tempfile.TemporaryDirectory() as tmp:
            store = open_run(Path(tmp) / "run", cases, config)

            async def go():
                try:
                    await run_pending(store, ToolsAgent(model), config, on_result)
                finally:
                    await model.aclose()

            t0 = time.perf_counter()
            asyncio.run(go())
            dt = time.perf_counter() - t0
            size = (Path(tmp) / "run" / "run.sqlite").stat().st_size
            store.close()
    finally:
        proc.terminate()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.cases:,} cases in {dt:.1f} s ({args.cases / dt:,.0f} cases/s), run.sqlite {size / 2**20:.0f} MiB")
    print(f"RSS: {start:.1f} MiB at start, {loaded:.1f} MiB with the suite loaded, peak {peak:.1f} MiB")
    print("| cases done | RSS MiB |")
    print("|---|---|")
    for n, rss in samples:
        print(f"| {n:,} | {rss:.1f} |")


if __name__ == "__main__":
    main()
