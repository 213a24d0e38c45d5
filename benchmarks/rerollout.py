"""Re-rollout cost against a fresh episode, and what trace version 2's annotations weigh.

    python benchmarks/rerollout.py [--cases 300] [--reps 5]
    PYTHONPATH=OTHER/src python benchmarks/rerollout.py --fresh-only   # the same loop on another checkout

The function-calling agent with an in-process scripted model (one call per reply, in the
order the tools are listed, so nothing is waited for) runs constraint cases (|A| 6-8).
Measured in the same process, so the ratio holds on any machine:

* fresh episodes per second (agent, environment, oracle);
* re-rollouts per second from the middle step with guidance (replay with every result
  checked, context rebuilt, the rest run by the agent, oracle) — the ratio to fresh episodes
  is what a debugger's N re-rollouts cost against N new runs;
* the size of a trace's JSON with and without the who/when annotations (``agent``, ``step``,
  ``episode``), and parsing time of both.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine  # noqa: E402

from planprobe.agents.tools_agent import ToolsAgent  # noqa: E402
from planprobe.environment import Limits  # noqa: E402
from planprobe.models.base import ChatParams, ChatResult, tool_call  # noqa: E402
from planprobe.runner.engine import run_episode  # noqa: E402
from planprobe.schema import Message, Trace, Usage  # noqa: E402
from planprobe.suites.constraints.generator import ConstraintSuiteOptions, generate_cases  # noqa: E402
from planprobe.suites.registry import get_family  # noqa: E402


class ListedOrder:
    name = "scripted:listed-order"

    async def chat(self, messages, tools, params):
        done = sum(1 for m in messages if m.role == "assistant")
        if done < len(tools):
            return ChatResult(Message(role="assistant", content="",
                                      tool_calls=[tool_call(f"c{done}", tools[done].name, "{}")]), Usage(model_calls=1))
        return ChatResult(Message(role="assistant", content="done"), Usage(model_calls=1))

    async def aclose(self) -> None:
        pass


def repeat_cpu(fn, reps: int) -> tuple[float, float]:
    """(best, median) items per CPU second of this process: steadier than wall time on a shared machine."""
    rates = []
    for _ in range(reps):
        t0 = time.process_time()
        items = fn()
        rates.append(items / (time.process_time() - t0))
    return max(rates), sorted(rates)[len(rates) // 2]


def strip_annotations(data: dict) -> dict:
    data = dict(data)
    data["messages"] = [{k: v for k, v in m.items() if k not in ("agent", "step")} for m in data["messages"]]
    data["tool_calls"] = [{k: v for k, v in c.items() if k not in ("agent", "step", "episode")}
                          for c in data["tool_calls"]]
    return data


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--fresh-only", action="store_true", help="only fresh episodes (runs on older planprobe too)")
    args = ap.parse_args()
    cases = list(generate_cases(ConstraintSuiteOptions(actions=(6, 8), n=args.cases, seed=1)))
    family = get_family("constraints")
    agent = ToolsAgent(ListedOrder(), ChatParams(seed=0))
    limits = Limits()
    originals: list[Trace] = []

    async def fresh_all() -> None:  # one event loop, as in a run
        originals.clear()
        for case in cases:
            trace = await run_episode(case, agent, limits)
            family.check(case, trace)
            originals.append(trace)

    async def rerolled_all() -> None:
        from planprobe.runner.rollout import rerollout

        for case, trace in zip(cases, originals):
            new = await rerollout(case, trace, len(case.tools) // 2, agent, limits, guidance="Mind the order.")
            family.check(case, new)

    def fresh() -> int:
        asyncio.run(fresh_all())
        return len(cases)

    def rerolled() -> int:
        asyncio.run(rerolled_all())
        return len(cases)

    fresh_best, fresh_median = repeat_cpu(fresh, args.reps)
    print(f"machine: {machine()}")
    print(f"{args.cases} cases, |A| 6-8, per CPU second, best/median of {args.reps}")
    print(f"fresh episodes/s      {fresh_best:9.1f} {fresh_median:9.1f}")
    if args.fresh_only:
        return
    re_best, re_median = repeat_cpu(rerolled, args.reps)
    texts = [t.model_dump_json() for t in originals]
    stripped = [json.dumps(strip_annotations(json.loads(t)), separators=(",", ":")) for t in texts]

    def parse(items: list[str]) -> float:
        t0 = time.process_time()
        for _ in range(args.reps):
            for text in items:
                Trace.model_validate_json(text)
        return args.reps * len(items) / (time.process_time() - t0)

    size_v2 = sum(map(len, texts)) / len(texts)
    size_plain = sum(map(len, stripped)) / len(stripped)
    print(f"re-rollouts/s (t=|A|/2) {re_best:7.1f} {re_median:9.1f}")
    print(f"re-rollout / fresh time (median): {fresh_median / re_median:.2f}x")
    print(f"trace JSON bytes: {size_v2:.0f} with annotations, {size_plain:.0f} without "
          f"(+{100 * (size_v2 / size_plain - 1):.1f}%)")
    print(f"traces parsed/s: {parse(texts):.0f} with annotations, {parse(stripped):.0f} without")


if __name__ == "__main__":
    main()
