"""Error dissection (seed PDoctor Alg. 2, §6.2): why did a case fail — and how often
would the same answer come up by chance?

**Which failures.** As in the paper ("we randomly sample 100 errors that fall within the
planning capability limit"), a uniform seeded sample (``sample``, default 100) of the
failed cases within the limit: for a sweep directory the cases of every n ≤ the planning
limit (``sweep.py``: the first n below the threshold, or every n tested when the limit was
not reached); for a plain run, all its cases. Infrastructure failures are never failures.

**The procedure**, per sampled case, stopping at the first stage that makes the agent pass:

1. Probability — the same case again (up to 3 re-runs);
2. Phrasing (not in the seed; ``phrasing=False`` leaves it out) — for each connective word
   the requirement says ("after", "prior", "by" …, sorted), the minimal pair: the same case
   with every phrase containing that word replaced by an equivalent phrase of its slot
   without it, nothing else changed (one mutant per word, not K). Every word is tried; the
   words whose pair passed are named (a flaw of one word is fixed by its pair alone; an
   agent upset by any rewording is fixed by many).
   It comes before Terminal because Terminal re-draws every word at once: a lexical flaw
   was fixed there only when a draw happened to avoid the word, so its share moved with K;
3. Terminal — the same skeleton with other terminal words (up to K mutants);
4. Topic — the same skeleton about another job (up to K);
5. Structure — the same constraint set stated in another structure (up to K);
6. otherwise Constraint — the constraint set itself defeats the agent.

**The chance baseline.** The same procedure with every mutation replaced by a re-run of
the unchanged case (stage 1 is shared: it is a re-run in both). Its distribution is what
the procedure reports when the mutations change nothing that matters to the agent, so a
root-cause share is evidence of that cause only as far as it exceeds its baseline. (For an
agent that answers the same case the same way every time, the baseline's mutation stages
are 0%: then it cannot separate a cause from sensitivity to any rewording at all.) The
Probability stage is the same in both, so it equals its baseline by construction. Every
other cause, and every word Phrasing names, is tested against its baseline: paired by case,
a one-sided exact McNemar test (the discordant cases are Binomial(n, 1/2) when the mutation
changes nothing that matters) and Newcombe's score CI of the difference — exact arithmetic,
so the same rows give the same figures.

Re-runs use fresh trial numbers (``RERUN_TRIAL`` and up for the procedure, ``CONTROL_TRIAL``
and up for the baseline), so they are new samples and the record/replay cache does not
simply repeat the failing answer. A re-run that ends in an infrastructure failure is tried
again (``INFRA_TRIES`` in all) and never counts as an agent failure; if the service keeps
failing the dissection stops with nothing recorded for that case. Each settled case is
appended to its run's ``dissect.jsonl`` at once, with the settings it was dissected under;
running the command again with the same settings skips it (the last row for a case wins).
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import PlanprobeError
from ..runner.engine import RunConfig, run_episode
from ..runner.store import RunStore
from ..schema import Case
from ..suites.registry import get_family
from .stats import (
    holm_adjust,
    mcnemar_exact_greater,
    paired_difference_ci,
    wilson_interval,
)
from .sweep import SWEEP_FILE, read_sweep, run_dir

CAUSES = ("Probability", "Phrasing", "Terminal", "Topic", "Structure", "Constraint")
STAGES = (("Terminal", "terminal"), ("Topic", "topic"), ("Structure", "structure"))
RERUNS = 3  # Alg. 2, lines 1-6
RERUN_TRIAL = 1000
CONTROL_TRIAL = 2000
INFRA_TRIES = 3
DEFAULT_SAMPLE = 100  # §6.2: "we randomly sample 100 errors"
DISSECT_FILE = "dissect.jsonl"
BASELINE_METHOD = ("the same procedure with every mutation replaced by a re-run of the unchanged case "
                   "(the Probability stage is shared)")
PROBABILITY_NOTE = ("Probability equals its baseline by construction: both procedures begin with the same re-runs "
                    "of the unchanged case, so it is not tested")
TEST_METHOD = ("one-sided exact McNemar test (binomial on the discordant cases) that the cause's share exceeds its "
               "chance baseline's, paired by case; 95% CI of the difference by Newcombe's paired score method")


class DissectInfraError(PlanprobeError):
    """The model service kept failing on a re-run: the case cannot be settled now."""


@dataclass
class Scope:
    """Where the failures to dissect come from."""

    description: str
    runs: list[Path]
    max_actions: int | None = None


def dissection_scope(path: Path, max_actions: int | None = None) -> Scope:
    """A sweep directory (``sweep.json``): its runs with n ≤ the limit (or ≤ ``max_actions``);
    a run directory: all its cases (or those with at most ``max_actions`` actions)."""
    path = Path(path)
    if not (path / SWEEP_FILE).exists():  # a run directory (RunStore says so if it is not one)
        where = "all its cases" if max_actions is None else f"its cases of at most {max_actions} actions"
        return Scope(f"run {path}: {where}", [path], max_actions)
    data = read_sweep(path)
    tested = [p["actions"] for p in data["points"]]
    if not tested:
        raise PlanprobeError(f"{path}: the sweep has no finished action count yet")
    if max_actions is not None:
        top, why = max_actions, f"n ≤ {max_actions} (--max-actions)"
    elif data.get("planning_limit") is not None:
        top, why = data["planning_limit"], f"n ≤ {data['planning_limit']}, the planning limit"
    elif data.get("stopped_by_infra_at") is not None:
        raise PlanprobeError(f"{path}: the sweep stopped at n = {data['stopped_by_infra_at']} on infrastructure "
                             "failures, so its limit is unknown; finish the sweep first, or pass --max-actions")
    else:
        top, why = max(tested), f"n ≤ {max(tested)} (the limit was not reached up to n = {max(tested)})"
    runs = [run_dir(path, n) for n in tested if n <= top]
    return Scope(f"sweep {path}: {why}", runs, None)


def failures_within(scope: Scope) -> list[tuple[Path, Case]]:
    """Every failed case of the scope (a failed result that is not an infrastructure failure),
    ordered by run and case id, so the sample does not depend on the store's row order."""
    out: list[tuple[Path, Case]] = []
    seen: dict[str, Path] = {}
    for run in scope.runs:
        store = RunStore(run)
        try:
            failed = {cid for cid, passed, infra in store.db.execute("SELECT case_id, passed, infra FROM results")
                      if not passed and not infra}
            cases = [c for c in store.cases() if c.id in failed]
        finally:
            store.close()
        for case in sorted(cases, key=lambda c: c.id):
            if case.id in seen:
                raise PlanprobeError(f"case id {case.id!r} is in both {seen[case.id]} and {run}: a sweep made by an "
                                     "older planprobe reused case ids across n; run the sweep again in a new directory")
            seen[case.id] = run
            actions = case.meta.difficulty.get("actions")
            if scope.max_actions is not None and actions is not None and actions > scope.max_actions:
                continue
            out.append((run, case))
    return out


