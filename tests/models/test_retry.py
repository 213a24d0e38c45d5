import asyncio
import random

import pytest

from planprobe.errors import InfrastructureError
from planprobe.models.retry import (
    Retryable,
    RetryPolicy,
    parse_retry_after,
    with_retries,
)


def test_backoff_is_jittered_exponential_and_capped():
    p = RetryPolicy(base_s=0.5, cap_s=4)
    rng = random.Random(1)
    for attempt in range(8):
        for _ in range(50):
            assert 0 <= p.backoff(attempt, rng) <= min(4, 0.5 * 2 ** attempt)


def test_retry_after_in_seconds_and_as_a_date():
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    from email.utils import formatdate

    now = 1_700_000_000.0
    assert parse_retry_after(formatdate(now + 3, usegmt=True), now=now) == 3.0
    assert parse_retry_after(formatdate(now - 3, usegmt=True), now=now) == 0.0  # a date in the past: at once


class FakeTime:
    """An injected clock: sleeping advances it, so no test waits for real."""

    def __init__(self):
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_succeeds_after_transient_failures_and_honours_retry_after():
    calls = []
    fake = FakeTime()

    async def flaky():
        calls.append(fake.now)
        if len(calls) < 3:
            raise Retryable("HTTP 429", retry_after=0.2)
        return "ok"

    policy = RetryPolicy(base_s=0.001, cap_s=0.001)
    assert asyncio.run(with_retries(flaky, policy, sleep=fake.sleep, clock=fake.clock)) == "ok"
    assert len(calls) == 3 and fake.sleeps == [0.2, 0.2]  # Retry-After outweighs the (tiny) backoff


def test_gives_up_within_the_attempt_and_time_budgets():
    async def down():
        raise Retryable("HTTP 503")

    fake = FakeTime()
    with pytest.raises(InfrastructureError, match=r"HTTP 503 \(failed after 4 attempt"):
        asyncio.run(with_retries(down, RetryPolicy(max_attempts=4, base_s=0.001, cap_s=0.001),
                                 sleep=fake.sleep, clock=fake.clock))
    assert len(fake.sleeps) == 3

    async def slow_down():
        raise Retryable("HTTP 429", retry_after=10)

    fake = FakeTime()
    with pytest.raises(InfrastructureError, match="after 1 attempt"):
        asyncio.run(with_retries(slow_down, RetryPolicy(max_attempts=10, max_total_s=1), sleep=fake.sleep,
                                 clock=fake.clock))
    assert fake.sleeps == []  # a Retry-After beyond the budget is not waited for

    async def slow_service():  # each attempt itself takes 30 s of the 100 s budget
        fake.now += 30
        raise Retryable("HTTP 503")

    fake = FakeTime()
    with pytest.raises(InfrastructureError, match="after 4 attempt"):
        asyncio.run(with_retries(slow_service, RetryPolicy(max_attempts=10, max_total_s=100, base_s=0.001,
                                                           cap_s=0.001), sleep=fake.sleep, clock=fake.clock))


def test_other_errors_are_not_retried():
    calls = []

    async def bug():
        calls.append(1)
        raise ValueError("not a service problem")

    with pytest.raises(ValueError):
        asyncio.run(with_retries(bug, RetryPolicy()))
    assert len(calls) == 1
