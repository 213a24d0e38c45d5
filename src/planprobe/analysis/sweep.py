"""The capability sweep (seed PDoctor §6.2, Fig. 8-9): raise the action count until
the agent's success rate falls below a threshold.

For n = start, start+1, …: k·C(n, 2) cases (capped, 20 and 300 in the seed) of
exactly n actions, run like any suite into ``OUT/runs/n<n>`` (so a killed sweep
resumes where it stopped), until the first n whose success rate is below the
threshold (20% in the seed).

**Which n is "the planning limit".** The paper says an agent "reaches its upper-level
planning capability when the success rate drops too low (less than 20%)" and raises n
"until the success rate threshold is reached"; in RQ3 "all agents based on GPT-3.5 drop
below the 20% success rate when the action number reaches three" and the figure stops
at the n where "the limit is reached". We take that reading: the planning limit is the
**first n whose success rate falls below the threshold**, the n at which the sweep stops.
Both numbers are reported — the last n at or above the threshold and the first n below —
so a reader who takes the other reading has it too. When no n fell below, the limit was
not reached: "limit not reached up to n = …".

Each n gets its own suite seed (``suite_seed``), so topics are drawn afresh per n and
case ids are unique across the sweep; the suite for n is exactly
``planprobe generate constraints --actions n --n <cases> --seed <suite_seed>``.
``OUT/sweep.json`` records the settings and the points; ``planprobe dissect OUT`` reads it.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import PlanprobeError
from ..runner.engine import RunConfig
from ..runner.suite_run import run_suite
from ..suites.constraints.generator import ConstraintSuiteOptions, generate_cases
from ..suites.constraints.synthesis import SynthesisOptions
from ..suites.io import load_suite, write_suite
from .summary import summarize

SWEEP_FILE = "sweep.json"
SWEEP_FORMAT = 2  # 1: one seed for every n (repeated topics and case ids); 2: suite_seed per n
READING = ("planning limit = the first n whose success rate falls below the threshold "
           "(PDoctor §6.2: the limit is reached when the success rate drops below 20%)")


def cases_for(n: int, k: int, cap: int) -> int:
    return min(cap, k * math.comb(n, 2))


def suite_seed(seed: int, n: int) -> int:
    """The generator seed for action count n: distinct for every (seed, n) with n < 1000, so each n
    draws fresh topics and its case ids (``constraints-<mode>-<suite seed>-<index>``) are its own."""
    return seed * 1000 + n


def run_dir(out: Path, n: int) -> Path:
    return Path(out) / "runs" / f"n{n}"


@dataclass
class SweepPoint:
    actions: int
    cases: int  # judged cases (infrastructure failures excluded)
    passed: int
    infra: int
    ci95: tuple[float, float]

    @property
    def rate(self) -> float:
        return self.passed / self.cases if self.cases else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"actions": self.actions, "cases": self.cases, "passed": self.passed, "infra": self.infra,
                "success_rate": round(self.rate, 6), "ci95": [round(self.ci95[0], 6), round(self.ci95[1], 6)]}


@dataclass
class SweepResult:
    threshold: float
    points: list[SweepPoint] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    infra_at: int | None = None  # the n whose infrastructure failures stopped the sweep unmeasured

    @property
    def first_below(self) -> int | None:
        """The first n whose success rate fell below the threshold (None with threshold 0)."""
        if self.threshold <= 0:
            return None
        return next((p.actions for p in self.points if p.rate < self.threshold and not p.infra), None)

    @property
    def last_at_or_above(self) -> int | None:
        """The last n at or above the threshold before the first n below it."""
        below = self.first_below
        ok = [p.actions for p in self.points if p.rate >= self.threshold and (below is None or p.actions < below)]
        return max(ok) if ok else None

    @property
    def limit(self) -> int | None:
        """The planning limit as we read the paper: the first n below the threshold; None when not reached."""
        return self.first_below

    @property
    def tested_up_to(self) -> int | None:
        return self.points[-1].actions if self.points else None

    def within_limit(self) -> int | None:
        """The largest n whose failures lie within the planning limit (n ≤ limit), for dissection:
        the limit when reached, else every n tested."""
        return self.limit if self.limit is not None else self.tested_up_to

    def to_json(self) -> dict[str, Any]:
        return {
            "format": SWEEP_FORMAT, "threshold": self.threshold, "reading": READING,
            "planning_limit": self.limit, "limit_reached": self.limit is not None,
            "first_below": self.first_below, "last_at_or_above": self.last_at_or_above,
            "tested_up_to": self.tested_up_to, "stopped_by_infra_at": self.infra_at,
            "settings": self.settings, "points": [p.to_json() for p in self.points],
        }

    def describe(self) -> str:
        """One line for the terminal."""
        pct = f"{100 * self.threshold:g}%"
        if self.infra_at is not None:
            return (f"stopped at n = {self.infra_at}: infrastructure failures left its success rate unmeasured; "
                    "run the same command again to retry them")
        if self.threshold <= 0:
            return "threshold 0: every n up to --stop was run; no planning limit is defined"
        if not self.points:
            return "no action count was run"
        if self.limit is None:
            return (f"limit not reached up to n = {self.tested_up_to}: success stayed at or above {pct} for every n "
                    f"tried ({self.points[0].actions}-{self.tested_up_to}); last n at or above: "
                    f"{self.last_at_or_above}; first n below: none")
        above = (f"last n at or above {pct}: {self.last_at_or_above}" if self.last_at_or_above is not None
                 else f"no n was at or above {pct}")
        return f"planning limit: n = {self.limit} (first n below {pct}); {above}"


def read_sweep(out: Path) -> dict[str, Any]:
    """``OUT/sweep.json``, checked: a PlanprobeError naming the file if it is missing or unreadable."""
    path = Path(out) / SWEEP_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PlanprobeError(f"{path}: not found; is {out} a sweep directory made by 'planprobe sweep'?") from None
    except (OSError, ValueError) as exc:
        raise PlanprobeError(f"{path}: cannot be read ({exc})") from None
    version = data.get("format") if isinstance(data, dict) else None
    if version != SWEEP_FORMAT or not isinstance(data.get("points"), list):
        raise PlanprobeError(f"{path}: not a sweep file of this planprobe (format {version!r}, expected "
                             f"{SWEEP_FORMAT}); run the sweep again in a new directory")
    return data


def _write_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)


def run_sweep(out: Path, agent, config: RunConfig, *, extended: bool = False, k: int = 20, cap: int = 300,
              threshold: float = 0.2, start: int = 2, stop: int | None = None, seed: int = 0,
              on_point: Callable[[SweepPoint], None] = lambda p: None,
              on_result=None, on_store: Callable[[Any], None] = lambda store: None,
              synthesis: SynthesisOptions | None = None, style: str = "planprobe",
              allow_unconstrained: bool = False,
              runner: Callable[[Any, Any], Any] | None = None) -> SweepResult:
    """Run the sweep into ``out``; ``on_store`` sees each run's store once it is open (to record
    settings beside the engine's). ``runner(store, on_result)`` runs a point's pending cases
    (default: in this process; planprobe.scale passes one that shards them over workers)."""
    out = Path(out)
    stop = stop or (12 if extended else 20)
    synthesis = synthesis or SynthesisOptions()
    settings = {"extended": extended, "k": k, "cap": cap, "start": start, "stop": stop, "seed": seed,
                "style": style, "max_sentences": synthesis.max_sentences, "max_iterations": synthesis.max_iterations,
                "allow_unconstrained": allow_unconstrained,
                "agent": config.agent, "model": config.model,
                "suite_seeds": {str(n): suite_seed(seed, n) for n in range(start, stop + 1)}}
    result = SweepResult(threshold=threshold, settings=settings)
    out.mkdir(parents=True, exist_ok=True)
    for n in range(start, stop + 1):
        opts = ConstraintSuiteOptions(actions=(n, n), n=cases_for(n, k, cap), seed=suite_seed(seed, n),
                                      extended=extended, style=style, allow_unconstrained=allow_unconstrained,
                                      synthesis=synthesis)
        opts.check()
        path = out / "suites" / f"n{n}.jsonl"
        write_suite(generate_cases(opts), path)  # byte-identical on a resumed sweep
        cases = load_suite(path)
        s = run_suite(run_dir(out, n), cases, agent, config, suite_name=str(path),
                      on_open=lambda store, _total, _done: on_store(store), on_result=on_result,
                      summarize=summarize, runner=runner).summary
        assert s is not None
        lo, hi = s.overall.to_json()["ci95"]
        point = SweepPoint(actions=n, cases=s.overall.cases, passed=s.overall.passed, infra=s.infra, ci95=(lo, hi))
        result.points.append(point)
        on_point(point)
        if point.infra:  # a rate over the cases that happened to get through decides nothing
            result.infra_at = n
        _write_json(out / SWEEP_FILE, result.to_json())
        if point.infra or (threshold > 0 and point.rate < threshold):
            break
    return result