def sample_failures(population: list, size: int, seed: int) -> list:
    """A uniform random sample (without replacement), in random order, the same for a seed."""
    rng = random.Random(f"planprobe/dissect/sample/{seed}")
    return rng.sample(population, min(size, len(population)))


class _Episodes:
    """Re-runs of one case under the run's settings, retrying infrastructure failures."""

    def __init__(self, agent, config: RunConfig):
        self.agent = agent
        self.config = config

    async def passes(self, case: Case, trial: int, log: list[dict]) -> bool:
        family = get_family(case.family)
        cause = "infrastructure failure"
        for _ in range(INFRA_TRIES):
            trace = await run_episode(case, self.agent, self.config.limits, trial, self.config.model)
            verdict = family.check(case, trace)
            if not verdict.infra:
                log.append({"case_id": case.id, "trial": trial, "passed": verdict.passed, "errors": verdict.errors})
                return verdict.passed
            cause = trace.errors[-1].message if trace.errors else cause
        raise DissectInfraError(f"case {case.id}: the model service failed {INFRA_TRIES} times on one re-run "
                                f"({cause[:200]}); nothing was recorded for it — run the same command again "
                                "to resume")


def _phrasing_mutants(case: Case, seed: int) -> list[tuple[str, Case]]:
    """The Phrasing stage's minimal pairs: for each connective word the case says (sorted),
    the case with that word reworded away; a word no slot can do without is left out."""
    from ..suites.constraints.mutations import case_connectives, rephrase_without

    rng = random.Random(f"planprobe/dissect/{seed}/{case.id}/phrasing")  # apart: Terminal's mutants stay as they were
    out: list[tuple[str, Case]] = []
    for word in case_connectives(case):
        try:
            out.append((word, rephrase_without(case, word, rng)))
        except PlanprobeError:
            continue
    return out


