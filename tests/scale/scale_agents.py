"""Agents for the scaling tests, loaded by workers as ``python:<this file>:<function>``.

``oracle_logged`` solves each case (the oracle) and appends "case_id pid" to the file
named by PLANPROBE_TEST_CALL_LOG, so a test can count how often each case ran.
``oracle_killing`` does the same but kills its own process (SIGKILL, as the OOM killer
or a node failure would) the first time it meets the case PLANPROBE_TEST_KILL_CASE,
once per marker file PLANPROBE_TEST_KILL_MARKER. ``oracle_killing_once`` kills
its process on its first episode, whatever the case (once per marker file)."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from planprobe.agents import make_agent

_oracle = make_agent("oracle")


async def oracle_logged(case, env):
    log = os.environ.get("PLANPROBE_TEST_CALL_LOG")
    if log:
        with Path(log).open("a") as f:  # noqa: ASYNC230 — one short line, in a test agent
            f.write(f"{case.id} {os.getpid()}\n")
    await asyncio.sleep(float(os.environ.get("PLANPROBE_TEST_DELAY", "0")))
    return await _oracle(case, env)


async def oracle_killing(case, env):
    marker = Path(os.environ["PLANPROBE_TEST_KILL_MARKER"])
    if case.id == os.environ.get("PLANPROBE_TEST_KILL_CASE") and not marker.exists():
        marker.write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return await oracle_logged(case, env)


async def oracle_killing_once(case, env):
    """The oracle, but the first episode (once per marker file) kills its own process."""
    marker = Path(os.environ["PLANPROBE_TEST_KILL_MARKER"])
    if not marker.exists():
        marker.write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return await _oracle(case, env)
