"""One run on many workers: plan the shards, run them on a backend, merge as results arrive.

The coordinator holds the run directory's lock (runner/store.py) for the whole run and
is the only process that writes the run's store. Resuming is the same as for one
process: whatever the store lacks (or holds as infra with attempts left) is pending,
and only that is sharded out again; shard stores a killed run left behind under
``RUN_DIR/shards`` are merged first, so their finished cases are not run again.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import PlanprobeError
from ..models.ratelimit import FileLimiter, RateLimits
from ..runner.engine import OnResult, RunConfig
from ..runner.store import RunStore
from .merge import merge_result, merge_shard_dirs
from .work import WorkerRecipe, plan_shards

BACKENDS = ("processes", "ray")
SHARDS_DIR = "shards"
RATE_FILE = "ratelimit.json"


@dataclass(frozen=True)
class ScaleOptions:
    workers: int = 1
    backend: str = "processes"
    address: str | None = None  # ray: an existing cluster (host:port); None starts a local one
    rate: RateLimits = field(default_factory=RateLimits)
    # where processes share the pacing state: the run directory's RATE_FILE (removed after the
    # run) unless a command running several stores one after another (sweep) names its own
    rate_file: Path | None = None
    shard_size: int | None = None  # items per shard (default: about four shards per worker)
    max_shard_attempts: int = 3  # a shard that kills its worker this often stops the run

    def check(self) -> None:
        if self.backend not in BACKENDS:
            raise PlanprobeError(f"--backend must be one of {', '.join(BACKENDS)}, not {self.backend!r}")
        if self.workers < 1:
            raise PlanprobeError("--workers must be at least 1")
        if self.address and self.backend != "ray":
            raise PlanprobeError("--address is for --backend ray")
        for name, value in (("--rpm", self.rate.rpm), ("--tpm", self.rate.tpm)):
            if value is not None and value <= 0:
                raise PlanprobeError(f"{name} must be above 0")


def _warn(line: str) -> None:
    print(f"warning: {line}", file=sys.stderr, flush=True)


def run_scaled(store: RunStore, recipe: WorkerRecipe, config: RunConfig, options: ScaleOptions,
               on_result: OnResult | None = None, warn: Callable[[str], None] = _warn) -> int:
    """Run every pending (case, trial) of ``store`` on ``options.workers`` workers;
    returns how many new results were stored. ``config.concurrency`` is the run's total:
    each worker runs its share of it, so an endpoint sees at most that many calls at once."""
    options.check()
    root = store.directory / SHARDS_DIR
    new = 0

    def got(raw_trace: str, raw_verdict: str) -> None:
        nonlocal new
        stored = merge_result(store, raw_trace, raw_verdict)
        if stored is not None:
            new += 1
            if on_result is not None:
                on_result(*stored)

    def merge_left_over() -> None:
        nonlocal new
        before = store.result_count()
        merge_shard_dirs(store, root)
        new += store.result_count() - before

    merge_left_over()
    per_worker = max(1, -(-config.concurrency // options.workers))
    wconfig = replace(config, concurrency=per_worker)
    shards = list(plan_shards(store, config, options.workers, options.shard_size))
    if not shards:
        return new
    try:
        if options.backend == "ray":
            from .ray_backend import run_on_ray

            run_on_ray(shards, recipe, wconfig, store.directory, options, got, warn)
        else:
            from .processes import run_on_processes

            rate_file = options.rate_file or store.directory / RATE_FILE
            limiter = FileLimiter(rate_file, options.rate) if options.rate else None
            run_on_processes(iter(shards), recipe, wconfig, root, options.workers, got, warn,
                             options.max_shard_attempts, limiter)
    finally:
        merge_left_over()
        if options.rate_file is None:
            (store.directory / RATE_FILE).unlink(missing_ok=True)
    return new


def runs_elsewhere(options: ScaleOptions | None) -> bool:
    """Whether a run goes through the coordinator (workers or Ray) rather than in this process."""
    return options is not None and (options.workers > 1 or options.backend == "ray")


def install_local_limits(options: ScaleOptions | None) -> None:
    """Rate limits (--rpm/--tpm) for a run that stays in this process."""
    if options is not None and options.rate and not runs_elsewhere(options):
        from ..models.ratelimit import LocalLimiter, install

        install(LocalLimiter(options.rate))


@contextmanager
def local_limits(options: ScaleOptions | None) -> Iterator[None]:
    """``install_local_limits`` for the duration of a block (a command called in a process
    that lives on, e.g. by the tests, leaves no pacing behind)."""
    from ..models.ratelimit import current, install

    before = current()
    install_local_limits(options)
    try:
        yield
    finally:
        install(before)


def scaled_runner(options: ScaleOptions | None, recipe: WorkerRecipe, config: RunConfig,
                  warn: Callable[[str], None] = _warn) -> Callable[[RunStore, OnResult | None], int] | None:
    """``runner(store, on_result)`` for ``runner.suite_run.run_suite`` (and the sweep, which runs
    one store after another): a store's pending cases on the workers. None when the run stays
    in this process (the caller's agent runs them)."""
    if not runs_elsewhere(options):
        return None
    assert options is not None
    chosen = options
    return lambda store, on_result: run_scaled(store, recipe, config, chosen, on_result, warn=warn)
