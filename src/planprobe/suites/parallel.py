"""Generating large suites on every core, in order.

Cases are independent (each has its own random stream), so chunks of indices
can be produced by worker processes and written in index order: the suite is
byte-identical whatever the number of workers. At most two chunks per worker
are in flight, so memory stays flat however many cases are asked for.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from functools import partial

from ..schema import Case

ChunkFn = Callable[[int, int], list[str]]  # (start, stop) -> serialized cases, in order
MakeCase = Callable[[int], Case]  # index -> case; a module-level function or a partial of one (pickled to workers)


def auto_workers(n: int, requested: int | None = None) -> int:
    """Workers to use: as requested, else every core for suites big enough to gain."""
    if requested is not None:
        return max(1, requested)
    return 1 if n < 2000 else max(1, min(os.cpu_count() or 1, 8))


def ordered_chunks(fn: ChunkFn, n: int, workers: int, chunk: int = 1000, start: int = 0) -> Iterator[str]:
    stop = start + n
    if workers <= 1 or n <= chunk:
        for lo in range(start, stop, chunk):
            yield from fn(lo, min(stop, lo + chunk))
        return
    bounds = iter(range(start, stop, chunk))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        in_flight: deque = deque()
        for first in bounds:
            in_flight.append(pool.submit(fn, first, min(stop, first + chunk)))
            if len(in_flight) >= 2 * workers:
                break
        while in_flight:
            lines = in_flight.popleft().result()
            following = next(bounds, None)
            if following is not None:
                in_flight.append(pool.submit(fn, following, min(stop, following + chunk)))
            yield from lines


def case_lines(make: MakeCase, start: int, stop: int) -> list[str]:
    """Cases start..stop-1 as suite lines (JSON); what a worker process produces."""
    return [make(i).model_dump_json() for i in range(start, stop)]


def indexed_cases(make: MakeCase, n: int, start: int = 0) -> Iterator[Case]:
    """Cases start..start+n-1, one at a time, in this process."""
    for i in range(start, start + n):
        yield make(i)


def suite_lines(make: MakeCase, n: int, workers: int | None = None, chunk: int = 1000) -> Iterator[str]:
    """A suite of ``n`` cases as JSON lines, produced on ``workers`` processes (default:
    every core for large suites), in index order and byte-identical to one process."""
    return ordered_chunks(partial(case_lines, make), n, auto_workers(n, workers), chunk)
