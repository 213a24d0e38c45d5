"""Run directories written before trace version 2 / run format 2 still read: show, report,
resume (which upgrades the directory) and re-rollout of their traces (steps inferred).
The fixtures in tests/data/run_v1 were written by commit a1afb3c (see make_fixture.py)."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from rollout_fakes import GUIDANCE, GuidedModel, divergence

from helpers import planprobe_here
from planprobe.agents.react import ReactAgent
from planprobe.agents.tools_agent import ToolsAgent
from planprobe.analysis.summary import summarize
from planprobe.models.base import ChatParams
from planprobe.report.data import load_run
from planprobe.runner.engine import RunConfig, open_run, run_pending
from planprobe.runner.rollout import rerollout_in_run
from planprobe.runner.steps import annotated, step_count, with_steps
from planprobe.runner.store import STORE_FORMAT, RunStore
from planprobe.schema import TRACE_VERSION
from planprobe.suites.io import load_suite
from planprobe.suites.registry import get_family

V1 = Path(__file__).resolve().parents[1] / "data" / "run_v1"
RUNS = ("oracle", "tools_scripted", "react_scripted")


def pp(*args):
    """The command line in this process (helpers.planprobe_here): output, files and exit codes are checked."""
    return planprobe_here(*args)


def _copy(tmp_path: Path, name: str) -> Path:
    shutil.copytree(V1 / name, tmp_path / name)
    return tmp_path / name


def _snapshot(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.iterdir())}


@pytest.mark.parametrize("name", RUNS)
def test_v1_runs_are_what_they_claim_and_read_unchanged(tmp_path, name):
    run = _copy(tmp_path, name)
    before = _snapshot(run)
    store = RunStore(run)
    try:
        assert store.meta()["format"] == "1"
        traces = [t for t, _ in store.results()]
        assert len(traces) == 3 and all(t.schema_version == 1 for t in traces)
        assert store.rerollouts() == []  # no such table in format 1
    finally:
        store.close()
    r = pp("show", run, "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["cases"] == 3 and data["passed"] == (3 if name == "oracle" else 0)
    r = pp("report", run, "-o", tmp_path / "report.html")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "report.html").read_text().rstrip().endswith("</html>")
    data = load_run(run)
    assert len(data.rows) == 3 and data.head()["cases"] == 3
    assert _snapshot(run) == before  # readers never change an old directory


def test_resuming_a_v1_run_adds_trials_and_upgrades_the_directory(tmp_path):
    run = _copy(tmp_path, "oracle")
    r = pp("run", V1 / "suite.jsonl", "--agent", "oracle", "--trials", "2", "--out", run, "-q")
    assert r.returncode == 0, r.stderr
    store = RunStore(run)
    try:
        assert store.meta()["format"] == str(STORE_FORMAT)
        versions = sorted((t.trial, t.schema_version) for t, _ in store.results())
        assert versions == [(0, 1), (0, 1), (0, 1), (1, TRACE_VERSION), (1, TRACE_VERSION), (1, TRACE_VERSION)]
    finally:
        store.close()
    data = json.loads(pp("show", run, "--json").stdout)
    assert data["cases"] == 6 and data["passed"] == 6
    r = pp("run", V1 / "suite.jsonl", "--agent", "random", "--out", run, "-q")  # settings still checked
    assert r.returncode == 2 and "agent=oracle, not random" in r.stderr


def test_resuming_a_v1_model_run_through_the_library(tmp_path):
    run = _copy(tmp_path, "tools_scripted")
    suite = load_suite(V1 / "suite.jsonl")
    family = get_family("constraints")
    model = GuidedModel([], [])  # answers at once: a different trial, same settings
    meta = RunStore(run).meta()
    config = RunConfig(agent="tools", model=meta["model"], model_params=meta["model_params"], trials=2)
    store = open_run(run, suite, config)
    try:
        assert asyncio.run(run_pending(store, ToolsAgent(model, ChatParams(seed=0)), config)) == 3
        summary = summarize(store)
        assert summary.to_json()["cases"] == 6
        new = [t for t, _ in store.results() if t.trial == 1]
        assert all(t.schema_version == TRACE_VERSION and annotated(t) for t in new)
        assert [family.check(c, t).primary for c, t in zip(suite, new)] == ["action_lost"] * 3  # it did nothing
    finally:
        store.close()


@pytest.mark.parametrize("name", ["tools_scripted", "react_scripted"])
def test_steps_of_v1_traces_are_inferred_as_their_agents_took_them(name):
    store = RunStore(V1 / name)
    try:
        for trace, _ in store.results():
            assert not annotated(trace)
            full = with_steps(trace)
            assert annotated(full) and step_count(trace) == trace.iterations
            # every call belongs to the step of the reply that asked for it
            for call in full.tool_calls:
                assert call.step == call.index + 1
            assert [m.step for m in full.messages if m.role == "assistant"] == list(range(1, trace.iterations + 1))
    finally:
        store.close()


@pytest.mark.parametrize("name", ["tools_scripted", "react_scripted"])
def test_a_v1_trace_can_be_rerolled_out_and_the_attempt_stored(tmp_path, name):
    run = _copy(tmp_path, name)
    suite = load_suite(V1 / "suite.jsonl")
    family = get_family("constraints")
    for case in suite:
        original = RunStore(run).trace(case.id, 0)
        done = [(c.name, c.arguments) for c in original.tool_calls]
        good = family.reference_plan(case)
        steps = divergence([type(good[0])(*c) for c in done], good)
        model = GuidedModel([], good, react=name.startswith("react"))
        agent = (ReactAgent if name.startswith("react") else ToolsAgent)(model, ChatParams(seed=0))
        trace, verdict = rerollout_in_run(run, case.id, 0, steps, agent, guidance=GUIDANCE, model=model.name)
        assert verdict.passed, (case.id, verdict.errors)
        assert trace.origin.replayed_calls == steps and trace.tool_calls[0].step == 1
    store = RunStore(run)
    try:
        assert store.meta()["format"] == str(STORE_FORMAT) and len(store.rerollouts()) == 3
    finally:
        store.close()
