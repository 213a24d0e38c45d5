"""How difficulty grows with |A| in the constraint family: for each action count, with the
default N and with the seed's fixed N = 3, the share of draws that constrain every action,
and per generated case the distinct constraints, restatements, unconstrained actions and
words.

    python benchmarks/constraint_difficulty.py [--draws 300] [--cases 300]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine  # noqa: E402

from planprobe.suites.constraints.generator import ConstraintSuiteOptions, generate_cases  # noqa: E402
from planprobe.suites.constraints.synthesis import SynthesisOptions, synthesize  # noqa: E402


def connected_share(n: int, extended: bool, draws: int, max_sentences=None) -> float:
    rng = random.Random(f"difficulty/{n}/{extended}")
    opts = SynthesisOptions(max_sentences=max_sentences)
    hits = 0
    for _ in range(draws):
        durations = [rng.randint(1, 3) for _ in range(n)] if extended else None
        hits += synthesize(rng, n, opts, durations).connected
    return hits / draws


def case_stats(n: int, extended: bool, cases: int, max_sentences=None, allow=False) -> dict[str, float]:
    opts = ConstraintSuiteOptions(n=cases, seed=7, actions=(n, n), extended=extended, allow_unconstrained=allow,
                                  synthesis=SynthesisOptions(max_sentences=max_sentences))
    rows = [c.meta.difficulty for c in generate_cases(opts)]
    return {
        "constraints": statistics.mean(r["constraints"] for r in rows),
        "max_restated": max(r["restatements"] for r in rows),
        "unconstrained_cases": sum(r["unconstrained"] > 0 for r in rows) / len(rows),
        "words": statistics.mean(r["words"] for r in rows),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=300)
    ap.add_argument("--cases", type=int, default=300)
    args = ap.parse_args()
    print(f"# {machine()}")
    print("| mode | |A| | default N | one draw connects all | seed N=3: cases leaving an action unconstrained "
          "| default: constraints | words |")
    print("|---|---|---|---|---|---|---|")
    for extended in (False, True):
        for n in (2, 3, 4, 5, 6, 7, 8, 9, 12):
            share = connected_share(n, extended, args.draws)
            seed_n3 = case_stats(n, extended, args.cases, max_sentences=3, allow=True)
            ours = case_stats(n, extended, args.cases)
            mode = "timed" if extended else "basic"
            print(f"| {mode} | {n} | {SynthesisOptions().sentences_for(n)} | {share:.2f} | "
                  f"{100 * seed_n3['unconstrained_cases']:.0f}% | {ours['constraints']:.1f} | {ours['words']:.0f} |",
                  flush=True)


if __name__ == "__main__":
    main()
