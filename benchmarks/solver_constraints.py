"""The solver's constraint reader on generated cases: pass rate per style and mode, robustness
variant and planning protocol, restarts, iterations and the time of one decide() call.

    python benchmarks/solver_constraints.py [--n 300] [--seed 1]

Each case is generated in memory; the reader is shown only its visible fields (system prompt,
task text, tool schemas) and the calls made so far with their results; the episode is driven here
(one decide() per model iteration, the family's limits; a refusal is a call of the case's refuse
tool when it has one, else an answer "REFUSE: …") and judged by the case's family's oracle.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine  # noqa: E402

from planprobe.environment import IterationLimitExceeded, Limits  # noqa: E402
from planprobe.schema import Case, TraceStatus  # noqa: E402
from planprobe.solver.base import ChatView, Observed  # noqa: E402
from planprobe.solver.constraints_reader import READER  # noqa: E402
from planprobe.suites.constraints.generator import ConstraintSuiteOptions, generate_case  # noqa: E402
from planprobe.suites.protocols import stepwise_rng, wrap_holistic, wrap_stepwise  # noqa: E402
from planprobe.suites.registry import get_family  # noqa: E402
from planprobe.suites.robust.transforms import parse_transforms, robustify  # noqa: E402

SAMPLES = {
    "basic, 2-8 actions": dict(actions=(2, 8)),
    "extended, 2-6 actions": dict(actions=(2, 6), extended=True),
    "extended, 2-8 actions": dict(actions=(2, 8), extended=True),
    "extended, 2-8 actions, durations 1-5": dict(actions=(2, 8), extended=True, max_duration=5),
    "extended, 9-12 actions": dict(actions=(9, 12), extended=True),
    "paper, 2-8 actions": dict(actions=(2, 8), style="paper"),
    "paper extended, 2-6 actions": dict(actions=(2, 6), style="paper", extended=True),
    "paper, 3-9 actions, unconstrained allowed": dict(actions=(3, 9), style="paper", allow_unconstrained=True),
}

Wrap = Callable[[Case], Case]


def _robust(t: str) -> Wrap:
    return lambda c: robustify(c, parse_transforms(t.split(",")), 1)


def _holistic(t: str) -> Wrap:
    return lambda c: wrap_holistic(robustify(c, parse_transforms(t.split(",")), 1))


VARIANTS: dict[str, tuple[dict, Wrap]] = {
    f"{style}{' extended' if ext else ''}, {label}": (dict(actions=(2, 6), extended=ext, style=style), wrap)
    for style in ("planprobe", "paper") for ext in (False, True)
    for label, wrap in (("extraneous:3", _robust("extraneous:3")), ("broken", _robust("broken")),
                        ("unsolvable", _robust("unsolvable")), ("cost", _robust("cost")),
                        ("holistic", wrap_holistic),
                        ("step-wise k=2", lambda c: wrap_stepwise(c, 2, stepwise_rng(1, c))),
                        *((f"holistic over {t}", _holistic(t)) for t in ("extraneous:3", "unsolvable", "cost")))
}


def episode(case: Case, times: list[float]) -> tuple[bool, int, int, bool]:
    """(passed, restarts, iterations, underspecified) of one case."""
    family = get_family(case.family)
    tools = tuple({"name": t.name, "description": t.description, "parameters": t.parameters} for t in case.tools)
    refuse = any(t.name == "refuse" for t in case.tools)
    env = family.environment(case, Limits(), 0, "solver")
    history: tuple[Observed, ...] = ()
    under = False
    try:
        while True:
            env.step()
            view = ChatView(system=case.system or "", task=case.task, tools=tools, history=history)
            t0 = time.perf_counter()
            d = READER.decide(view)
            times.append(time.perf_counter() - t0)
            under = under or d.underspecified is not None
            if d.refuse and refuse:
                env.call("refuse", json.dumps({"reason": d.refuse}))
            if not d.calls:
                env.finish(f"REFUSE: {d.refuse}" if d.refuse else (d.answer or d.underspecified))
                env.trace.status = TraceStatus.COMPLETED
                break
            for step in d.calls:
                history = (*history, Observed(step, env.call(step.tool, json.dumps(step.arguments))))
    except IterationLimitExceeded:
        env.trace.status = TraceStatus.ITERATION_LIMIT
    return family.check(case, env.trace).passed, env.trace.restarts, env.trace.iterations, under


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--variants", type=int, default=60, help="cases per robustness/protocol row")
    args = ap.parse_args()
    print(machine())
    print("| sample | cases | pass | failed | of which longer than a day | underspecified | restarted "
          "| most iterations | decide() median | p95 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, opts in SAMPLES.items():
        o = ConstraintSuiteOptions(n=args.n, seed=args.seed, **opts)  # type: ignore[arg-type]
        passed = under = restarted = most = failed = too_long = 0
        times: list[float] = []
        for i in range(args.n):
            case = generate_case(i, o)
            ok, restarts, iterations, u = episode(case, times)
            passed += ok
            under += u
            restarted += restarts > 0
            most = max(most, iterations)
            if not ok:  # the benchmark (not the reader) looks at the spec: do the durations fit in a day?
                failed += 1
                too_long += sum(a.get("duration", 0) for a in case.spec["actions"]) > 24
        times.sort()
        print(f"| {label} | {args.n} | {passed / args.n:.1%} | {failed} | {too_long} | {under} | {restarted} | "
              f"{most} | {statistics.median(times) * 1e3:.2f} ms | {times[int(0.95 * len(times))] * 1e3:.2f} ms |")
    print()
    print("| variant | cases | pass | underspecified | decide() median |")
    print("|---|---|---|---|---|")
    for label, (opts, wrap) in VARIANTS.items():
        o = ConstraintSuiteOptions(n=args.variants, seed=args.seed, **opts)  # type: ignore[arg-type]
        passed = under = 0
        times = []
        for i in range(args.variants):
            ok, _, _, u = episode(wrap(generate_case(i, o)), times)
            passed += ok
            under += u
        print(f"| {label} | {args.variants} | {passed / args.variants:.1%} | {under} | "
              f"{statistics.median(times) * 1e3:.2f} ms |")


if __name__ == "__main__":
    main()
