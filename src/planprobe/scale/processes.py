"""Shards on local worker processes.

Each worker process builds the agent once and runs shards from a task queue on one
event loop, sending every result (already in its shard store) back on a result queue.
A worker that dies (killed, out of memory, a crash in native code) is noticed by the
coordinator, which starts a replacement and gives it the dead worker's shard again:
the shard store hands back what was finished and only the rest runs. A shard that
kills its worker ``max_shard_attempts`` times stops the run (resumable).
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import queue as queue_mod
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import PlanprobeError
from ..runner.engine import RunConfig
from .shard import ShardRunner
from .work import Shard, WorkerRecipe

Message = tuple[Any, ...]


def _worker_main(wid: int, recipe: WorkerRecipe, config: RunConfig, root: str, tasks: Any, results: Any,
                 limiter: Any) -> None:
    """A worker process: shards from ``tasks`` until None, results to ``results``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator handles Ctrl-C and stops the workers
    if limiter is not None:
        from ..models.ratelimit import install

        install(limiter)
    runner = ShardRunner(recipe, config, Path(root))

    async def loop() -> None:
        aloop = asyncio.get_running_loop()
        try:
            while True:
                shard = await aloop.run_in_executor(None, tasks.get)
                if shard is None:
                    return
                results.put(("start", wid, shard.key))
                key: str = shard.key

                def emit(t: str, v: str, key: str = key) -> None:
                    results.put(("result", wid, key, t, v))

                try:
                    await runner.run(shard, emit)
                except PlanprobeError as exc:
                    results.put(("fail", wid, shard.key, type(exc).__name__, str(exc)))
                    return
                except Exception as exc:  # noqa: BLE001 — a bug: reported by the coordinator as one line, not lost
                    results.put(("fail", wid, shard.key, "Exception", f"{type(exc).__name__}: {exc}"))
                    return
                results.put(("done", wid, shard.key))
        finally:
            await runner.aclose()

    asyncio.run(loop())


@dataclass
class _Worker:
    process: Any
    shard: str | None = None


def run_on_processes(shards: Iterator[Shard], recipe: WorkerRecipe, config: RunConfig, root: Path, workers: int,
                     on_result: Callable[[str, str], None], warn: Callable[[str], None],
                     max_shard_attempts: int = 3, limiter: Any = None) -> None:
    """Run every shard on ``workers`` processes; ``on_result`` gets each result as it
    comes back (the coordinator merges it). Raises PlanprobeError (one line) when a
    worker reports a failure or a shard keeps killing its worker."""
    ctx = mp.get_context("spawn")  # never fork a process that holds threads, sockets or a loaded model
    tasks: Any = ctx.Queue()
    results: Any = ctx.Queue()
    by_key: dict[str, Shard] = {}
    attempts: dict[str, int] = {}
    pending = 0
    for shard in shards:
        by_key[shard.key] = shard
        tasks.put(shard)
        pending += 1
    if not pending:
        return
    workers = max(1, min(workers, pending))
    pool: dict[int, _Worker] = {}
    next_id = 0

    def start() -> None:
        nonlocal next_id
        p = ctx.Process(target=_worker_main, args=(next_id, recipe, config, str(root), tasks, results, limiter),
                        daemon=True, name=f"planprobe-worker-{next_id}")
        p.start()
        pool[next_id] = _Worker(p)
        next_id += 1

    for _ in range(workers):
        start()
    failure: PlanprobeError | None = None
    try:
        while pending and failure is None:
            try:
                msg: Message = results.get(timeout=0.5)
            except queue_mod.Empty:
                for wid, w in list(pool.items()):
                    if w.process.is_alive():
                        continue
                    w.process.join()
                    del pool[wid]
                    lost = w.shard
                    code = w.process.exitcode
                    how = f"signal {-code}" if code is not None and code < 0 else f"exit status {code}"
                    if lost is None:
                        if pending:
                            start()
                        continue
                    attempts[lost] = attempts.get(lost, 1) + 1
                    shard = by_key[lost]
                    if attempts[lost] > max_shard_attempts:
                        failure = PlanprobeError(
                            f"shard {shard.index} killed its worker {max_shard_attempts} times (last: {how}); "
                            "its finished cases are kept — re-run the same command to resume")
                        break
                    warn(f"worker {wid} (pid {w.process.pid}) died ({how}) running shard {shard.index}; "
                         "its finished cases are kept and the rest run again")
                    tasks.put(shard)
                    start()
                continue
            kind, wid = msg[0], msg[1]
            if kind == "start":
                if wid in pool:
                    pool[wid].shard = msg[2]
            elif kind == "result":
                on_result(msg[3], msg[4])
            elif kind == "done":
                if wid in pool:
                    pool[wid].shard = None
                pending -= 1
            elif kind == "fail":
                failure = PlanprobeError(msg[4])
                if msg[3] == "ServiceUnusableError":
                    from ..errors import ServiceUnusableError

                    failure = ServiceUnusableError(msg[4])
    finally:
        for _ in pool:
            tasks.put(None)
        _drain(results, on_result, pool)
        for w in pool.values():
            w.process.join(timeout=5 if failure is None else 0.5)
            if w.process.is_alive():
                w.process.terminate()
                w.process.join(timeout=5)
            if w.process.is_alive():
                w.process.kill()
                w.process.join()
        tasks.cancel_join_thread()
        results.cancel_join_thread()
    if failure is not None:
        raise failure


def _drain(results: Any, on_result: Callable[[str, str], None], pool: dict[int, _Worker]) -> None:
    """Results already sent when the run stops are still merged (they are in shard stores
    too; this only spares re-reading them)."""
    while True:
        try:
            msg = results.get(timeout=0.05)
        except (queue_mod.Empty, OSError, ValueError):
            return
        if msg[0] == "result":
            on_result(msg[3], msg[4])
