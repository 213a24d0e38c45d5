"""``planprobe sweep --rpm/--tpm``: the run's rate limits pace every model call of every point.

The sweep runs in this process against a scripted endpoint on loopback. In one process the
limiter is given a virtual clock whose time moves only when the limiter waits, so the
spacing of the calls it lets through is exact and nothing depends on the machine's speed.
With worker processes the shared rate file is checked: one file for the whole sweep (not a
fresh bucket per point), written by the workers' model calls."""

from __future__ import annotations

import asyncio
import json
from itertools import pairwise
from pathlib import Path
from typing import Any, ClassVar

import pytest
from typer.testing import CliRunner

from http_faults import ScriptedServer, chat_reply
from planprobe.models import ratelimit
from planprobe.models.ratelimit import FileLimiter, LocalLimiter, RateLimits

USAGE = {"prompt_tokens": 9, "completion_tokens": 3}  # 12 tokens per call
SWEEP = ["--k", "1", "--cap", "2", "--start", "2", "--stop", "3", "--threshold", "0", "--concurrency", "1",
         "--no-cache", "--json", "-q"]


def sweep(out: Path, url: str, *extra: str) -> Any:
    from planprobe.cli.root import app

    return CliRunner().invoke(app, ["sweep", "--out", str(out), "--model", "openai:m", "--base-url", url, *SWEEP,
                                    *extra])


def answer(i: int, body: dict, headers: dict) -> Any:
    return chat_reply("I am done.", usage=USAGE)  # no tool call: the agent stops and the case fails


class VirtualLimiter(LocalLimiter):
    """The real limiter on a clock that moves only by the limiter's own waits; logs each grant."""

    made: ClassVar[list[VirtualLimiter]] = []

    def __init__(self, limits: RateLimits, clock: Any = None):
        self.now = 1000.0
        super().__init__(limits, lambda: self.now)
        self.granted: list[float] = []
        self.tokens: list[tuple[float, int]] = []
        VirtualLimiter.made.append(self)

    async def sleep(self, seconds: float) -> None:  # type: ignore[override]
        self.now += seconds
        await asyncio.sleep(0)

    def _reserve(self, endpoint: str) -> float:
        wait = super()._reserve(endpoint)
        if wait == 0:
            self.granted.append(self.now)
        return wait

    def record(self, endpoint: str, tokens: int) -> None:
        self.tokens.append((self.now, tokens))
        super().record(endpoint, tokens)


@pytest.fixture
def virtual(monkeypatch):
    VirtualLimiter.made = []
    monkeypatch.setattr(ratelimit, "LocalLimiter", VirtualLimiter)
    return VirtualLimiter.made


def test_sweep_rpm_spaces_every_call_of_every_point(tmp_path, virtual):
    with ScriptedServer(answer) as server:
        r = sweep(tmp_path / "s", server.url, "--rpm", "60")  # one request a second, a burst of one
    assert r.exit_code == 0, r.output
    points = json.loads(r.stdout)["points"]
    assert [p["actions"] for p in points] == [2, 3]
    assert len(virtual) == 1  # one limiter for the whole sweep: a point does not start with a fresh bucket
    granted = virtual[0].granted
    assert len(granted) == len(server.requests) >= 3  # every model call went through it
    gaps = [b - a for a, b in pairwise(granted)]
    assert min(gaps) >= 1.0 - 1e-9, gaps  # ... and waited for its turn, across the points too
    assert ratelimit.current() is None  # nothing left installed once the command returns
    assert not (tmp_path / "s" / "ratelimit.json").exists()


def test_sweep_tpm_holds_calls_until_the_tokens_are_earned_back(tmp_path, virtual):
    tpm = 120  # 2 tokens a second, a bucket of 2; each call spends 12
    with ScriptedServer(answer) as server:
        r = sweep(tmp_path / "s", server.url, "--tpm", str(tpm))
    assert r.exit_code == 0, r.output
    (lim,) = virtual
    assert len(lim.granted) == len(lim.tokens) == len(server.requests) >= 3
    start = lim.granted[0]
    for i, t in enumerate(lim.granted[1:], 1):  # a call starts only while the bucket is above zero
        spent = sum(n for _, n in lim.tokens[:i])
        assert spent < 2 + (t - start) * tpm / 60, (i, spent, t - start)
    assert lim.granted[-1] - start >= (len(lim.granted) - 1) * (12 - 2) * 60 / tpm - 1e-6


def test_sweep_without_limits_installs_no_limiter(tmp_path, virtual):
    with ScriptedServer(answer) as server:
        r = sweep(tmp_path / "s", server.url)
    assert r.exit_code == 0, r.output
    assert virtual == [] and server.requests


def test_sweep_workers_share_one_rate_file_across_points(tmp_path, monkeypatch):
    from planprobe.scale import processes

    real = processes.run_on_processes
    seen: list[dict] = []

    def spy(*args: Any, **kwargs: Any) -> None:
        limiter = args[-1] if len(args) >= 9 else kwargs.get("limiter")
        assert isinstance(limiter, FileLimiter)
        existed = limiter.path.exists()
        real(*args, **kwargs)
        seen.append({"path": limiter.path, "limits": limiter.limits, "existed": existed,
                     "state": json.loads(limiter.path.read_text())})

    monkeypatch.setattr(processes, "run_on_processes", spy)
    out = tmp_path / "s"
    with ScriptedServer(answer) as server:
        r = sweep(out, server.url, "--rpm", "6000", "--tpm", "600000", "--workers", "2")
    assert r.exit_code == 0, r.output
    assert len(seen) == 2  # one scaled run per point
    assert {s["path"] for s in seen} == {out.resolve() / "ratelimit.json"}
    assert all(s["limits"] == RateLimits(6000, 600000) for s in seen)
    assert [s["existed"] for s in seen] == [False, True]  # the second point paced on the first one's state
    for s in seen:  # the workers' calls (the only calls made) went through the shared file
        (bucket,) = s["state"].values()
        assert bucket["fresh"] is False
    assert len(server.requests) >= 3
    assert not (out / "ratelimit.json").exists()  # removed when the sweep ends
    assert not list(out.glob("runs/*/ratelimit.json"))


def test_on_ray_a_sweeps_points_share_one_pacing_actor():
    from planprobe.scale import ray_backend

    made: list[RateLimits] = []

    class FakeRay:  # only what _rate_actor asks of ray: ray.remote(num_cpus=0)(cls).remote(limits)
        def remote(self, **options: Any) -> Any:
            assert options == {"num_cpus": 0}

            class Actor:
                @staticmethod
                def remote(limits: RateLimits) -> object:
                    made.append(limits)
                    return object()

            return lambda cls: Actor

    ray_backend._rate_actors.clear()
    try:
        limits = RateLimits(rpm=60)
        first = ray_backend._rate_actor(FakeRay(), limits, "/s/ratelimit.json")
        assert ray_backend._rate_actor(FakeRay(), limits, "/s/ratelimit.json") is first  # the next point
        assert ray_backend._rate_actor(FakeRay(), limits, "/other/run") is not first  # another run
        assert made == [limits, limits]
    finally:
        ray_backend._rate_actors.clear()