async def _procedure(case: Case, episodes: _Episodes, k: int, seed: int,
                     phrasing: bool = True) -> tuple[str, list[str], list[dict]]:
    """Alg. 2 on one failed case (with the Phrasing stage unless ``phrasing`` is off): its
    root cause, the connective words whose minimal pair passed, and every re-run it took."""
    from ..suites.constraints.mutations import MUTATIONS

    rng = random.Random(f"planprobe/dissect/{seed}/{case.id}")
    log: list[dict] = []
    trial = RERUN_TRIAL
    for _ in range(RERUNS):
        trial += 1
        if await episodes.passes(case, trial - 1, log):
            return "Probability", [], log
    if phrasing:  # every word is tried: a flaw of one word is fixed by its pair alone
        fixed = []
        for word, mutant in _phrasing_mutants(case, seed):
            trial += 1
            if await episodes.passes(mutant, trial - 1, log):
                fixed.append(word)
        if fixed:
            return "Phrasing", fixed, log
    for cause, kind in STAGES:
        for n in range(k):
            trial += 1
            if await episodes.passes(MUTATIONS[kind](case, rng, n), trial - 1, log):
                return cause, [], log
    return "Constraint", [], log


async def _control(case: Case, episodes: _Episodes, k: int, seed: int,
                   phrasing: bool = True) -> tuple[str, list[str], list[dict]]:
    """The chance baseline after a failed Probability stage: each mutation replaced by a
    re-run of the unchanged case (fresh trials), stages and counts as in the procedure; a
    Phrasing re-run that passes counts for the word whose minimal pair it stands in for."""
    log: list[dict] = []
    trial = CONTROL_TRIAL
    if phrasing:
        fixed = []
        for word, _ in _phrasing_mutants(case, seed):
            trial += 1
            if await episodes.passes(case, trial - 1, log):
                fixed.append(word)
        if fixed:
            return "Phrasing", fixed, log
    for cause, _ in STAGES:
        for _ in range(k):
            trial += 1
            if await episodes.passes(case, trial - 1, log):
                return cause, [], log
    return "Constraint", [], log


async def dissect_case(case: Case, agent, config: RunConfig, k: int, seed: int, baseline: bool = True,
                       done: dict | None = None, phrasing: bool = True) -> dict:
    """The row for one case: its cause and, with ``baseline``, its chance-baseline cause.
    ``done`` is an earlier row under the same settings whose procedure can be kept."""
    episodes = _Episodes(agent, config)
    if done is not None:
        cause, words, attempts = done["cause"], done.get("connectives", []), done["attempts"]
    else:
        cause, words, attempts = await _procedure(case, episodes, k, seed, phrasing)
    row: dict[str, Any] = {"case_id": case.id, "cause": cause, "attempts": attempts, "k": k, "seed": seed,
                           "phrasing": phrasing}
    if words:
        row["connectives"] = words
    if baseline:
        if cause == "Probability":  # the shared stage: a re-run passed, in both procedures
            row["baseline_cause"], row["baseline_attempts"] = "Probability", []
        else:
            base, base_words, row["baseline_attempts"] = await _control(case, episodes, k, seed, phrasing)
            row["baseline_cause"] = base
            if base_words:
                row["baseline_connectives"] = base_words
    return row


