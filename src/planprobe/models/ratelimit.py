"""Requests and tokens per minute per endpoint, shared by every worker of a run.

A provider's limit is on the account, not on one process: with four workers each
pacing itself, the account sees four times the rate. So the pacing state lives in
one place every worker reaches — memory for one process (``LocalLimiter``), a small
file under ``flock`` for processes on one machine (``FileLimiter``), an actor for a
Ray cluster (scale/ray_backend.py) — and a server's Retry-After pauses every worker
of the run on that endpoint, not just the one that was told.

Pacing is a token bucket per endpoint: requests refill at rpm/60 per second into a
bucket of one second's worth (so any 60 s window carries at most rpm + rpm/60
requests), tokens refill at tpm/60 per second and are taken after each reply (the
bucket may go negative; no request starts until it is positive again).
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol


@dataclass(frozen=True)
class RateLimits:
    rpm: float | None = None  # requests per minute per endpoint
    tpm: float | None = None  # tokens (prompt + completion) per minute per endpoint

    def __bool__(self) -> bool:
        return bool(self.rpm or self.tpm)


@dataclass
class Bucket:
    """One endpoint's pacing state (plain numbers, so it can live in a file or an actor)."""

    requests: float = 0.0
    tokens: float = 0.0
    stamp: float = 0.0
    until: float = 0.0  # Retry-After: nothing is sent before this time
    fresh: bool = field(default=True)

    def refill(self, limits: RateLimits, now: float) -> None:
        if self.fresh:
            self.requests = _cap(limits.rpm)
            self.tokens = _cap(limits.tpm)
            self.stamp, self.fresh = now, False
        dt = max(0.0, now - self.stamp)
        self.stamp = now
        if limits.rpm:
            self.requests = min(_cap(limits.rpm), self.requests + dt * limits.rpm / 60)
        if limits.tpm:
            self.tokens = min(_cap(limits.tpm), self.tokens + dt * limits.tpm / 60)

    def reserve(self, limits: RateLimits, now: float) -> float:
        """0 and one request taken, or the seconds to wait before asking again."""
        self.refill(limits, now)
        waits = [self.until - now]
        if limits.rpm and self.requests < 1:
            waits.append((1 - self.requests) * 60 / limits.rpm)
        if limits.tpm and self.tokens <= 0:
            waits.append((1 - self.tokens) * 60 / limits.tpm)
        wait = max(waits)
        if wait > 0:
            return wait
        if limits.rpm:
            self.requests -= 1
        return 0.0

    def spend(self, limits: RateLimits, tokens: int, now: float) -> None:
        self.refill(limits, now)
        if limits.tpm:
            self.tokens -= tokens

    def pause(self, seconds: float, now: float) -> None:
        self.until = max(self.until, now + seconds)


def _cap(per_minute: float | None) -> float:
    return max(1.0, per_minute / 60) if per_minute else 0.0


class RateLimiter(Protocol):
    async def acquire(self, endpoint: str) -> None: ...
    def record(self, endpoint: str, tokens: int) -> None: ...
    def pause(self, endpoint: str, seconds: float) -> None: ...


class _Paced:
    """acquire() as a loop over a ``reserve`` that says how long to wait."""

    limits: RateLimits
    sleep: Callable[[float], Awaitable[Any]] = staticmethod(asyncio.sleep)  # a test's fake time replaces both

    def _reserve(self, endpoint: str) -> float:
        raise NotImplementedError

    async def acquire(self, endpoint: str) -> None:
        while (wait := self._reserve(endpoint)) > 0:
            await self.sleep(min(wait, 5.0))


class LocalLimiter(_Paced):
    """State in memory: one process."""

    def __init__(self, limits: RateLimits, clock: Any = time.time):
        self.limits = limits
        self.clock = clock
        self.buckets: dict[str, Bucket] = {}

    def _bucket(self, endpoint: str) -> Bucket:
        return self.buckets.setdefault(endpoint, Bucket())

    def _reserve(self, endpoint: str) -> float:
        return self._bucket(endpoint).reserve(self.limits, self.clock())

    def record(self, endpoint: str, tokens: int) -> None:
        self._bucket(endpoint).spend(self.limits, tokens, self.clock())

    def pause(self, endpoint: str, seconds: float) -> None:
        self._bucket(endpoint).pause(seconds, self.clock())


class FileLimiter(_Paced):
    """State in a JSON file under an exclusive ``flock``: every process on the machine
    that is given the same path shares it. Picklable (it is only a path and limits)."""

    def __init__(self, path: Path, limits: RateLimits, clock: Any = time.time):
        self.path = Path(path)
        self.limits = limits
        self.clock = clock  # injectable: tests share a frozen time between processes

    def _update(self, endpoint: str, fn: Any) -> Any:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            raw = os.read(fd, 1 << 20)
            try:
                state = json.loads(raw) if raw else {}
            except ValueError:
                state = {}
            bucket = Bucket(**state.get(endpoint, {}))
            out = fn(bucket, self.clock())
            state[endpoint] = bucket.__dict__
            data = json.dumps(state).encode()
            os.lseek(fd, 0, os.SEEK_SET)
            os.ftruncate(fd, 0)
            os.write(fd, data)
            return out
        finally:
            os.close(fd)  # drops the lock

    def _reserve(self, endpoint: str) -> float:
        return float(self._update(endpoint, lambda b, now: b.reserve(self.limits, now)))

    def record(self, endpoint: str, tokens: int) -> None:
        self._update(endpoint, lambda b, now: b.spend(self.limits, tokens, now))

    def pause(self, endpoint: str, seconds: float) -> None:
        self._update(endpoint, lambda b, now: b.pause(seconds, now))


_current: RateLimiter | None = None


def install(limiter: RateLimiter | None) -> None:
    """Make ``limiter`` pace every model call of this process (None: no pacing)."""
    global _current
    _current = limiter


def current() -> RateLimiter | None:
    return _current
