"""``ordered_map`` on a Ray cluster: the per-case commands (label, dissect, debug) with
``--backend ray``.

``--workers`` actors (one CPU each) take chunks in turn, at most two each in flight, and
the results are read back in the order the chunks went out, so the output is the same as
in one process. An actor keeps what its function caches between chunks (the agent a
dissection builds once), as a worker process does. An actor that dies is restarted by Ray
and its chunks are run again (``TASK_RETRIES`` times): the functions are pure — they read
a run and return what to store; only the caller writes — so a chunk run twice stores
nothing twice."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any, TypeVar

from ..errors import PlanprobeError
from .ray_backend import TASK_RETRIES, connect

T = TypeVar("T")
R = TypeVar("R")


class _Mapper:
    """One Ray actor: applies a function to the chunks it is sent."""

    def apply(self, fn: Callable[[Any], Any], chunk: list[Any]) -> list[Any]:
        return [fn(item) for item in chunk]


def ray_ordered_map(fn: Callable[[T], R], items: Iterable[T], workers: int, chunk: int, what: str,
                    address: str | None = None) -> Iterator[R]:
    """``map(fn, items)`` on ``workers`` Ray actors, results in input order (``fn`` must be
    importable where the actors run: a module-level function of planprobe or of a module
    installed on every node)."""
    ray, _local = connect(workers, address)
    mapper = ray.remote(num_cpus=1, max_restarts=TASK_RETRIES, max_task_retries=TASK_RETRIES)(_Mapper)
    actors = [mapper.remote() for _ in range(max(1, workers))]
    it = iter(items)
    in_flight: deque[Any] = deque()
    sent = 0

    def submit() -> bool:
        nonlocal sent
        batch = list(islice(it, chunk))
        if batch:
            in_flight.append(actors[sent % len(actors)].apply.remote(fn, batch))
            sent += 1
        return bool(batch)

    try:
        while len(in_flight) < 2 * len(actors) and submit():
            pass
        while in_flight:
            try:
                done = ray.get(in_flight.popleft())
            except ray.exceptions.RayTaskError as exc:  # the function raised: the same error as in one process
                cause = getattr(exc, "cause", None)
                if isinstance(cause, Exception):
                    raise cause from None
                raise PlanprobeError(f"{what} failed on Ray: {str(exc).strip().splitlines()[-1]}") from None
            except ray.exceptions.RayActorError as exc:
                raise PlanprobeError(f"a Ray worker died {TASK_RETRIES + 1} times during {what} "
                                     f"({type(exc).__name__}); run the command again") from None
            submit()
            yield from done
    finally:
        for actor in actors:
            ray.kill(actor)
