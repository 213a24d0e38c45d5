"""Shared test helpers (tests import them as `helpers`; pytest puts tests/ on the path)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from planprobe.environment import IterationLimitExceeded, Limits
from planprobe.schema import Case, TraceStatus
from planprobe.suites.constraints.generator import (
    ConstraintSuiteOptions,
    generate_cases,
)
from planprobe.suites.registry import get_family

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def shared_path(*parts: str) -> Path:
    """A path under ../shared; the test skips when the folder is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return path


def cases(n: int = 50, seed: int = 0, extended: bool = False, actions=(3, 5)) -> list[Case]:
    return list(generate_cases(ConstraintSuiteOptions(n=n, seed=seed, extended=extended, actions=actions)))


def run_agent(agent, case: Case, limits: Limits = Limits()):
    """Run one episode synchronously (no runner) and return the trace."""
    env = get_family(case.family).environment(case, limits, 0, agent.name)
    try:
        asyncio.run(agent(case, env))
    except IterationLimitExceeded:
        env.trace.status = TraceStatus.ITERATION_LIMIT
    return env.trace


def planprobe_cmd() -> list[str]:
    return [sys.executable, "-m", "planprobe"]


def subprocess_env(**extra: str) -> dict:
    env = dict(os.environ)
    env["COLUMNS"] = "200"
    env.update(extra)
    return env


def cli_here(capsys, monkeypatch, *args: str) -> tuple[int, str, str]:
    """The CLI run in this process (faster than a subprocess): exit code, stdout, stderr."""
    from planprobe import cli

    monkeypatch.setattr(sys, "argv", ["planprobe", *args])
    try:
        cli.main()
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    out, err = capsys.readouterr()
    return code, out, err
