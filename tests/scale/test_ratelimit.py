"""Requests/tokens per minute per endpoint, shared by every worker; Retry-After pauses them all.

Pacing is checked on a fake clock (no test waits for a minute to pass) and across real
processes through the shared file; the model backend is checked against a real server."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from http_faults import Reply, ScriptedServer, chat_reply
from planprobe.errors import InfrastructureError
from planprobe.models import ModelOptions, RetryPolicy, make_model
from planprobe.models.base import ChatParams
from planprobe.models.ratelimit import (
    FileLimiter,
    LocalLimiter,
    RateLimits,
    install,
)
from planprobe.schema import Message


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_requests_per_minute_refill_at_rpm_over_60_per_second():
    clock = Clock()
    lim = LocalLimiter(RateLimits(rpm=120), clock)
    assert [lim._reserve("a") for _ in range(2)] == [0.0, 0.0]  # one second's worth: 2
    wait = lim._reserve("a")
    assert wait == pytest.approx(0.5)
    assert lim._reserve("b") == 0.0  # endpoints are paced apart
    clock.now += 0.5
    assert lim._reserve("a") == 0.0
    assert lim._reserve("a") > 0
    # over a simulated minute, at most rpm + one second's worth are let through
    granted = 0
    for _ in range(6000):
        clock.now += 0.01
        granted += lim._reserve("c") == 0.0
    assert 120 <= granted <= 122


def test_tokens_per_minute_hold_requests_until_the_spent_tokens_are_earned_back():
    clock = Clock()
    lim = LocalLimiter(RateLimits(tpm=600), clock)  # 10 tokens a second
    assert lim._reserve("a") == 0.0
    lim.record("a", 110)  # the bucket held 10: now -100
    wait = lim._reserve("a")
    assert wait == pytest.approx(10.1)
    clock.now += 10.0
    assert lim._reserve("a") > 0
    clock.now += 0.2
    assert lim._reserve("a") == 0.0


def test_retry_after_pauses_every_request_to_the_endpoint():
    clock = Clock()
    lim = LocalLimiter(RateLimits(rpm=6000), clock)
    lim.pause("a", 7.0)
    assert lim._reserve("a") == pytest.approx(7.0)
    assert lim._reserve("b") == 0.0
    clock.now += 7.0
    assert lim._reserve("a") == 0.0


def test_the_file_limiter_is_shared_by_processes(tmp_path):
    path = tmp_path / "rate.json"
    # one request a second, burst 1; both processes read the same frozen time, so however long the
    # other process takes to start, no refill happens in between
    mine = FileLimiter(path, RateLimits(rpm=60), clock=lambda: 1000.0)
    code = ("import sys; from pathlib import Path; from planprobe.models.ratelimit import FileLimiter, RateLimits\n"
            "print(FileLimiter(Path(sys.argv[1]), RateLimits(rpm=60), clock=lambda: 1000.0)._reserve('http://e/v1'))")
    other = subprocess.run([sys.executable, "-c", code, str(path)], check=False, capture_output=True, text=True, timeout=120)
    assert other.returncode == 0, other.stderr
    assert float(other.stdout) == 0.0
    assert mine._reserve("http://e/v1") > 0  # the other process took this second's request
    mine.pause("http://e/v1", 30)
    again = subprocess.run([sys.executable, "-c", code, str(path)], check=False, capture_output=True, text=True, timeout=120)
    assert float(again.stdout) > 25  # the pause reached the other process


class Spy(LocalLimiter):
    def __init__(self) -> None:
        super().__init__(RateLimits(rpm=6000, tpm=60000))
        self.log: list[tuple] = []

    async def acquire(self, endpoint: str) -> None:
        self.log.append(("acquire", endpoint))
        await super().acquire(endpoint)

    def record(self, endpoint: str, tokens: int) -> None:
        self.log.append(("record", endpoint, tokens))

    def pause(self, endpoint: str, seconds: float) -> None:
        self.log.append(("pause", endpoint, seconds))


def test_model_calls_take_requests_and_tokens_and_a_429_retry_after_pauses_the_run():
    def script(i, body, headers):
        if i == 0:
            return chat_reply("ok", usage={"prompt_tokens": 30, "completion_tokens": 12})
        return Reply(429, {"error": {"message": "slow down"}}, {"Retry-After": "40"})

    spy = Spy()
    with ScriptedServer(script) as server:
        model = make_model("openai:m", ModelOptions(base_url=server.url, cache=False,
                                                    retry=RetryPolicy(max_attempts=3, max_total_s=5)))
        install(spy)
        try:
            async def go():
                try:
                    await model.chat([Message(role="user", content="hi")], None, ChatParams())
                    with pytest.raises(InfrastructureError):  # Retry-After 40 s is past the 5 s budget: no waiting
                        await model.chat([Message(role="user", content="again")], None, ChatParams())
                finally:
                    await model.aclose()

            asyncio.run(go())
        finally:
            install(None)
    url = server.url
    assert spy.log == [("acquire", url), ("record", url, 42), ("acquire", url), ("pause", url, 40.0)]
