"""The itinerary family: generation, the solver's time to prove each case solvable,
and the oracle's throughput.

    python benchmarks/itinerary_speed.py [--n 2000]

One process, best of 3 for every figure. Peer measured in the same run: generating
basic constraint cases (3-5 actions, seed 1), the figure docs/BENCHMARKS.md records
for that family, so the ratio carries over to other machines and loads.
* generation: cases/s of ``generate_lines`` (sandbox, query, solver, JSON), 1 worker;
* solver: per case, the time of ``Solver.solve`` on the final draw (median, 95th
  percentile, max) by trip length;
* oracle: verdicts/s of the family's ``check`` on the witness plans (the evaluator
  run twice per plan: official and strict) and on random plans.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine  # noqa: E402

from planprobe import ConstraintSuiteOptions, generate_cases  # noqa: E402
from planprobe.schema import Trace, TraceStatus  # noqa: E402
from planprobe.suites.itinerary import generate as gen  # noqa: E402
from planprobe.suites.itinerary.family import ItineraryFamily  # noqa: E402
from planprobe.suites.travelplanner import reference_answers  # noqa: E402
from planprobe.suites.travelplanner.cases import prepare  # noqa: E402


def _best_rate(make, n: int, reps: int = 3) -> float:
    best = 0.0
    for _ in range(reps):
        t0 = time.perf_counter()
        make()
        best = max(best, n / (time.perf_counter() - t0))
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=2000)
    args = ap.parse_args()
    n = args.n
    print(f"machine: {machine()}")
    peer = _best_rate(lambda: list(generate_cases(ConstraintSuiteOptions(actions=(3, 5), n=n, seed=1))), n)
    opts = gen.ItineraryOptions(n=n, seed=1)
    rate = _best_rate(lambda: list(gen.generate_lines(opts, 1)), n)
    print(f"peer (constraint cases, 3-5 actions): {peer:,.0f} cases/s")
    print(f"itinerary generation: {rate:,.0f} cases/s ({rate / peer:.2f}x the peer)")

    times: dict[int, list[float]] = {}
    solve = gen.Solver.solve

    def timed(self, *a):
        t0 = time.perf_counter()
        out = solve(self, *a)
        times.setdefault(self.q.days, []).append(time.perf_counter() - t0)
        return out

    gen.Solver.solve = timed  # type: ignore[method-assign]
    cases = list(gen.generate_cases(opts))
    gen.Solver.solve = solve  # type: ignore[method-assign]
    for days, ts in sorted(times.items()):
        ts.sort()
        print(f"solver, {days} days: {len(ts)} solves, median {1e3 * statistics.median(ts):.2f} ms, "
              f"p95 {1e3 * ts[int(0.95 * len(ts))]:.2f} ms, max {1e3 * ts[-1]:.2f} ms")
    print(f"draws per case: {sum(map(len, times.values())) / len(cases):.3f}")

    family = ItineraryFamily()
    for c in cases:
        prepare(c)  # the sandbox index is built once per case, as in a run
    witness = [Trace(case_id=c.id, agent="oracle", status=TraceStatus.COMPLETED,
                     final_answer=reference_answers.dump(c.spec["reference_plan"])) for c in cases]
    rng = random.Random(1)
    rand = [Trace(case_id=c.id, agent="random", status=TraceStatus.COMPLETED,
                  final_answer=family.random_answer(c, rng)) for c in cases]
    for name, traces in (("witness", witness), ("random", rand)):
        r = _best_rate(lambda: [family.check(c, t) for c, t in zip(cases, traces)], n)
        print(f"oracle on {name} plans: {r:,.0f} verdicts/s")


if __name__ == "__main__":
    main()
