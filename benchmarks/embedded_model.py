"""The embedded model on this machine: load time, tokens/s, cases per minute.

    python benchmarks/embedded_model.py [--cases 6]

Runs the function-calling agent with the embedded SmolLM2-135M (cache off) on a
small basic suite (2-3 actions, at most 8 iterations per case), as the demo does.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, rss_mib  # noqa: E402

from planprobe import ConstraintSuiteOptions, Limits, generate_cases  # noqa: E402
from planprobe.agents.tools_agent import ToolsAgent  # noqa: E402
from planprobe.models.base import ChatParams  # noqa: E402
from planprobe.models.local import LocalModel  # noqa: E402
from planprobe.runner.engine import RunConfig, open_run, run_pending  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=6)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()
    print(f"machine: {machine()}")
    before = rss_mib()
    t0 = time.perf_counter()
    model = LocalModel(threads=args.threads)
    load = time.perf_counter() - t0
    print(f"model {model.name}: loaded in {load:.2f} s, +{rss_mib() - before:.0f} MiB resident")

    cases = list(generate_cases(ConstraintSuiteOptions(actions=(2, 3), n=args.cases, seed=0)))
    config = RunConfig(agent="tools", model=model.name, concurrency=1, limits=Limits(max_iterations=8))
    usage = {"calls": 0, "prompt": 0, "completion": 0}

    def on_result(trace, verdict):
        usage["calls"] += trace.usage.model_calls
        usage["prompt"] += trace.usage.prompt_tokens
        usage["completion"] += trace.usage.completion_tokens

    with tempfile.TemporaryDirectory() as tmp:
        store = open_run(Path(tmp) / "run", cases, config)
        t0 = time.perf_counter()
        asyncio.run(run_pending(store, ToolsAgent(model, ChatParams(max_tokens=256)), config, on_result))
        dt = time.perf_counter() - t0
        store.close()

    # raw decoding speed, without the agent: one long prompt, one long free-text reply
    prompt = cases[0].task * 3
    t0 = time.perf_counter()
    out = model.llm.create_completion(prompt, max_tokens=1, temperature=0)
    t_prompt = time.perf_counter() - t0
    model.llm.reset()
    t0 = time.perf_counter()
    out = model.llm.create_completion(prompt, max_tokens=128, temperature=0)
    t_all = time.perf_counter() - t0
    gen = out["usage"]["completion_tokens"]
    print(f"prompt processing: {out['usage']['prompt_tokens'] / t_prompt:,.0f} tokens/s; "
          f"generation: {gen / max(1e-9, t_all - t_prompt):,.0f} tokens/s ({gen} tokens)")
    print(f"agent run: {len(cases)} cases, {usage['calls']} model calls in {dt:.1f} s -> "
          f"{60 * len(cases) / dt:.1f} cases/minute, {dt / max(1, usage['calls']):.2f} s per call, "
          f"{usage['prompt'] / max(1, usage['calls']):.0f} prompt + "
          f"{usage['completion'] / max(1, usage['calls']):.0f} completion tokens per call")
    asyncio.run(model.aclose())


if __name__ == "__main__":
    main()
