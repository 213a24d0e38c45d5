"""Error dissection (seed PDoctor Alg. 2): why did a case fail?

For each failed case of a run, in order, stopping at the first change that makes
the agent pass:

1. Probability — the same case again (up to 3 re-runs);
2. Terminal — the same skeleton with other terminal words (up to K mutants);
3. Topic — the same skeleton about another job (up to K);
4. Structure — the same constraint set stated in another structure (up to K);
5. otherwise Constraint — the constraint set itself defeats the agent.

Re-runs use fresh trial numbers (1000 and up), so they are new samples and the
record/replay cache does not simply repeat the failing answer. Each dissected
case is appended to ``dissect.jsonl`` as soon as it is settled; running the
command again skips those cases, so nothing is lost when it is interrupted.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from pathlib import Path
from typing import Callable, Optional

from ..runner.engine import RunConfig, run_episode
from ..runner.store import RunStore
from ..schema import Case
from ..suites.registry import get_family

CAUSES = ("Probability", "Terminal", "Topic", "Structure", "Constraint")
RERUN_TRIAL = 1000


def failed_cases(store: RunStore) -> list[Case]:
    failed = {cid for cid, passed, infra in store.db.execute("SELECT case_id, passed, infra FROM results")
              if not passed and not infra}
    return [c for c in store.cases() if c.id in failed]


async def dissect_case(case: Case, agent, config: RunConfig, k: int, rng: random.Random) -> dict:
    from ..suites.constraints.mutations import MUTATIONS

    family = get_family(case.family)
    attempts = []
    trial = RERUN_TRIAL

    async def passes(c: Case) -> bool:
        nonlocal trial
        trace = await run_episode(c, agent, config.limits, trial, config.model)
        trial += 1
        verdict = family.check(c, trace)
        attempts.append({"case_id": c.id, "passed": verdict.passed, "errors": verdict.errors, "infra": verdict.infra})
        return verdict.passed

    for _ in range(3):
        if await passes(case):
            return {"case_id": case.id, "cause": "Probability", "attempts": attempts}
    for cause, kind in (("Terminal", "terminal"), ("Topic", "topic"), ("Structure", "structure")):
        for n in range(k):
            if await passes(MUTATIONS[kind](case, rng, n)):
                return {"case_id": case.id, "cause": cause, "attempts": attempts}
    return {"case_id": case.id, "cause": "Constraint", "attempts": attempts}


def dissect_run(run_dir: Path, agent, config: RunConfig, k: int = 3, limit: Optional[int] = None, seed: int = 0,
                on_case: Callable[[dict], None] = lambda r: None) -> Counter:
    """Dissect every failed case of the run (or the first ``limit``); returns the cause counts
    over all cases dissected so far, including earlier invocations."""
    path = Path(run_dir) / "dissect.jsonl"
    done: dict[str, dict] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                done[row["case_id"]] = row
    store = RunStore(run_dir)
    try:
        cases = failed_cases(store)
    finally:
        store.close()
    if limit is not None:
        cases = cases[:limit]
    for case in cases:
        if case.id in done:
            continue
        rng = random.Random(f"planprobe/dissect/{seed}/{case.id}")
        row = asyncio.run(dissect_case(case, agent, config, k, rng))
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(row, sort_keys=True) + "\n")
        done[case.id] = row
        on_case(row)
    wanted = {c.id for c in cases}
    return Counter(r["cause"] for cid, r in done.items() if cid in wanted)
