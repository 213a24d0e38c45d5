"""What a run amounts to: pass rate, error classes, and the same by difficulty.

Infrastructure failures are counted apart and excluded from every rate; cases
not yet run are "pending". Error counts use each failed result's primary class
(the first in ``ErrorClass`` order), so they add up to the failures. The
``timeout`` class covers two limits; which one ended each episode (the time
limit or the iteration limit) is counted apart, from the trace's status.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..runner.store import RunStore
from .stats import wilson_interval

# a trace status -> which limit a ``timeout`` failure hit
TIMEOUT_LIMITS = {"timeout": "time_limit", "iteration_limit": "iteration_limit"}


def timeout_limit(error: str | None, status: str | None) -> str | None:
    """"time_limit" or "iteration_limit" for a timeout failure, else None."""
    return TIMEOUT_LIMITS.get(status or "") if error == "timeout" else None


@dataclass
class Tally:
    cases: int = 0
    passed: int = 0
    errors: Counter = field(default_factory=Counter)
    timeouts: Counter = field(default_factory=Counter)  # "time_limit" / "iteration_limit" among timeout failures

    def add(self, passed: bool, error: str | None, status: str | None = None) -> None:
        self.cases += 1
        if passed:
            self.passed += 1
        elif error:
            self.errors[error] += 1
            limit = timeout_limit(error, status)
            if limit is not None:
                self.timeouts[limit] += 1

    def to_json(self) -> dict[str, Any]:
        lo, hi = wilson_interval(self.passed, self.cases)
        return {
            "cases": self.cases,
            "passed": self.passed,
            "pass_rate": round(self.passed / self.cases, 6) if self.cases else None,
            "ci95": [round(lo, 6), round(hi, 6)],
            "errors": dict(sorted(self.errors.items())),
            **({"timeouts": dict(sorted(self.timeouts.items()))} if self.timeouts else {}),
        }


@dataclass
class RunSummary:
    meta: dict[str, str]
    suite_cases: int
    trials: int
    overall: Tally
    infra: int
    pending: int
    by_actions: dict[int, Tally]
    by_topic: dict[str, Tally]
    usage: dict[str, float | None] = field(default_factory=dict)  # cost_usd is None when no call had a price
    # per action count, the mean of each other difficulty measure over the suite's cases
    # (constraints, restatements, unconstrained actions, words …)
    difficulty: dict[int, dict[str, float]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = self.overall.to_json()
        out.update({
            "infra": self.infra,
            "pending": self.pending,
            "suite_cases": self.suite_cases,
            "trials": self.trials,
            "agent": self.meta.get("agent"),
            "model": self.meta.get("model") or None,
            "suite": self.meta.get("suite"),
            "by_actions": {str(k): t.to_json() for k, t in sorted(self.by_actions.items())},
            "by_topic": {k: t.to_json() for k, t in sorted(self.by_topic.items())},
            "difficulty_by_actions": {str(k): v for k, v in sorted(self.difficulty.items())},
            "usage": self.usage,
        })
        return out


def summarize(store: RunStore) -> RunSummary:
    """Streams the results (with each case's topic and difficulty) from the store, so a
    100,000-case run is summarised in flat memory."""
    meta = store.meta()
    suite_cases = store.case_count()
    trials = int(meta.get("trials", "1"))
    overall = Tally()
    by_actions: dict[int, Tally] = defaultdict(Tally)
    by_topic: dict[str, Tally] = defaultdict(Tally)
    infra = done = 0
    usage: dict[str, float | None] = {"model_calls": 0, "cached_calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": None}
    for row, meta_json in store.rows_with_meta():
        done += 1
        for key in ("model_calls", "cached_calls", "prompt_tokens", "completion_tokens"):
            usage[key] = (usage[key] or 0) + getattr(row, key)
        if row.cost_usd is not None:
            usage["cost_usd"] = (usage["cost_usd"] or 0.0) + row.cost_usd
        if row.infra:
            infra += 1
            continue
        overall.add(row.passed, row.primary_error, row.status)
        try:
            m = json.loads(meta_json)
        except ValueError:
            m = {}
        difficulty = m.get("difficulty") or {}
        if isinstance(difficulty, dict) and isinstance(difficulty.get("actions"), (int, float)):
            by_actions[int(difficulty["actions"])].add(row.passed, row.primary_error, row.status)
        if m.get("topic"):
            by_topic[str(m["topic"])].add(row.passed, row.primary_error, row.status)
    return RunSummary(
        meta=meta, suite_cases=suite_cases, trials=trials, overall=overall, infra=infra,
        pending=suite_cases * trials - done, by_actions=dict(by_actions), by_topic=dict(by_topic), usage=usage,
        difficulty=_difficulty_means(store.case_difficulties()),
    )


def _difficulty_means(difficulties) -> dict[int, dict[str, float]]:
    """Per action count, the mean of each other difficulty measure; ``difficulties`` is
    streamed (one dict per case), so a large suite is never held."""
    sums: dict[int, defaultdict[str, float]] = defaultdict(lambda: defaultdict(float))
    counts: Counter = Counter()
    for d in difficulties:
        if not isinstance(d, dict) or not isinstance(d.get("actions"), (int, float)):
            continue
        n = int(d["actions"])
        counts[n] += 1
        for key, value in d.items():
            if key != "actions" and isinstance(value, (int, float)):
                sums[n][key] += value
    return {n: {k: round(v / counts[n], 2) for k, v in sorted(sums[n].items())} for n in sorted(sums)}
