"""The solver's PlanBench reader on generated cases: pass rate per task and domain (default shots,
t1 with ``--transform unsolvable:contradiction`` so half its cases must be refused), how many cases
were under-specified, and the time of one decide() call.

    python benchmarks/solver_planbench.py [--n 50] [--seed 1]

Each case is generated in memory; the reader is shown only its system prompt and task text (never
``case.spec``); its reply is judged by the family's oracle.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine  # noqa: E402

from planprobe.environment import Limits  # noqa: E402
from planprobe.schema import TraceStatus  # noqa: E402
from planprobe.solver.base import ChatView  # noqa: E402
from planprobe.solver.planbench_reader import READER  # noqa: E402
from planprobe.suites.planbench.generator import PlanBenchOptions, generate_case  # noqa: E402
from planprobe.suites.registry import get_family  # noqa: E402

TASKS = ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8_1", "t8_2", "t8_3"]
DOMAINS = ["blocksworld", "mystery_blocksworld", "random_blocksworld", "logistics", "mystery_logistics",
           "random_logistics"]


def row(task: str, domain: str, n: int, seed: int) -> tuple[int, int, int, list[float]]:
    family = get_family("planbench")
    opts = PlanBenchOptions(task=task, domain=domain, n=n, seed=seed, unsolvable=task == "t1")
    passed = under = refused = 0
    times: list[float] = []
    for i in range(n):
        case = generate_case(i, opts)
        view = ChatView(system=case.system or "", task=case.task)
        t0 = time.perf_counter()
        d = READER.decide(view)
        times.append(time.perf_counter() - t0)
        env = family.environment(case, Limits(), 0, "solver")
        env.step()
        env.finish(f"REFUSE: {d.refuse}" if d.refuse else (d.answer or d.underspecified or ""))
        env.trace.status = TraceStatus.COMPLETED
        passed += family.check(case, env.trace).passed
        under += d.underspecified is not None
        refused += d.refuse is not None
    return passed, under, refused, times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(machine())
    print("| task | domain | cases | pass | under-specified | refused | decide() median | max |")
    print("|---|---|---|---|---|---|---|---|")
    for task in TASKS:
        for domain in DOMAINS:
            passed, under, refused, times = row(task, domain, args.n, args.seed)
            print(f"| {task} | {domain} | {args.n} | {100 * passed / args.n:.1f}% | {under} | {refused} | "
                  f"{1000 * statistics.median(times):.2f} ms | {1000 * max(times):.1f} ms |", flush=True)


if __name__ == "__main__":
    main()
