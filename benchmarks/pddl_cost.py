"""The cost variant on pddl cases: what generating it and planning with costs take.

    python benchmarks/pddl_cost.py [--n 100] [--logistics-n 40] [--reps 3]

1. Generation: the plain suite (``generate pddl``) against the cost suite (the same
   cases, then ``--transform cost``: prices, composites and the cheapest plan from
   the cost-optimal A*), per domain, best of ``--reps``, one process; the ratio is
   cost / plain, both measured in this run.
2. Planner: on the cost variants' problems, ``solve_costs`` with unit costs and no
   composites (the peer: the same search code and LM-cut, costs 1) against the
   variant's prices and composites; total seconds and expansions, best of ``--reps``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine  # noqa: E402

from planprobe.suites.pddl_agent import PDDLSuiteOptions, generate_cases  # noqa: E402
from planprobe.suites.pddl_agent.prepared import prepare  # noqa: E402
from planprobe.pddl.cost_planner import CompositeAction, solve_costs  # noqa: E402
from planprobe.suites.robust import parse_transforms, robustify  # noqa: E402
from planprobe.suites.robust.spec import base_case, spec_of  # noqa: E402

LOGISTICS = {"cities": (2, 3), "locations": (1, 3), "packages": (1, 3)}  # the generator's defaults


def _best(fn, reps: int) -> float:
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100, help="Blocksworld cases (3-5 blocks)")
    ap.add_argument("--logistics-n", type=int, default=40, help="Logistics cases (the generator's default sizes)")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    print(f"machine: {machine()}")
    cost = parse_transforms(["cost"])
    print("| domain | cases | plain cases/s | cost cases/s | time cost / plain |")
    print("|---|---|---|---|---|")
    suites = {}
    for domain, n, extra in (("blocksworld", args.n, {}), ("logistics", args.logistics_n, LOGISTICS)):
        opts = PDDLSuiteOptions(domain=domain, n=n, seed=1, **extra)
        plain = _best(lambda opts=opts: list(generate_cases(opts)), args.reps)
        out: list = []
        with_cost = _best(lambda opts=opts, out=out: out.__setitem__(
            slice(None), [robustify(c, cost, 1) for c in generate_cases(opts)]), args.reps)
        suites[domain] = out
        print(f"| {domain} | {n} | {n / plain:,.0f} | {n / with_cost:,.1f} | {with_cost / plain:,.0f}× |", flush=True)
    print()
    print("| domain | cases | unit costs: s (expansions) | prices + composites: s (expansions) | time ratio |")
    print("|---|---|---|---|---|")
    for domain, variants in suites.items():
        tasks = []
        for v in variants:
            spec, cc = spec_of(v), prepare(base_case(v))
            schema = {t: a.name for t, a in cc.tool_action.items()}
            costs = {schema[t]: c for t, c in spec.costs.items() if t in schema}
            comps = [CompositeAction(c.tool, schema[c.first], schema[c.second], c.cost) for c in spec.composites]
            tasks.append((cc.grounded, costs, comps))
        expanded = {"unit": 0, "cost": 0}

        def run(kind: str, expanded: dict = expanded, tasks: list = tasks) -> None:
            expanded[kind] = 0
            for gp, costs, comps in tasks:
                if kind == "unit":
                    plan = solve_costs(gp, {a: 1 for a in costs}, [], time_limit=None)
                else:
                    plan = solve_costs(gp, costs, comps, time_limit=None)
                expanded[kind] += plan.expanded

        unit = _best(lambda: run("unit"), args.reps)
        priced = _best(lambda: run("cost"), args.reps)
        print(f"| {domain} | {len(tasks)} | {unit:.2f} ({expanded['unit']:,}) | {priced:.2f} ({expanded['cost']:,}) | "
              f"{priced / unit:.1f}× |", flush=True)


if __name__ == "__main__":
    main()
