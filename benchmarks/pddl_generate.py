"""PDDL generation speed: problems per second for Blocksworld (5 and 10 blocks)
and Logistics, as bare problems and as complete agent cases written to a suite.

    python benchmarks/pddl_generate.py [--problems 2000] [--cases 500] [--reps 3]

"problems/s": ``generators.blocksworld_problem`` / ``logistics_problem`` alone
(a parsed ``Problem`` in memory). "cases/s": ``generate pddl`` end to end on one
process — problem, constructive plan (validated), optional obfuscation, NL
translation, tools, spec, JSON, written to a suite file.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, repeat  # noqa: E402

from planprobe.suites.io import write_suite_lines  # noqa: E402
from planprobe.suites.pddl_agent import PDDLSuiteOptions, generate_lines  # noqa: E402
from planprobe.pddl.generators import LogisticsSize, blocksworld_problem, logistics_problem  # noqa: E402

LOGISTICS = LogisticsSize(cities=3, locations=3, packages=5, airplanes=2)  # PlanBench's most common shape
ROWS = [
    ("blocksworld, 5 blocks", lambda rng: blocksworld_problem(5, rng), {"domain": "blocksworld", "blocks": (5, 5)}),
    ("blocksworld, 10 blocks", lambda rng: blocksworld_problem(10, rng), {"domain": "blocksworld",
                                                                          "blocks": (10, 10)}),
    ("logistics c3-s3-p5-a2", lambda rng: logistics_problem(LOGISTICS, rng),
     {"domain": "logistics", "cities": (3, 3), "locations": (3, 3), "packages": (5, 5), "airplanes": (2, 2)}),
]


def problems_rate(make, n: int, reps: int) -> tuple[float, float]:
    seeds = iter(range(10**6))

    def once() -> int:
        rng = random.Random(next(seeds))
        for _ in range(n):
            make(rng)
        return n

    return repeat(once, reps)


def cases_rate(opts: dict, n: int, reps: int, obfuscate=None) -> tuple[float, float]:
    seeds = iter(range(10**6))

    def once() -> int:
        o = PDDLSuiteOptions(n=n, seed=next(seeds), obfuscate=obfuscate, **opts)
        with tempfile.TemporaryDirectory() as tmp:
            return write_suite_lines(generate_lines(o, workers=1), Path(tmp) / "suite.jsonl")

    return repeat(once, reps)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--problems", type=int, default=2000)
    ap.add_argument("--cases", type=int, default=500)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    print(f"machine: {machine()}")
    print("| problems | problems/s best | median | cases/s best | median | mystery cases/s best | random "
          "cases/s best |")
    print("|---|---|---|---|---|---|---|")
    for label, make, opts in ROWS:
        pb, pm = problems_rate(make, args.problems, args.reps)
        cb, cm = cases_rate(opts, args.cases, args.reps)
        mb, _ = cases_rate(opts, args.cases, args.reps, "mystery")
        rb, _ = cases_rate(opts, args.cases, args.reps, "random")
        print(f"| {label} | {pb:,.0f} | {pm:,.0f} | {cb:,.0f} | {cm:,.0f} | {mb:,.0f} | {rb:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
