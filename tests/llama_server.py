"""A real OpenAI-compatible server for the model and judge tests: llama.cpp's own
(``python -m llama_cpp.server``) with the embedded SmolLM2-135M, on 127.0.0.1 and a
free port, stopped by PID. In CI (CI=true) a missing local-model stack fails the
tests instead of skipping them, so they are never skipped silently."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest


def require_local_model():
    """The path of the embedded GGUF; skip locally, fail in CI, when it is missing."""
    try:
        import llama_cpp  # noqa: F401

        from planprobe.models.local import default_model_path

        return default_model_path()
    except Exception as exc:  # noqa: BLE001 -- ImportError or PlanprobeError: whatever it is, skip (or fail in CI)
        message = f"the embedded model stack is not installed ({exc}); run scripts/setup test"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Only a hang guard: never reached by a machine that is merely slow or loaded (the server loads
# a 90 MB model and answers within seconds on an idle one).
HANG_GUARD_S = 1800.0


def wait_http(url: str, timeout: float = HANG_GUARD_S, proc=None) -> None:
    """Wait until ``url`` answers, the process exits, or the hang guard runs out. Each try
    may take longer than the one before, so a loaded machine is waited for, not failed."""
    deadline = time.monotonic() + timeout
    per_try = 2.0
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=per_try):
                return
        except OSError:
            per_try = min(60.0, per_try * 2)
            time.sleep(0.3)
    raise RuntimeError(f"{url} did not answer within {timeout:.0f} s")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()


@contextlib.contextmanager
def running_llama_server(gguf, log_dir: Path) -> Iterator[str]:
    """Base URL (…/v1) of llama.cpp's server with ``gguf``, stopped by PID on exit. The free port
    is picked before the server binds it, so another process may take it first: then the
    server exits at once and is started again on another port. Also used by benchmarks/."""
    for attempt in range(3):
        port = free_port()
        log = open(log_dir / f"server-{attempt}.log", "w")  # noqa: SIM115 -- the server's log, open while it runs
        proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1", "--port",
             str(port), "--chat_format", "chatml-function-calling", "--n_ctx", "4096",
             "--n_threads", str(os.cpu_count() or 2)],
            stdout=log, stderr=subprocess.STDOUT,
        )
        try:
            wait_http(f"http://127.0.0.1:{port}/v1/models", proc=proc)
        except RuntimeError:
            exited = proc.poll() is not None
            stop(proc)
            log.close()
            if not exited or attempt == 2:
                raise
            continue
        try:
            yield f"http://127.0.0.1:{port}/v1"
        finally:
            stop(proc)
            log.close()
        return


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory):
    """Base URL (…/v1) of a running llama.cpp server with the embedded model."""
    gguf = require_local_model()
    with running_llama_server(gguf, tmp_path_factory.mktemp("server")) as url:
        yield url
