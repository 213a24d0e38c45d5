"""The solver's itinerary reader on generated cases: pass rate, plans at the minimum cost, calls
and decisions per case, and the time of one decide() call, per sample.

    python benchmarks/solver_itinerary.py [--n 90] [--seed 1]

Each case is generated in memory; the reader is shown only its visible fields (system prompt,
task text, tool schemas) and the calls made so far with their results; the episode is driven here
(one decide() per model iteration under the family's limits; the calls of one decision run in
order) and judged by the family's oracle. Only this script looks at the spec (the minimum cost).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine  # noqa: E402

from planprobe.environment import IterationLimitExceeded, Limits  # noqa: E402
from planprobe.schema import Case, TraceStatus  # noqa: E402
from planprobe.solver.base import ChatView, Observed  # noqa: E402
from planprobe.solver.itinerary_reader import ItineraryReader  # noqa: E402
from planprobe.suites.itinerary.generate import ItineraryOptions, generate_cases  # noqa: E402
from planprobe.suites.registry import get_family  # noqa: E402

# the cheapest plan on every query, so "at the minimum cost" checks the search against the generator's witness;
# as it runs, the solver takes any plan within the budget where the query does not ask for the cheapest
READER = ItineraryReader(always_cheapest=True)

SAMPLES: dict[str, dict] = {
    "easy/medium/hard x 3/5/7 days": {},
    "the same, --cost-aware": dict(cost_aware=True),
    "7 days, --sandbox-cities 5, --cost-aware": dict(days=(7,), sandbox_cities=5, cost_aware=True),
}


def episode(case: Case, times: list[float]) -> tuple[bool, bool, bool, int, int]:
    """(passed, at the minimum cost, underspecified or refused, calls, decisions) of one case."""
    family = get_family(case.family)
    tools = tuple({"name": t.name, "description": t.description, "parameters": t.parameters} for t in case.tools)
    env = family.environment(case, Limits(), 0, "solver")
    history: tuple[Observed, ...] = ()
    odd, decisions = False, 0
    try:
        while True:
            env.step()
            view = ChatView(system=case.system or "", task=case.task, tools=tools, history=history)
            t0 = time.perf_counter()
            d = READER.decide(view)
            times.append(time.perf_counter() - t0)
            decisions += 1
            if not d.calls:
                odd = d.answer is None
                env.finish(d.answer or f"REFUSE: {d.refuse or d.underspecified}")
                env.trace.status = TraceStatus.COMPLETED
                break
            for step in d.calls:
                history = (*history, Observed(step, env.call(step.tool, json.dumps(step.arguments))))
    except IterationLimitExceeded:
        env.trace.status = TraceStatus.ITERATION_LIMIT
    verdict = family.check(case, env.trace)
    labels = verdict.labels["itinerary"]
    cheapest = labels["cost"] is not None and abs(labels["cost"] - labels["min_cost"]) < 1e-9
    return verdict.passed, cheapest, odd, len(history), decisions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=90)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(machine())
    print("| sample | cases | pass | at the minimum cost | underspecified or refused | calls median (max) "
          "| decisions max | decide() median | p95 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, opts in SAMPLES.items():
        times: list[float] = []
        rows = [episode(c, times) for c in generate_cases(ItineraryOptions(n=args.n, seed=args.seed, **opts))]
        n = len(rows)
        calls = [r[3] for r in rows]
        times.sort()
        print(f"| {label} | {n} | {100 * sum(r[0] for r in rows) / n:.1f}% | {sum(r[1] for r in rows)} "
              f"| {sum(r[2] for r in rows)} | {statistics.median(calls):g} ({max(calls)}) | {max(r[4] for r in rows)} "
              f"| {1000 * statistics.median(times):.2f} ms | {1000 * times[int(0.95 * (len(times) - 1))]:.2f} ms |")


if __name__ == "__main__":
    main()
