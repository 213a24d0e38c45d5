import asyncio
import random
import time

import pytest

from planprobe.errors import InfrastructureError
from planprobe.models.retry import RetryPolicy, Retryable, parse_retry_after, with_retries


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

    assert 1 <= parse_retry_after(formatdate(time.time() + 3, usegmt=True)) <= 3.5


def test_succeeds_after_transient_failures_and_honours_retry_after():
    calls = []

    async def flaky():
        calls.append(time.monotonic())
        if len(calls) < 3:
            raise Retryable("HTTP 429", retry_after=0.2)
        return "ok"

    assert asyncio.run(with_retries(flaky, RetryPolicy(base_s=0.001, cap_s=0.001))) == "ok"
    assert len(calls) == 3 and calls[1] - calls[0] >= 0.19 and calls[2] - calls[1] >= 0.19


def test_gives_up_within_the_attempt_and_time_budgets():
    async def down():
        raise Retryable("HTTP 503")

    with pytest.raises(InfrastructureError, match="after 4 attempt"):
        asyncio.run(with_retries(down, RetryPolicy(max_attempts=4, base_s=0.001, cap_s=0.001)))
    t0 = time.monotonic()

    async def slow_down():
        raise Retryable("HTTP 429", retry_after=10)

    with pytest.raises(InfrastructureError):
        asyncio.run(with_retries(slow_down, RetryPolicy(max_attempts=10, max_total_s=1)))
    assert time.monotonic() - t0 < 1  # a Retry-After beyond the budget is not waited for


def test_other_errors_are_not_retried():
    calls = []

    async def bug():
        calls.append(1)
        raise ValueError("not a service problem")

    with pytest.raises(ValueError):
        asyncio.run(with_retries(bug, RetryPolicy()))
    assert len(calls) == 1