def read_rows(run: Path) -> dict[str, dict]:
    """case id -> its last row in ``dissect.jsonl`` (a torn last line of an interrupted run is skipped)."""
    path = Path(run) / DISSECT_FILE
    rows: dict[str, dict] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
                rows[str(row["case_id"])] = row
            except (ValueError, KeyError, TypeError):
                continue
    return rows


def _share_json(counts: Counter, total: int) -> dict[str, Any]:
    shares, cis = {}, {}
    for c in CAUSES:
        lo, hi = wilson_interval(counts.get(c, 0), total)
        shares[c] = round(counts.get(c, 0) / total, 6) if total else 0.0
        cis[c] = [round(lo, 6), round(hi, 6)]
    return {"causes": {c: counts.get(c, 0) for c in CAUSES}, "shares": shares, "ci95": cis}


def _sig(p: float) -> float:
    """A p-value to 6 significant digits (rounding to decimals would turn 1e-30 into 0)."""
    return float(f"{p:.6g}")


def paired_test(hits: list[bool], base_hits: list[bool]) -> dict[str, Any]:
    """A cause (or word) against its chance baseline on the same cases: the discordant
    counts, the one-sided exact McNemar p, and the difference of shares with its 95% CI."""
    both = sum(h and b for h, b in zip(hits, base_hits))
    first = sum(h and not b for h, b in zip(hits, base_hits))
    second = sum(b and not h for h, b in zip(hits, base_hits))
    neither = len(hits) - both - first - second
    lo, hi = paired_difference_ci(both, first, second, neither)
    total = len(hits)
    return {"discordant": [first, second], "p_value": _sig(mcnemar_exact_greater(first, second)),
            "difference": round((first - second) / total, 6) if total else 0.0,
            "difference_ci95": [round(lo, 6), round(hi, 6)]}


def significance(rows: list[dict]) -> dict[str, Any]:
    """Each cause's test against its chance baseline (Probability: equal by construction)."""
    out: dict[str, Any] = {"method": TEST_METHOD}
    for c in CAUSES:
        if c == "Probability":
            out[c] = {"by_construction": True, "note": PROBABILITY_NOTE}
            continue
        out[c] = paired_test([r["cause"] == c for r in rows], [r["baseline_cause"] == c for r in rows])
    return out


def connective_table(rows: list[dict], baseline: bool) -> list[dict[str, Any]]:
    """Each word whose minimal pair fixed a case: in how many cases (``cases``; ``alone``: the
    only word that did), the share with its Wilson CI and, with the baseline, its paired test
    against the re-run that stood in for its pair (p also Holm-adjusted over the words
    listed); most cases first."""
    total = len(rows)
    words = sorted({str(w) for r in rows for w in r.get("connectives", [])}
                   | ({str(w) for r in rows for w in r.get("baseline_connectives", [])} if baseline else set()))
    table: list[dict[str, Any]] = []
    for w in words:
        hits = [w in r.get("connectives", []) for r in rows]
        lo, hi = wilson_interval(sum(hits), total)
        entry: dict[str, Any] = {"word": w, "cases": sum(hits),
                                 "alone": sum(r.get("connectives") == [w] for r in rows),
                                 "share": round(sum(hits) / total, 6) if total else 0.0,
                                 "ci95": [round(lo, 6), round(hi, 6)]}
        if baseline:
            base_hits = [w in r.get("baseline_connectives", []) for r in rows]
            entry["baseline_cases"] = sum(base_hits)
            entry.update(paired_test(hits, base_hits))
        table.append(entry)
    if baseline:
        for entry, adjusted in zip(table, holm_adjust([e["p_value"] for e in table])):
            entry["p_holm"] = _sig(adjusted)
    table.sort(key=lambda e: (-e["cases"], e.get("p_value", 1.0), e["word"]))
    return table


