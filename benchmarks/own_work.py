"""planprobe's own work per case, apart from the model call (issue #30).

    PYTHONPATH=src python benchmarks/own_work.py [--cases 300] [--reps 5]

One process, concurrency 1, the function-calling agent on a constraints suite (3 actions,
seed 1), the whole run path (``run_pending``: case read from the store, environment, tool
execution, oracle, SQLite store), two model calls per case, driven by two models that give the
same replies as ``benchmarks/instant_endpoint.py``:

* in process: a model object answering at once (no HTTP, no JSON) — what is left is
  planprobe's own work: case set-up, tool execution, judging, store, the agent's loop;
* over HTTP: ``openai:`` against the endpoint in its own process (planprobe's HTTP client,
  request and reply JSON, loopback) — the difference is the model call's cost on this side.

Per case = marginal CPU time of this process ((N cases − N/10 cases) / (0.9 N), median of
``--reps``), so the run's fixed costs (opening the store, the first imports) drop out.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine
from harness_overhead import cpu_seconds, start_endpoint

from planprobe import ConstraintSuiteOptions, Limits, generate_cases
from planprobe.agents.tools_agent import ToolsAgent
from planprobe.models import ModelOptions, make_model
from planprobe.models.base import ChatResult, tool_call
from planprobe.runner.engine import RunConfig, open_run, run_pending
from planprobe.schema import Message, Usage


class InstantModel:
    """The endpoint's replies, in process: the first offered tool while the conversation has
    fewer than 4 messages, then a final answer."""

    name = "instant"

    async def chat(self, messages: list[Message], tools: Any, params: Any) -> ChatResult:
        usage = Usage(model_calls=1, prompt_tokens=100, completion_tokens=10)
        if tools and len(messages) < 4:
            call = tool_call(f"call_{len(messages)}", tools[0].name, "{}")
            return ChatResult(Message(role="assistant", content=None, tool_calls=[call]), usage, "tool_calls")
        return ChatResult(Message(role="assistant", content="All tasks are done."), usage, "stop")

    async def aclose(self) -> None:
        pass


def cpu_for(model: Any, cases: list) -> float:
    config = RunConfig(agent="tools", model=model.name, concurrency=1, limits=Limits())
    with tempfile.TemporaryDirectory() as tmp:
        store = open_run(Path(tmp) / "run", cases, config)
        before = cpu_seconds()
        asyncio.run(run_pending(store, ToolsAgent(model), config))
        spent = cpu_seconds() - before
        store.close()
    return spent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    cases = list(generate_cases(ConstraintSuiteOptions(actions=(3, 3), n=args.cases, seed=1)))
    small = cases[: max(1, args.cases // 10)]
    proc, url = start_endpoint(0.0)
    per: dict[str, list[float]] = {"in process": [], "over HTTP": []}
    try:
        http = make_model("openai:bench", ModelOptions(base_url=url, cache=False))
        models = {"in process": InstantModel(), "over HTTP": http}
        for model in models.values():
            cpu_for(model, small)  # warm up
        for _ in range(args.reps):
            for way, model in models.items():
                big, little = cpu_for(model, cases), cpu_for(model, small)
                per[way].append((big - little) / (len(cases) - len(small)))
    finally:
        proc.terminate()
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f}; {args.cases} cases, median of {args.reps}")
    print("| model | CPU per case (2 model calls) |")
    print("|---|---|")
    mids = {way: statistics.median(v) for way, v in per.items()}
    for way, mid in mids.items():
        print(f"| {way} | {1000 * mid:.2f} ms |")
    print(f"| the model call's share over HTTP | {1000 * (mids['over HTTP'] - mids['in process']):.2f} ms |")


if __name__ == "__main__":
    main()
