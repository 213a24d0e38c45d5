"""Time and size of the HTML report for a 10,000-case run (target: < 10 s, < 10 MB).

    python benchmarks/report_size.py [--cases 10000]

Two runs of the same suite are made first: the function-calling agent against the
template endpoint (benchmarks/instant_endpoint.py; traces carry model messages)
and the random agent (most cases fail, so most rows carry verdict evidence and
highlights). Then ``planprobe report`` is timed as a user runs it — a fresh
process, imports included — on each run and on the two-run comparison.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine  # noqa: E402
from harness_overhead import start_endpoint  # noqa: E402

from planprobe import ConstraintSuiteOptions, Limits, generate_cases  # noqa: E402
from planprobe.agents import make_agent  # noqa: E402
from planprobe.agents.tools_agent import ToolsAgent  # noqa: E402
from planprobe.models import ModelOptions, make_model  # noqa: E402
from planprobe.runner.engine import RunConfig, open_run, run_pending  # noqa: E402


def make_runs(cases, root: Path) -> dict[str, Path]:
    proc, url = start_endpoint(0.0)
    try:
        model = make_model("openai:bench", ModelOptions(base_url=url, cache=False))
        runs = {}

        async def go():
            try:
                for name, agent, config in (
                    ("tools", ToolsAgent(model),
                     RunConfig(agent="tools", model=model.name, concurrency=16, limits=Limits())),
                    ("random", make_agent("random"), RunConfig(agent="random", concurrency=16, limits=Limits())),
                ):
                    store = open_run(root / name, cases, config)
                    await run_pending(store, agent, config, lambda t, v: None)
                    store.close()
                    runs[name] = root / name
            finally:
                await model.aclose()

        asyncio.run(go())
        return runs
    finally:
        proc.terminate()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=10_000)
    args = ap.parse_args()
    print(f"machine: {machine()}")
    cases = list(generate_cases(ConstraintSuiteOptions(actions=(3, 5), n=args.cases, seed=3)))
    with tempfile.TemporaryDirectory() as tmp:
        runs = make_runs(cases, Path(tmp))
        print("| report | results | time (s) | size (MB) |")
        print("|---|---|---|---|")
        for label, dirs in (("tools agent", [runs["tools"]]), ("random agent", [runs["random"]]),
                            ("comparison of both", [runs["tools"], runs["random"]])):
            out = Path(tmp) / "report.html"
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "planprobe", "report", *map(str, dirs), "-o", str(out)],
                           check=True, capture_output=True)
            dt = time.perf_counter() - t0
            print(f"| {label} | {args.cases * len(dirs):,} | {dt:.2f} | {out.stat().st_size / 1e6:.2f} |")


if __name__ == "__main__":
    main()
