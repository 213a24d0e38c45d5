"""Robustness transforms: generation speed and suite size per transform.

    python benchmarks/transform_throughput.py [--n 2000] [--timed-n 2000] [--pddl-n 100]

Base suite: basic constraint cases, 3-5 actions, seed 1. Peer figure, measured in
the same run: generating the base cases themselves (one process, best of 3); each
transform's time is also given as a ratio to it. For each transform: variants per
second (one process, best of 3) and the suite's size against the base suite. Then
the timed (extended) cases with extraneous, broken and cost; the unsolvable kinds on Blocksworld cases (3-5 blocks, seed 1), where a
contradiction and its control each cost planner searches.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine  # noqa: E402

from planprobe import ConstraintSuiteOptions, generate_cases  # noqa: E402
from planprobe.suites.pddl_agent import PDDLSuiteOptions  # noqa: E402
from planprobe.suites.pddl_agent import generate_cases as pddl_cases  # noqa: E402
from planprobe.suites.robust import parse_transforms, robustify  # noqa: E402

TRANSFORMS = (["extraneous:3"], ["broken"], ["unsolvable"], ["unsolvable:removal"], ["unsolvable:contradiction"],
              ["unsolvable:missing-info"], ["cost"], ["extraneous:3", "broken", "unsolvable"])
TIMED_TRANSFORMS = (["extraneous:3"], ["broken"], ["cost"])
PDDL_TRANSFORMS = (["unsolvable:removal"], ["unsolvable:contradiction"], ["unsolvable:missing-info"], ["broken"])


def _best_rate(make, n: int, reps: int = 3) -> float:
    best = 0.0
    for _ in range(reps):
        t0 = time.perf_counter()
        make()
        best = max(best, n / (time.perf_counter() - t0))
    return best


def _table(base, transforms, base_rate: float) -> None:
    n = len(base)
    base_bytes = sum(len(c.model_dump_json()) + 1 for c in base)
    print(f"base suite: {n} cases, {base_bytes / n:,.0f} bytes per case, generated at {base_rate:,.0f} cases/s")
    print("| transform | variants/s | time vs generating the base | bytes per case | size vs base |")
    print("|---|---|---|---|---|")
    for names in transforms:
        parsed = parse_transforms(names)
        out: list = []

        def make() -> None:
            for c in base:
                c.forget_derived()  # each repetition pays for its reference plans again
            out[:] = [robustify(c, parsed, 0) for c in base]

        rate = _best_rate(make, n)
        size = sum(len(v.model_dump_json()) + 1 for v in out)
        print(f"| {' + '.join(names)} | {rate:,.0f} | {base_rate / rate:.2f}× | {size / n:,.0f} | "
              f"{size / base_bytes:.2f}× |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--pddl-n", type=int, default=100)
    ap.add_argument("--timed-n", type=int, default=2000)
    args = ap.parse_args()
    print(f"machine: {machine()}")
    opts = ConstraintSuiteOptions(actions=(3, 5), n=args.n, seed=1)
    base: list = []
    rate = _best_rate(lambda: base.__setitem__(slice(None), list(generate_cases(opts))), args.n)
    _table(base, TRANSFORMS, rate)
    if args.timed_n:  # timed (extended) base cases: cost schedules composites back to back
        topts = ConstraintSuiteOptions(actions=(3, 5), n=args.timed_n, seed=1, extended=True)
        tbase: list = []
        trate = _best_rate(lambda: tbase.__setitem__(slice(None), list(generate_cases(topts))), args.timed_n)
        _table(tbase, TIMED_TRANSFORMS, trate)
    if args.pddl_n:
        popts = PDDLSuiteOptions(domain="blocksworld", n=args.pddl_n, seed=1)
        pbase: list = []
        prate = _best_rate(lambda: pbase.__setitem__(slice(None), list(pddl_cases(popts))), args.pddl_n)
        _table(pbase, PDDL_TRANSFORMS, prate)


if __name__ == "__main__":
    main()
