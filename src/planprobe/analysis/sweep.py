"""The capability sweep (seed PDoctor §6.2, Fig. 8-9): raise the action count until
the agent's success rate falls below a threshold.

For n = start, start+1, …: k·C(n, 2) cases (capped, 20 and 300 in the seed) of
exactly n actions, run like any suite into ``OUT/runs/n<n>`` (so a killed sweep
resumes where it stopped), until the first n whose success rate is below the
threshold (20% in the seed). The planning limit is the last n at or above it.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from ..runner.engine import RunConfig, open_run, run_pending
from ..suites.constraints.generator import ConstraintSuiteOptions, generate_cases
from ..suites.io import load_suite, write_suite
from .summary import summarize


def cases_for(n: int, k: int, cap: int) -> int:
    return min(cap, k * math.comb(n, 2))


@dataclass
class SweepPoint:
    actions: int
    cases: int
    passed: int
    infra: int
    ci95: tuple[float, float]

    @property
    def rate(self) -> float:
        return self.passed / self.cases if self.cases else 0.0


@dataclass
class SweepResult:
    threshold: float
    points: list[SweepPoint] = field(default_factory=list)
    stopped_below: Optional[int] = None  # the first n below the threshold

    @property
    def limit(self) -> Optional[int]:
        """The largest n whose success rate was at or above the threshold (none when
        the threshold is 0: then every n was run and there is no limit to find)."""
        if self.threshold <= 0:
            return None
        ok = [p.actions for p in self.points if p.rate >= self.threshold]
        return max(ok) if ok else None

    def to_json(self) -> dict:
        return {
            "threshold": self.threshold, "planning_limit": self.limit, "first_below": self.stopped_below,
            "points": [{"actions": p.actions, "cases": p.cases, "passed": p.passed, "infra": p.infra,
                        "success_rate": round(p.rate, 6), "ci95": [round(p.ci95[0], 6), round(p.ci95[1], 6)]}
                       for p in self.points],
        }


def run_sweep(out: Path, agent, config: RunConfig, *, extended: bool = False, k: int = 20, cap: int = 300,
              threshold: float = 0.2, start: int = 2, stop: Optional[int] = None, seed: int = 0,
              on_point: Callable[[SweepPoint], None] = lambda p: None,
              on_result=None) -> SweepResult:
    out = Path(out)
    stop = stop or (12 if extended else 20)
    result = SweepResult(threshold=threshold)
    for n in range(start, stop + 1):
        opts = ConstraintSuiteOptions(actions=(n, n), n=cases_for(n, k, cap), seed=seed, extended=extended)
        opts.check()
        path = out / "suites" / f"n{n}.jsonl"
        write_suite(generate_cases(opts), path)  # byte-identical on a resumed sweep
        cases = load_suite(path)
        store = open_run(out / "runs" / f"n{n}", cases, config, suite_name=str(path))
        try:
            asyncio.run(run_pending(store, agent, config, on_result))
            s = summarize(store)
        finally:
            store.close()
        lo, hi = s.overall.to_json()["ci95"]
        point = SweepPoint(actions=n, cases=s.overall.cases, passed=s.overall.passed, infra=s.infra, ci95=(lo, hi))
        result.points.append(point)
        on_point(point)
        if point.rate < threshold:
            result.stopped_below = n
            break
    return result
