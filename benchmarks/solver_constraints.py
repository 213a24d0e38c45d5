"""The solver's constraint reader on generated cases: pass rate per style and mode, restarts,
iterations and the time of one decide() call.

    python benchmarks/solver_constraints.py [--n 300] [--seed 1]

Each case is generated in memory; the reader is shown only its visible fields (system prompt,
task text, tool schemas) and the calls made so far with their results; the episode is driven here
(one decide() per model iteration, the family's limits) and judged by the family's oracle.
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
from planprobe.schema import TraceStatus  # noqa: E402
from planprobe.solver.base import ChatView, Observed  # noqa: E402
from planprobe.solver.constraints_reader import READER  # noqa: E402
from planprobe.suites.constraints.generator import ConstraintSuiteOptions, generate_case  # noqa: E402
from planprobe.suites.registry import get_family  # noqa: E402

SAMPLES = {
    "basic, 2-8 actions": dict(actions=(2, 8)),
    "extended, 2-6 actions": dict(actions=(2, 6), extended=True),
    "extended, 2-8 actions": dict(actions=(2, 8), extended=True),
    "extended, 2-8 actions, durations 1-5": dict(actions=(2, 8), extended=True, max_duration=5),
    "extended, 9-12 actions": dict(actions=(9, 12), extended=True),
    "paper, 2-8 actions": dict(actions=(2, 8), style="paper"),
    "paper extended, 2-6 actions": dict(actions=(2, 6), style="paper", extended=True),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    family = get_family("constraints")
    print(machine())
    print("| sample | cases | pass | refused | of which longer than a day | underspecified | restarted "
          "| most iterations | decide() median | p95 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, opts in SAMPLES.items():
        o = ConstraintSuiteOptions(n=args.n, seed=args.seed, **opts)  # type: ignore[arg-type]
        passed = under = restarted = most = refused = too_long = 0
        times: list[float] = []
        for i in range(args.n):
            case = generate_case(i, o)
            tools = tuple({"name": t.name, "description": t.description, "parameters": t.parameters}
                          for t in case.tools)
            env = family.environment(case, Limits(), 0, "solver")
            history: tuple[Observed, ...] = ()
            try:
                while True:
                    env.step()
                    view = ChatView(system=case.system or "", task=case.task, tools=tools, history=history)
                    t0 = time.perf_counter()
                    d = READER.decide(view)
                    times.append(time.perf_counter() - t0)
                    if d.underspecified:
                        under += 1
                    if d.refuse:
                        refused += 1
                        # the benchmark (not the reader) looks at the spec: do the durations fit in a day?
                        too_long += sum(a["duration"] for a in case.spec["actions"]) > 24
                    if not d.calls:
                        env.finish(d.answer or d.refuse or d.underspecified)
                        env.trace.status = TraceStatus.COMPLETED
                        break
                    for step in d.calls:
                        history = (*history, Observed(step, env.call(step.tool, json.dumps(step.arguments))))
            except IterationLimitExceeded:
                env.trace.status = TraceStatus.ITERATION_LIMIT
            passed += family.check(case, env.trace).passed
            restarted += env.trace.restarts > 0
            most = max(most, env.trace.iterations)
        times.sort()
        print(f"| {label} | {args.n} | {passed / args.n:.1%} | {refused} | {too_long} | {under} | {restarted} | {most} | "
              f"{statistics.median(times) * 1e3:.2f} ms | {times[int(0.95 * len(times))] * 1e3:.2f} ms |")


if __name__ == "__main__":
    main()
