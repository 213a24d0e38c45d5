"""CPU-bound work over local processes (or Ray: ray_pool.py), results in input order.

For work that is pure computation on plain data (labelling failed traces, re-judging):
items go out in chunks to a pool of processes and come back in the order they went in,
so the output is byte-identical whatever the number of workers. At most two chunks per
worker are in flight, so memory stays flat however many items there are. A worker that
dies stops the work with one line (nothing is half-written by the pool itself)."""

from __future__ import annotations

import multiprocessing as mp
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from itertools import islice
from typing import Any, TypeVar

from ..errors import PlanprobeError

T = TypeVar("T")
R = TypeVar("R")


def _apply(fn: Callable[[Any], Any], chunk: list[Any]) -> list[Any]:
    return [fn(item) for item in chunk]


def ordered_map(fn: Callable[[T], R], items: Iterable[T], workers: int, chunk: int = 16,
                what: str = "the work", backend: str = "processes", address: str | None = None) -> Iterator[R]:
    """``map(fn, items)`` on ``workers`` processes, or on as many Ray actors with ``backend``
    "ray" (``fn`` must be a module-level function)."""
    if backend == "ray":
        from .ray_pool import ray_ordered_map

        yield from ray_ordered_map(fn, items, workers, chunk, what, address)
        return
    it = iter(items)
    if workers <= 1:
        for item in it:
            yield fn(item)
        return
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn"))
    in_flight: deque[Future[list[Any]]] = deque()
    try:
        def submit() -> bool:
            batch = list(islice(it, chunk))
            if batch:
                in_flight.append(pool.submit(_apply, fn, batch))
            return bool(batch)

        while len(in_flight) < 2 * workers and submit():
            pass
        while in_flight:
            try:
                done = in_flight.popleft().result()
            except BrokenProcessPool:
                raise PlanprobeError(f"a worker process died during {what} (killed, or out of memory); "
                                     "run the command again, with fewer --workers if memory is short") from None
            submit()
            yield from done
    finally:
        for f in in_flight:
            f.cancel()
        pool.shutdown(wait=True, cancel_futures=True)
