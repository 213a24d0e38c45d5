"""The worker's side: run one shard into its own store, and hand each result on.

A shard store is an ordinary run directory (runner/store.py) holding the shard's
cases, under ``ROOT/<shard key>``. Every result is committed there before it is
handed on, so a worker killed mid-shard loses only the cases it was running: the
next attempt at the shard (a replacement process, a Ray retry, a resumed run) first
hands on what the store already holds and runs the rest. Nothing here writes to the
run's own store; the coordinator does (merge.py).
"""

from __future__ import annotations

import asyncio
import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import PlanprobeError
from ..runner.engine import RunConfig, _cancel_requested, open_run, run_episode
from ..runner.findings import judge
from ..runner.store import RunStore
from ..schema import Case, Trace, TraceStatus, Verdict
from .work import Shard, WorkerRecipe

Emit = Callable[[str, str], None]  # (trace JSON, verdict JSON)

# Test hook: "INDEX:N" makes the store of shard INDEX fail with ENOSPC after N results,
# as a full disk under one shard would (a real tiny filesystem is not available in tests).
FULL_DISK_HOOK = "PLANPROBE_TEST_FULL_SHARD"


class ShardRunner:
    """Runs shards for one worker: the agent is built once, on the worker's event loop,
    and reused for every shard it runs."""

    def __init__(self, recipe: WorkerRecipe, config: RunConfig, root: Path):
        self.recipe = recipe
        self.config = config
        self.root = Path(root)
        self._agent: Any = None
        self._models: Any = None

    async def aclose(self) -> None:
        if self._models is not None:
            await self._models.aclose()
            self._models = None

    async def run(self, shard: Shard, emit: Emit) -> int:
        """Run the shard's items not yet in its store; emit every result of its items,
        stored before or now. Returns how many ran now."""
        if self._agent is None:
            self._agent, self._models = self.recipe.build(self.config.seed)
        items = {(i.case_id, i.trial): i for i in shard.items}
        cases: dict[str, Case] = {}
        for item in shard.items:
            if item.case_id not in cases:
                cases[item.case_id] = Case.model_validate_json(item.case_json)
        trials = 1 + max(i.trial for i in shard.items)
        config = RunConfig(agent=self.config.agent, model=self.config.model, trials=trials,
                           concurrency=self.config.concurrency, limits=self.config.limits, seed=self.config.seed,
                           model_params=self.config.model_params, models=self.config.models)
        directory = self.root / shard.key
        store = open_run(directory, cases.values(), config, suite_name=f"shard {shard.index}")
        try:
            stored = 0
            for raw_trace, raw_verdict in store.raw_results():
                trace = Trace.model_validate_json(raw_trace)
                known = items.get((trace.case_id, trace.trial))
                if known is None:
                    continue
                if trace.status != TraceStatus.INFRA_ERROR or int(trace.meta.get("attempt", 1)) > known.attempts:
                    emit(raw_trace, raw_verdict)
                    items.pop((trace.case_id, trace.trial))
            todo = [i for i in shard.items if (i.case_id, i.trial) in items]
            full_after = _full_disk_after(shard.index)
            queue = iter(todo)

            async def worker() -> None:
                nonlocal stored
                for item in queue:
                    case = cases[item.case_id]
                    trace = await run_episode(case, self._agent, config.limits, item.trial, config.model,
                                              config.models)
                    if item.attempts:
                        trace.meta["attempt"] = item.attempts + 1
                        trace.meta["earlier_infra"] = list(item.causes)
                    verdict = judge(case, trace)
                    if full_after is not None and stored >= full_after:
                        err = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                        raise PlanprobeError(f"shard {shard.index} ({directory}): cannot store the result of case "
                                             f"{case.id!r}: {err}")
                    _store(store, directory, shard.index, trace, verdict)
                    stored += 1
                    emit(trace.model_dump_json(), verdict.model_dump_json())
                    await asyncio.sleep(0)
                    if _cancel_requested():
                        raise asyncio.CancelledError

            tasks = [asyncio.create_task(worker()) for _ in range(max(1, min(config.concurrency, len(todo))))]
            try:
                await asyncio.gather(*tasks)
            finally:
                for t in tasks:
                    t.cancel()
            return len(todo)
        finally:
            store.close()


def _store(store: RunStore, directory: Path, index: int, trace: Trace, verdict: Verdict) -> None:
    try:
        store.add_result(trace, verdict)
    except OSError as exc:
        raise PlanprobeError(f"shard {index} ({directory}): cannot store the result of case {trace.case_id!r}: "
                             f"{exc}") from None


def _full_disk_after(index: int) -> int | None:
    spec = os.environ.get(FULL_DISK_HOOK, "")
    if not spec:
        return None
    shard, _, after = spec.partition(":")
    return int(after or 0) if shard.strip() == str(index) else None
