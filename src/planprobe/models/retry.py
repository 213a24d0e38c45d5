"""Retrying model calls that failed for reasons outside the agent.

Exponential backoff with full jitter, bounded both in attempts and in total
time, honouring a server's Retry-After. What is retried: 408/409/429 and 5xx
answers, timeouts, dropped connections and unreadable responses. When the
budget is spent the call raises ``InfrastructureError``, which the engine
records as ``infra`` — never as a planning failure.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from ..errors import InfrastructureError

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 6
    max_total_s: float = 120.0
    base_s: float = 0.5
    cap_s: float = 20.0

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """Full jitter: uniform in [0, min(cap, base * 2^attempt)]."""
        return rng.uniform(0, min(self.cap_s, self.base_s * 2 ** attempt))


class Retryable(Exception):
    """A failure worth another try; ``retry_after`` is the server's hint in seconds."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: a number, or an HTTP date (relative to
    ``now``, the epoch time, default the current time)."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
        return max(0.0, when.timestamp() - (time.time() if now is None else now))
    except (TypeError, ValueError):
        return None


async def with_retries(
    call: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    on_retry: Callable[[int, Retryable, float], None] | None = None,
    rng: random.Random | None = None,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> T:
    """``call()`` until it succeeds, raises something other than ``Retryable``, or the
    policy's budget is spent (then ``InfrastructureError`` naming the last cause).
    ``sleep`` and ``clock`` are injectable so that tests need no real waiting."""
    rng = rng or random.Random()
    start = clock()
    last: Retryable | None = None
    for attempt in range(policy.max_attempts):
        try:
            return await call()
        except Retryable as exc:
            last = exc
            if attempt + 1 >= policy.max_attempts:
                break
            delay = policy.backoff(attempt, rng)
            if exc.retry_after is not None:
                delay = max(delay, exc.retry_after)
            remaining = policy.max_total_s - (clock() - start)
            if delay >= remaining:
                break
            if on_retry is not None:
                on_retry(attempt + 1, exc, delay)
            await sleep(delay)
    elapsed = clock() - start
    raise InfrastructureError(f"{last} (failed after {attempt + 1} attempt(s) over {elapsed:.1f} s)")