@dataclass
class DissectReport:
    scope: str
    population: int  # failures within the limit
    requested: int  # --sample
    k: int
    seed: int
    rows: list[dict] = field(default_factory=list)  # settled rows, in sample order
    phrasing: bool = True

    @property
    def counts(self) -> Counter:
        return Counter(r["cause"] for r in self.rows)

    @property
    def baseline_counts(self) -> Counter | None:
        """None when some settled row has no baseline (dissected with --no-baseline)."""
        if not self.rows or any("baseline_cause" not in r for r in self.rows):
            return None
        return Counter(r["baseline_cause"] for r in self.rows)

    def to_json(self) -> dict[str, Any]:
        total = len(self.rows)
        base = self.baseline_counts
        return {
            "scope": self.scope, "failures_within_limit": self.population, "sample": self.requested,
            "cases": total, "k": self.k, "seed": self.seed, "phrasing": self.phrasing,
            **_share_json(self.counts, total),
            "baseline": None if base is None else {"method": BASELINE_METHOD, "probability": PROBABILITY_NOTE,
                                                   **_share_json(base, total)},
            "significance": None if base is None else significance(self.rows),
            "connectives": connective_table(self.rows, base is not None),
        }


def dissect_run(path: Path, agent, config: RunConfig, k: int = 3, sample: int = DEFAULT_SAMPLE, seed: int = 0,
                baseline: bool = True, max_actions: int | None = None, phrasing: bool = True,
                on_case: Callable[[dict], None] = lambda r: None,
                on_plan: Callable[[int, int], None] = lambda population, todo: None,
                workers: int = 1, recipe: Any = None, backend: str = "processes",
                address: str | None = None) -> DissectReport:
    """Dissect a seeded uniform sample of the failures within the limit (see the module doc).
    Settled rows are kept per run in ``dissect.jsonl``; rows under other settings are redone.
    With ``workers`` > 1 and a ``recipe`` (scale.WorkerRecipe) the cases are dissected on that
    many processes (or Ray actors with ``backend`` "ray", even one), each building its own agent;
    rows are written in the same order."""
    scope = dissection_scope(path, max_actions)
    population = failures_within(scope)
    for _, case in population:
        if case.family != "constraints":
            raise PlanprobeError(f"case {case.id} is of family {case.family!r}: dissect mutates constraint cases "
                                 "(seed Alg. 2) only")
    chosen = sample_failures(population, sample, seed)
    report = DissectReport(scope.description, len(population), sample, k, seed, phrasing=phrasing)
    existing = {run: read_rows(run) for run in scope.runs}

    def usable(row: dict | None) -> dict | None:
        """An earlier row under the same settings (its procedure can be kept), else None."""
        return (row if row is not None and row.get("k") == k and row.get("seed") == seed
                and row.get("phrasing", False) == phrasing else None)

    def settled(row: dict | None) -> bool:
        return row is not None and (not baseline or "baseline_cause" in row)

    todo = [(case, usable(existing[run].get(case.id))) for run, case in chosen
            if not settled(usable(existing[run].get(case.id)))]
    on_plan(len(population), len(todo))
    remote: Iterator[dict] | None = None
    if recipe is not None and todo and (backend == "ray" or (workers > 1 and len(todo) > 1)):
        from ..scale.pool import ordered_map

        remote = ordered_map(_dissect_elsewhere, ((recipe, config, k, seed, baseline, c, d, phrasing) for c, d in todo),
                             workers, chunk=1, what="dissection", backend=backend, address=address)
    for run, case in chosen:
        done = usable(existing[run].get(case.id))
        if done is not None and settled(done):
            report.rows.append(done)
            continue
        if remote is not None:
            row = next(remote)
        else:
            row = asyncio.run(dissect_case(case, agent, config, k, seed, baseline, done, phrasing))
        with open(Path(run) / DISSECT_FILE, "a", encoding="utf-8") as f:
            f.write(json.dumps(row, sort_keys=True) + "\n")
        report.rows.append(row)
        on_case(row)
    return report


_worker_agents: dict[str, Any] = {}


def _dissect_elsewhere(item: tuple) -> dict:
    """One case's dissection in a worker process; the agent is built once per process."""
    recipe, config, k, seed, baseline, case, done, phrasing = item
    key = repr(recipe)
    if key not in _worker_agents:
        _worker_agents[key] = recipe.build(config.seed)[0]
    return asyncio.run(dissect_case(case, _worker_agents[key], config, k, seed, baseline, done, phrasing))
