"""The one run path (runner/suite_run.py): opens, runs the pending cases, closes; resumes;
closes the models in the run's loop; reports what an interrupt kept."""

from __future__ import annotations

import asyncio

import pytest

import planprobe as pp
from helpers import cases
from planprobe.agents import make_agent
from planprobe.analysis.summary import summarize
from planprobe.runner.engine import RunConfig
from planprobe.runner.store import RunStore
from planprobe.runner.suite_run import (
    RunInterrupted,
    effective_concurrency,
    params_identity,
    run_suite,
)


def test_run_suite_runs_each_case_once_and_resumes_with_nothing_left(tmp_path):
    suite = cases(n=6, actions=(2, 3))
    config = RunConfig(agent="random", seed=1, trials=2)
    seen: list[tuple[str, bool]] = []
    opened: list[tuple[int, int]] = []
    closed: list[bool] = []

    async def aclose() -> None:
        asyncio.get_running_loop()  # called inside the run's own event loop
        closed.append(True)

    result = run_suite(tmp_path / "run", suite, make_agent("random", 1), config, suite_name="s",
                       on_open=lambda store, total, done: opened.append((total, done)),
                       on_result=lambda trace, verdict: seen.append((trace.case_id, verdict.passed)),
                       aclose=aclose, summarize=summarize)
    assert opened == [(12, 0)] and closed == [True]
    assert len(seen) == 12 and {cid for cid, _ in seen} == {c.id for c in suite}
    assert result.summary.overall.cases == 12 and result.summary.overall.passed == sum(p for _, p in seen)
    assert result.infra == []
    again: list[str] = []
    second = run_suite(tmp_path / "run", suite, make_agent("random", 1), config,
                       on_open=lambda store, total, done: opened.append((total, done)),
                       on_result=lambda trace, verdict: again.append(trace.case_id))
    assert again == [] and opened[-1] == (12, 12) and second.summary is None
    store = RunStore(tmp_path / "run")
    try:
        assert store.result_count(2) == 12
    finally:
        store.close()


def test_a_failed_open_still_closes_the_models(tmp_path):
    suite = cases(n=2, actions=(2, 3))
    run_suite(tmp_path / "run", suite, make_agent("oracle"), RunConfig(agent="oracle"))
    closed: list[bool] = []

    async def aclose() -> None:
        closed.append(True)

    with pytest.raises(pp.PlanprobeError, match="different suite"):
        run_suite(tmp_path / "run", cases(n=3, seed=9, actions=(2, 3)), make_agent("oracle"), RunConfig(agent="oracle"),
                  aclose=aclose)
    assert closed == [True]


def test_an_interrupt_says_how_many_results_were_kept(tmp_path):
    suite = cases(n=5, actions=(2, 3))
    count = []

    def stop_after_two(trace, verdict) -> None:
        count.append(1)
        if len(count) == 2:
            raise KeyboardInterrupt

    with pytest.raises(RunInterrupted) as info:
        run_suite(tmp_path / "run", suite, make_agent("oracle"), RunConfig(agent="oracle", concurrency=1),
                  on_result=stop_after_two)
    assert (info.value.saved, info.value.total) == (2, 5)
    more: list[str] = []
    run_suite(tmp_path / "run", suite, make_agent("oracle"), RunConfig(agent="oracle", concurrency=1),
              on_result=lambda trace, verdict: more.append(trace.case_id))
    assert len(more) == 3  # resuming runs only what the interrupt left


def test_api_run_suite_goes_the_same_way_and_reports_each_result(tmp_path):
    suite = cases(n=4, actions=(2, 3))
    seen: list[bool] = []
    summary = pp.run_suite(suite, "oracle", tmp_path / "api", on_result=lambda t, v: seen.append(v.passed))
    assert seen == [True] * 4 and summary.overall.passed == 4


def test_a_serial_backend_runs_one_case_at_a_time_and_says_so():
    notes: list[str] = []
    assert effective_concurrency("local", 8, notes.append) == 1 and "one call at a time" in notes[0]
    assert effective_concurrency("openai:x", 8, notes.append) == 8 and len(notes) == 1
    assert effective_concurrency(None, 3) == 3


def test_params_identity_names_what_changes_results():
    from planprobe.models import ModelOptions
    from planprobe.models.base import ChatParams

    params = ChatParams(temperature=0.5, seed=0, max_tokens=9)
    assert params_identity(params) == "temperature=0.5,max_tokens=9"
    assert params_identity(params, ModelOptions(tool_result_role="user")).endswith(",tool_results_as=user")
    assert params_identity(None) == ""


class _NotToRun:
    """An agent the run must not use: with a runner, the cases run elsewhere."""

    name = "not-to-run"

    async def run(self, *args, **kwargs):  # pragma: no cover - reaching it fails the test
        raise AssertionError("the in-process agent ran although a runner was given")


def test_a_runner_runs_the_pending_cases_instead_of_the_agent_after_the_models_close(tmp_path):
    from planprobe.runner.engine import run_pending

    suite = cases(n=4, actions=(2, 3))
    config = RunConfig(agent="oracle", seed=1)
    order: list[str] = []
    seen: list[str] = []

    async def aclose() -> None:
        order.append("aclose")

    def runner(store, on_result) -> None:  # what planprobe.scale does, in this process
        order.append("runner")
        asyncio.run(run_pending(store, make_agent("oracle"), config, on_result))

    result = run_suite(tmp_path / "run", suite, _NotToRun(), config, runner=runner, aclose=aclose,
                       on_result=lambda trace, verdict: seen.append(trace.case_id), summarize=summarize)
    assert order == ["aclose", "runner"]
    assert sorted(seen) == sorted(c.id for c in suite)
    assert result.summary.overall.cases == 4 and result.summary.overall.passed == 4


def test_ctrl_c_in_a_runner_reports_what_was_kept(tmp_path):
    suite = cases(n=3, actions=(2, 3))

    def runner(store, on_result) -> None:
        raise KeyboardInterrupt

    with pytest.raises(RunInterrupted) as stop:
        run_suite(tmp_path / "run", suite, _NotToRun(), RunConfig(agent="oracle"), runner=runner)
    assert (stop.value.saved, stop.value.total) == (0, 3)


def test_the_scaled_runner_from_planprobe_scale_fills_the_store_like_one_process(tmp_path):
    from planprobe.scale import (
        ScaleOptions,
        WorkerRecipe,
        runs_elsewhere,
        scaled_runner,
    )

    suite = cases(n=6, actions=(2, 3))
    config = RunConfig(agent="random", seed=3, trials=2, concurrency=2)
    assert scaled_runner(None, WorkerRecipe("random"), config) is None
    assert scaled_runner(ScaleOptions(workers=1), WorkerRecipe("random"), config) is None
    options = ScaleOptions(workers=2)
    assert runs_elsewhere(options)
    runner = scaled_runner(options, WorkerRecipe("random"), config, warn=lambda line: None)
    assert runner is not None
    scaled = run_suite(tmp_path / "scaled", suite, _NotToRun(), config, runner=runner, summarize=summarize)
    local = run_suite(tmp_path / "local", suite, make_agent("random", 3), config, summarize=summarize)
    assert scaled.summary.overall.cases == local.summary.overall.cases == 12
    assert scaled.summary.overall.passed == local.summary.overall.passed
