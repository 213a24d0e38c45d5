"""Labelling throughput: formal labels (E, PNR, budget PNR, minimum correction,
module labels) per second on failed traces of each formal family.

    python benchmarks/label_throughput.py [--traces 10000] [--cases 1000]

Failed traces are recorded first from reference agents that fail (random plans and
every injected fault, several trials per case) until ``--traces`` of them per
family; then they are labelled once (a single pass; the compiled cases are
reused, as in ``planprobe label``). The peer figure, measured on the same traces
in the same run, is the family's own verdict (``check``), which a label needs
anyway. The PNR columns show its cost: oracle calls per trace next to the number
of steps a step-by-step search would have to test.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine  # noqa: E402

from planprobe.agents import make_agent  # noqa: E402
from planprobe.debug.labels import label_trace  # noqa: E402
from planprobe.environment import IterationLimitExceeded, Limits  # noqa: E402
from planprobe.schema import TraceStatus  # noqa: E402
from planprobe.suites.constraints.generator import ConstraintSuiteOptions  # noqa: E402
from planprobe.suites.constraints.generator import generate_cases as constraint_cases  # noqa: E402
from planprobe.suites.pddl_agent import PDDLSuiteOptions  # noqa: E402
from planprobe.suites.pddl_agent import generate_cases as pddl_cases  # noqa: E402
from planprobe.suites.registry import get_family  # noqa: E402

LIMITS = Limits(max_iterations=12)  # small enough that some runs cannot finish in time: the budget PNR (and h*) is exercised


def suites(n: int, only: str = ""):
    makers = {
        "constraints basic (3-8 actions)":
            lambda: constraint_cases(ConstraintSuiteOptions(actions=(3, 8), n=n, seed=11)),
        "constraints extended (3-6 actions)":
            lambda: constraint_cases(ConstraintSuiteOptions(actions=(3, 6), n=n, seed=11, extended=True)),
        "pddl blocksworld (3-6 blocks)":
            lambda: pddl_cases(PDDLSuiteOptions(domain="blocksworld", n=n, seed=11, blocks=(3, 6))),
        "pddl logistics (1-3 packages)":
            lambda: pddl_cases(PDDLSuiteOptions(domain="logistics", n=n, seed=11, packages=(1, 3), cities=(1, 2),
                                                locations=(1, 2))),
    }
    for name, make in makers.items():
        if only in name:
            yield name, list(make())


def record(cases, want: int):
    family = get_family(cases[0].family)
    names = ["random"] + [f"faulty:{f}" for f in family.faults if f != "stall"]
    agents = [make_agent(a, seed=s) for s in range(4) for a in names]
    out = []
    for round_ in range(len(agents)):
        for i, case in enumerate(cases):
            agent = agents[(i + round_) % len(agents)]
            env = family.environment(case, LIMITS, round_, agent.name)
            try:
                asyncio.run(agent(case, env))
            except IterationLimitExceeded:
                env.trace.status = TraceStatus.ITERATION_LIMIT
            verdict = family.check(case, env.trace)
            if not verdict.passed:
                out.append((case, env.trace, verdict))
                if len(out) == want:
                    return out
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--traces", type=int, default=10_000)
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--only", default="", help="Only the families whose name contains this text.")
    args = ap.parse_args()
    print(f"machine: {machine()}")
    print("| family | failed traces | labels/s | verdicts/s (peer) | ratio | mean steps | "
          "PNR oracle calls (mean / max) | with PNR | with budget PNR |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, cases in suites(args.cases, args.only):
        family = get_family(cases[0].family)
        rows = record(cases, args.traces)
        t0 = time.perf_counter()
        for case, trace, _ in rows:
            family.check(case, trace)
        check_rate = len(rows) / (time.perf_counter() - t0)
        t0 = time.perf_counter()
        labels = [label_trace(case, trace, verdict, LIMITS.max_iterations) for case, trace, verdict in rows]
        label_rate = len(rows) / (time.perf_counter() - t0)
        calls = [x.pnr.oracle_calls for x in labels]
        steps = statistics.mean(x.steps for x in labels)
        with_pnr = sum(x.pnr.step is not None for x in labels)
        with_budget = sum(x.budget_pnr is not None and x.budget_pnr.step is not None for x in labels)
        print(f"| {name} | {len(rows):,} | {label_rate:,.0f} | {check_rate:,.0f} | {label_rate / check_rate:.2f} | "
              f"{steps:.1f} | {statistics.mean(calls):.2f} / {max(calls)} | {with_pnr:,} | {with_budget:,} |",
              flush=True)


if __name__ == "__main__":
    main()
