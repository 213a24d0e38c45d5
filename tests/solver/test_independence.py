"""The solver knows only the chat call (issue #27): cases are made in memory here, and every chat
call of their runs is answered by the solver in a fresh process started in an empty directory,
where no case, suite or run store exists and the families', agents' and runner's code is never
even loaded. Every case must still pass, under ``tools``, ``react`` and ``modular``, and itinerary
cases under ``pmc`` (every role, the manager's split and the deliverer's plan included)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from solver_helpers import VARIANTS, pddl_cases, run_cases

from planprobe.models.base import ChatParams, ChatResult
from planprobe.schema import Message, ToolSpec, Usage

SRC = Path(__file__).resolve().parents[2] / "src"

# the package's own __init__ would import the whole library; the fresh process skips it, so what is
# loaded there is what the solver's modules import, and nothing else
SERVE = r"""
import importlib.util, json, sys, types
spec = importlib.util.find_spec("planprobe")
pkg = types.ModuleType("planprobe"); pkg.__path__ = list(spec.submodule_search_locations); sys.modules["planprobe"] = pkg
from planprobe.solver.stdio import serve
serve(sys.stdin, sys.stdout)
sys.stderr.write("LOADED " + json.dumps(sorted(m for m in sys.modules if m.startswith("planprobe."))))
"""
FORBIDDEN = ("planprobe.suites", "planprobe.agents", "planprobe.runner", "planprobe.cli", "planprobe.api",
             "planprobe.pddl.generators", "planprobe.pddl.obfuscate", "planprobe.pddl.constructive")


class PipeSolver:
    """A model whose every call is answered by the solver process over a pipe."""

    name = "solver"

    def __init__(self, proc: subprocess.Popen):
        self.proc = proc
        self.lock = asyncio.Lock()
        self.calls = 0

    async def chat(self, messages: list[Message], tools: list[ToolSpec] | None, params: ChatParams) -> ChatResult:
        line = json.dumps({"messages": [m.wire() for m in messages],
                           "tools": [t.model_dump() for t in tools] if tools else None})
        async with self.lock:
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
            reply = json.loads(self.proc.stdout.readline())
        self.calls += 1
        return ChatResult(message=Message.model_validate(reply), usage=Usage(model_calls=1))

    async def aclose(self) -> None:
        pass


@pytest.fixture
def fresh_solver(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(SRC), "HOME": str(empty), "PYTHONHASHSEED": "0"}
    proc = subprocess.Popen([sys.executable, "-c", SERVE], cwd=empty, env=env, text=True, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    yield proc, empty
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def test_cases_made_here_pass_when_a_fresh_process_answers_every_call(tmp_path, fresh_solver):
    proc, empty = fresh_solver
    model = PipeSolver(proc)
    cases = [c.model_copy(update={"id": f"{variant}-{i}"}) for variant in sorted(VARIANTS)
             for i, c in enumerate(pddl_cases(variant, n=2, seed=23))]
    for agent in ("tools", "react", "modular"):
        verdicts, findings = run_cases(cases, agent, model, tmp_path / agent, concurrency=2)
        failed = sorted(cid for cid, v in verdicts.items() if not v.passed)
        assert len(verdicts) == len(cases) and not failed and not findings, (agent, failed, findings)
    from planprobe.suites.itinerary.generate import ItineraryOptions, generate_cases

    trips = list(generate_cases(ItineraryOptions(n=4, seed=2)))  # one with a state: its cities found first
    verdicts, findings = run_cases(trips, "pmc", model, tmp_path / "pmc", concurrency=2)
    assert len(verdicts) == len(trips) and all(v.passed for v in verdicts.values()) and not findings
    _, err = proc.communicate(timeout=60)
    loaded = json.loads(err.split("LOADED ", 1)[1])
    assert model.calls > 3 * len(cases)
    assert "planprobe.solver.pddl_reader" in loaded and "planprobe.solver.itinerary_pmc" in loaded
    assert not [m for m in loaded if m.startswith(FORBIDDEN)], loaded
    assert list(empty.iterdir()) == []  # and it wrote nothing where it ran


def test_travelplanner_cases_pass_when_a_fresh_process_answers_every_call(tmp_path, fresh_solver):
    # TravelPlanner (both modes): the sandbox and the annotated fields stay in this process; the
    # solver, started in an empty directory, reads the query, the given information and the tool
    # results from the messages alone
    from helpers import shared_path
    from planprobe.importers.travelplanner import build_cases

    proc, empty = fresh_solver
    model = PipeSolver(proc)
    cases = [c for c in build_cases(modes=["sole-planning", "two-stage"], strict=True,
                                    train_dir=shared_path("data", "travelplanner")) if c.spec["idx"] in (3, 22, 36)]
    verdicts, findings = run_cases(cases, "tools", model, tmp_path / "tools", concurrency=2)
    failed = sorted(cid for cid, v in verdicts.items() if not v.passed)
    assert len(verdicts) == len(cases) == 6 and not failed and not findings, (failed, findings)
    _, err = proc.communicate(timeout=60)
    loaded = json.loads(err.split("LOADED ", 1)[1])
    assert "planprobe.solver.travelplanner_reader" in loaded
    assert not [m for m in loaded if m.startswith(FORBIDDEN)], loaded
    assert list(empty.iterdir()) == []
