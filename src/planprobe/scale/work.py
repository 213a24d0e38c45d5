"""What a worker needs to run a shard: how to build the agent, and its share of the work.

Both travel to another process (or another machine) by pickling, so they hold only
plain data: the agent is rebuilt from its command-line recipe in each worker, never
sent as a live object (models hold sockets, threads, a loaded GGUF file)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..runner.engine import RunConfig, infra_retries
from ..runner.store import RunStore


@dataclass(frozen=True)
class WorkerRecipe:
    """The agent as the user named it: ``make_agent(agent, seed, model=…, params=…)``."""

    agent: str
    model_spec: str | None = None
    model_options: Any = None  # models.ModelOptions (plain dataclass)
    params: Any = None  # models.base.ChatParams

    def build(self, seed: int) -> tuple[Any, Any]:
        """(agent, models or None); the caller closes the models."""
        from ..agents import make_agent

        if not self.model_spec:
            return make_agent(self.agent, seed), None
        from ..models import ModelOptions, make_model
        from ..models.roles import build_role_models

        options = self.model_options or ModelOptions()
        models = build_role_models(self.model_spec, lambda spec: make_model(spec, options))
        return make_agent(self.agent, seed, model=models, params=self.params), models


@dataclass(frozen=True)
class WorkItem:
    """One (case, trial) to run; ``attempts``/``causes`` carry an earlier infra result's history."""

    case_json: str
    case_id: str
    trial: int
    attempts: int = 0
    causes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Shard:
    """A slice of the pending work. ``key`` names it by the run's settings and its items,
    so the same slice of the same run always lands in the same shard store."""

    key: str
    index: int
    items: tuple[WorkItem, ...] = field(default=())


def settings_key(store: RunStore, config: RunConfig) -> str:
    """The run's identity (suite digest plus the settings a resume must match)."""
    meta = store.meta()
    ident = {"suite": meta.get("suite_sha256", ""), **config.identity(),
             "limits": [config.limits.max_iterations, config.limits.timeout_s]}
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()


def plan_shards(store: RunStore, config: RunConfig, workers: int, size: int | None = None) -> Iterator[Shard]:
    """The pending (case, trial) pairs of ``store`` in suite order, cut into shards of
    ``size`` items (default: about four shards per worker, at most 256 items each, so a
    dead worker costs little and the last shards balance the load)."""
    earlier = infra_retries(store, config)
    total = store.pending_count(config.trials) + len(earlier)
    if size is None:
        size = max(1, min(256, -(-total // max(1, 4 * workers))))
    settings = settings_key(store, config)
    batch: list[WorkItem] = []
    index = 0
    for case, trial in store.pending(config.trials, retry=frozenset(earlier)):
        attempts, causes = earlier.get((case.id, trial), (0, []))
        batch.append(WorkItem(case.model_dump_json(), case.id, trial, attempts, tuple(causes)))
        if len(batch) >= size:
            yield _shard(settings, index, batch)
            index += 1
            batch = []
    if batch:
        yield _shard(settings, index, batch)


def _shard(settings: str, index: int, items: list[WorkItem]) -> Shard:
    h = hashlib.sha256(settings.encode())
    for item in items:
        h.update(f"\n{item.case_id}\t{item.trial}\t{item.attempts}".encode())
    return Shard(key=h.hexdigest()[:20], index=index, items=tuple(items))
