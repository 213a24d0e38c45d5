"""What re-arranging first mentions (constraints/mentions.py) costs in generation time.

    python benchmarks/mention_overhead.py [--n 2000]

Generates the same suite (3-5 actions, seed 1, basic and timed) with the re-arrangement and,
as the peer measured in the same run, with it replaced by the identity; one process, best of 3.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine  # noqa: E402

from planprobe.suites.constraints import generator  # noqa: E402


def _rate(n: int, extended: bool) -> float:
    opts = generator.ConstraintSuiteOptions(n=n, seed=1, actions=(3, 5), extended=extended)
    best = 0.0
    for _ in range(3):
        t0 = time.perf_counter()
        for _case in generator.generate_cases(opts):
            pass
        best = max(best, n / (time.perf_counter() - t0))
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=2000)
    args = ap.parse_args()
    print(f"machine: {machine()}")
    print("| mode | cases/s with re-arrangement | cases/s without | time ratio |")
    print("|---|---|---|---|")
    real = generator.arrange
    for extended in (False, True):
        with_it = _rate(args.n, extended)
        generator.arrange = lambda sentences, atoms, names, rng: (sentences, atoms)  # type: ignore[assignment]
        try:
            without = _rate(args.n, extended)
        finally:
            generator.arrange = real
        print(f"| {'timed' if extended else 'basic'} | {with_it:,.0f} | {without:,.0f} | {without / with_it:.2f}× |",
              flush=True)


if __name__ == "__main__":
    main()
