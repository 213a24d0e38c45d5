"""Shared test helpers (tests import them as `helpers`; pytest puts tests/ on the path)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
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


def planprobe_here(*args, env: dict | None = None, cwd=None) -> subprocess.CompletedProcess:
    """The command line run in this process, returned as ``subprocess.run`` would return it (exit code,
    stdout, stderr as text): no interpreter start and no imports, ~0.5 s of CPU saved per call. For
    tests whose behaviour does not depend on a real process (signals, the entry point's own exit path,
    a fresh process's state keep ``planprobe_cmd``). ``env`` entries are set for the call only and
    COLUMNS is 200, as ``subprocess_env`` sets it; an unexpected exception is a traceback and exit 1,
    as in a process."""
    import contextlib
    import io
    import traceback

    from planprobe import cli

    argv = ["planprobe", *(str(a) for a in args)]
    out, err = io.StringIO(), io.StringIO()
    saved_env = dict(os.environ)
    saved_argv, saved_cwd = sys.argv, os.getcwd()
    os.environ.update({"COLUMNS": "200", **(env or {})})
    code = 0
    try:
        if cwd is not None:
            os.chdir(cwd)
        sys.argv = argv
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                cli.main()
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
                if isinstance(exc.code, str):
                    err.write(exc.code + "\n")
            except Exception:  # noqa: BLE001 -- what a process would print before exiting 1
                traceback.print_exc(file=err)
                code = 1
    finally:
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def solver_endpoint() -> Iterator[str]:
    """The solver (``--model solver``) as an OpenAI-compatible server on loopback, in a thread of
    this process: a model that plans perfectly from what it is shown. Yields its base URL."""
    from planprobe.solver.endpoint import SolverServer

    server = SolverServer("127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.base_url
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
