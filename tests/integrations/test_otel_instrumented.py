"""`planprobe check --format otel` on spans written by the real instrumentation packages: a
LangGraph agent traced by OpenInference's LangChain instrumentation, and an OpenAI-client
agent traced by opentelemetry-instrumentation-openai-v2 (messages on the spans, or as log records
on its older event path), all talking to `--model solver`
served on loopback and acting through tools of their own. The solver's runs pass; an agent
that stops early fails with the error class its own tool log gets when judged directly."""

from __future__ import annotations

import importlib.util
import subprocess

import pytest

pytest.importorskip("opentelemetry.sdk", reason="opentelemetry-sdk is not installed (pip install 'planprobe[otel]')")
pytest.importorskip("opentelemetry.exporter.otlp.proto.common", reason="opentelemetry-exporter-otlp-proto-common "
                                                                       "is not installed")

import otel_agents

from helpers import cases, planprobe_cmd, solver_endpoint, subprocess_env
from planprobe import check
from planprobe.runner.store import RunStore
from planprobe.suites.io import write_suite


@pytest.fixture(autouse=True)
def _importable(monkeypatch):
    monkeypatch.syspath_prepend(str(__import__("pathlib").Path(__file__).parent))


@pytest.fixture
def solver():
    with solver_endpoint() as url:
        yield url


def run_check(suite, traces, out, *extra):
    proc = subprocess.run(planprobe_cmd() + ["check", str(suite), str(traces), "--out", str(out), "-q", *extra],
                          capture_output=True, text=True, env=subprocess_env(), timeout=600)
    assert proc.returncode == 0, proc.stderr
    with RunStore(out) as store:
        return {t.case_id: (t, v) for t, v in store.results()}


def calls(trace):
    return [(c.name, c.args, c.result, c.error) for c in trace.tool_calls]


def test_a_langgraph_agent_traced_by_openinference_is_graded_from_its_spans(solver, tmp_path):
    pytest.importorskip("langgraph", reason="langgraph is not installed")
    pytest.importorskip("langchain_openai", reason="langchain-openai is not installed")
    pytest.importorskip("openinference.instrumentation.langchain",
                        reason="openinference-instrumentation-langchain is not installed")
    from openinference.instrumentation import using_metadata

    first, second = cases(2, seed=31, actions=(3, 4))
    twin = second.model_copy(update={"id": second.id + "-twin"})  # the same task: only its id tells them apart
    suite_cases = [first, second, twin]
    suite = tmp_path / "suite.jsonl"
    write_suite(suite_cases, suite)
    spans = tmp_path / "spans.jsonl"
    provider = otel_agents.tracer_provider(spans)
    own = {}
    with otel_agents.openinference_langchain(provider):
        for case in suite_cases:
            env = otel_agents.environment(case)
            if case is first:  # no case id anywhere: the run is found by its task
                otel_agents.langgraph_agent(case, env, solver)
            else:  # OpenInference's metadata carries the case id onto every span
                with using_metadata({"planprobe.case_id": case.id}):
                    otel_agents.langgraph_agent(case, env, solver)
            own[case.id] = env.trace
    for fmt in ("otel", "auto"):
        got = run_check(suite, spans, tmp_path / f"check-{fmt}", "--format", fmt)
        assert set(got) == {c.id for c in suite_cases}
        for case in suite_cases:
            trace, verdict = got[case.id]
            assert verdict.passed, (case.id, verdict.errors)
            assert calls(trace) == calls(own[case.id]) and len(trace.tool_calls) == len(case.tools)
            assert trace.usage.model_calls == len(case.tools) + 1 and trace.usage.prompt_tokens > 0
            assert trace.final_answer and trace.final_answer.startswith("All tasks have been executed")


@pytest.mark.parametrize("form", ["current", "legacy-events"])
def test_the_openai_client_traced_by_the_official_instrumentation_is_graded_from_its_spans(solver, tmp_path,
                                                                                           monkeypatch, form):
    """current: gen_ai.input/output.messages on the spans; legacy-events: one log record per message."""
    openai = pytest.importorskip("openai")
    if importlib.util.find_spec("opentelemetry.instrumentation.openai_v2") is None:
        pytest.skip("opentelemetry-instrumentation-openai-v2 is not installed")
    suite_cases = cases(2, seed=32, actions=(3, 3))
    suite = tmp_path / "suite.jsonl"
    write_suite(suite_cases, suite)
    spans = tmp_path / "spans.jsonl"
    provider = otel_agents.tracer_provider(spans)
    tracer = provider.get_tracer("production-agent")
    client = openai.OpenAI(base_url=solver, api_key="unused", max_retries=0)
    direct = {}
    instrumented = otel_agents.openai_v2_instrumented(provider, monkeypatch) if form == "current" else \
        otel_agents.openai_v2_legacy_events(provider, spans, monkeypatch)
    with instrumented:
        for case, budget in zip(suite_cases, (None, 2)):  # the second agent stops after two tool calls
            env = otel_agents.environment(case)
            with tracer.start_as_current_span("agent run", attributes={"planprobe.case_id": case.id}):
                answer = otel_agents.openai_agent(client, case, env, budget)
            if answer is not None:
                env.finish(answer)
            direct[case.id] = (env.trace, check(case, env.trace))
    if form == "legacy-events":  # the content is only in the log records: without them nothing is graded
        assert '"resourceLogs"' in spans.read_text() and "gen_ai.input.messages" not in spans.read_text()
    got = run_check(suite, spans, tmp_path / "check", "--format", "otel")
    right, wrong = suite_cases
    assert got[right.id][1].passed and direct[right.id][1].passed
    trace, verdict = got[wrong.id]
    own_trace, own_verdict = direct[wrong.id]
    assert not verdict.passed and verdict.errors[:1] == ["action_lost"] and verdict.errors == own_verdict.errors
    assert calls(trace) == calls(own_trace) and len(trace.tool_calls) == 2  # the asked-for third call never ran
    for case in suite_cases:
        assert calls(got[case.id][0]) == calls(direct[case.id][0])
        assert got[case.id][0].usage.prompt_tokens > 0 and got[case.id][0].meta["otel_trace_id"]
