"""``--agent langgraph:…``: LangGraph's prebuilt ReAct agent, built by a user factory, driven by
planprobe's model or by the user's own ChatOpenAI, against real servers on loopback: a scripted
one (exact verdicts, equal to the ``tools`` agent's) and llama.cpp's with the embedded model."""

from __future__ import annotations

import subprocess

import pytest

pytest.importorskip("langgraph", reason="the langgraph extra is not installed")
pytest.importorskip("langchain_openai", reason="langchain-openai is not installed")

from plan_script import PlanScript

from helpers import cases, planprobe_cmd, run_agent, subprocess_env
from http_faults import ScriptedServer
from llama_server import free_port
from planprobe import check
from planprobe.agents import make_agent
from planprobe.environment import Limits
from planprobe.models import ModelOptions, make_model
from planprobe.models.base import ChatParams
from planprobe.runner.store import RunStore
from planprobe.suites.io import write_suite

HERE = str(__import__("pathlib").Path(__file__).parent)


def _agent(name, url, factory="lg_agents:react"):
    model = make_model("openai:scripted", ModelOptions(base_url=url, cache=False, request_timeout=100000))
    return make_agent(name if name != "langgraph" else f"langgraph:{factory}", 0, model=model,
                      params=ChatParams(seed=0))


def _env():
    import os

    import planprobe

    src = str(__import__("pathlib").Path(planprobe.__file__).parents[1])
    return subprocess_env(PYTHONPATH=os.pathsep.join([HERE, src, os.environ.get("PYTHONPATH", "")]))


@pytest.fixture(autouse=True)
def _importable(monkeypatch):
    monkeypatch.syspath_prepend(HERE)


@pytest.mark.parametrize("mode", ["reference", "reversed", "shuffled"])
def test_the_prebuilt_react_agent_gets_the_same_trace_and_verdict_as_the_tools_agent(mode):
    suite = cases(4, seed=21, actions=(3, 4))
    script = PlanScript(suite, mode)
    with ScriptedServer(script) as server:
        for case in suite:
            mine = run_agent(_agent("tools", server.url), case)
            theirs = run_agent(_agent("langgraph", server.url), case)
            a, b = check(case, mine), check(case, theirs)
            assert (a.passed, a.errors) == (b.passed, b.errors)
            assert a.passed is (mode == "reference") or mode == "shuffled"
            assert [(c.name, c.args, c.result, c.error) for c in mine.tool_calls] == \
                [(c.name, c.args, c.result, c.error) for c in theirs.tool_calls]
            assert theirs.final_answer == "All done." and theirs.status.value == "completed"
            assert theirs.iterations == mine.iterations == len(mine.tool_calls) + 1
            assert theirs.usage.model_dump() == mine.usage.model_dump()
            roles = [m.role for m in theirs.messages]
            assert roles == [m.role for m in mine.messages]  # system, user, (assistant, tool)*, assistant
            assert theirs.agent == "langgraph:lg_agents:react"
    # the graph sent the case's tools, with their schemas as the case has them, to the model
    sent = [r["tools"] for r in server.requests]
    assert sent[0::2] == sent[1::2] or len(sent) % 2 == 0 and all(script.tools_seen)
    schemas = {t["function"]["name"]: t["function"]["parameters"] for req in sent for t in req}
    assert schemas == {t.name: t.parameters for c in suite for t in c.tools}


def test_the_users_own_chat_openai_is_traced_too(monkeypatch, tmp_path):
    from planprobe.api import run_suite

    suite = cases(2, seed=22, actions=(3, 3))
    with ScriptedServer(PlanScript(suite)) as server:
        monkeypatch.setenv("LG_TEST_BASE_URL", server.url)
        monkeypatch.setenv("LG_TEST_MODEL", "scripted")
        # one event loop for the run, as the CLI does (ChatOpenAI keeps its client across cases)
        run_suite(suite, _agent("langgraph", server.url, "lg_agents:react_chat_openai"), tmp_path / "run",
                  concurrency=1)
    results = list(RunStore(tmp_path / "run").results())
    assert len(results) == 2
    for trace, verdict in results:
        assert verdict.passed and trace.final_answer == "All done."
        n = len(trace.tool_calls)
        assert trace.usage.model_calls == n + 1
        assert trace.usage.prompt_tokens == sum(100 + i for i in range(n)) + 200


def test_the_iteration_limit_holds_inside_the_graph():
    suite = cases(1, seed=23, actions=(4, 4))
    with ScriptedServer(PlanScript(suite)) as server:
        trace = run_agent(_agent("langgraph", server.url), suite[0], Limits(max_iterations=2))
    assert trace.status.value == "iteration_limit" and len(trace.tool_calls) == 2


def test_langgraph_from_the_command_line_on_the_embedded_model_via_llama_cpp(llama_server, tmp_path):
    suite = tmp_path / "suite.jsonl"
    write_suite(cases(1, seed=4, actions=(2, 2)), suite)  # one case: the plumbing, not the model, is under test
    out = tmp_path / "run"
    proc = subprocess.run(planprobe_cmd() + ["run", str(suite), "--model", "openai:smollm2", "--base-url", llama_server,
                                             "--agent", "langgraph:lg_agents:react", "--out", str(out), "--no-cache",
                                             "--timeout", "1000000", "--request-timeout", "100000",
                                             "--max-iterations", "4", "--tool-results-as", "user"],
                          capture_output=True, text=True, check=False, env=_env())
    assert proc.returncode == 0, proc.stderr
    results = list(RunStore(out).results())
    assert len(results) == 1
    for trace, verdict in results:
        assert not verdict.infra, trace.errors
        assert trace.usage.model_calls >= 1 and trace.messages[0].role == "system"


def test_an_unreachable_server_is_infrastructure_for_the_case(tmp_path, monkeypatch):
    suite = cases(1, seed=4, actions=(2, 2))
    url = f"http://127.0.0.1:{free_port()}/v1"
    monkeypatch.setenv("LG_TEST_BASE_URL", url)
    monkeypatch.setenv("LG_TEST_MODEL", "x")
    from planprobe.api import run_suite

    summary = run_suite(suite, _agent("langgraph", url, "lg_agents:react_chat_openai"), tmp_path / "run",
                        concurrency=1)
    (trace, verdict), = RunStore(tmp_path / "run").results()
    assert verdict.infra and "Connection error" in trace.errors[-1].message
    assert summary is not None


@pytest.mark.parametrize("spec, message", [
    ("langgraph:no_such_module_xyz:f", "--agent langgraph:no_such_module_xyz:f: cannot import"),
    ("langgraph:lg_agents:NOT_CALLABLE", "'NOT_CALLABLE' is a int, not a callable factory"),
    ("langgraph:lg_agents:missing", "lg_agents has no 'missing'"),
    ("langgraph", "needs a factory"),
])
def test_a_bad_factory_is_one_line_naming_the_spec(tmp_path, spec, message):
    suite = tmp_path / "suite.jsonl"
    write_suite(cases(1, seed=4, actions=(2, 2)), suite)
    proc = subprocess.run(planprobe_cmd() + ["run", str(suite), "--agent", spec, "--model", "openai:x", "--base-url",
                                             "http://127.0.0.1:9/v1", "--out", str(tmp_path / "run")],
                          capture_output=True, text=True, check=False, env=_env())
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr


def test_the_factory_gets_none_without_model(tmp_path):
    suite = tmp_path / "suite.jsonl"
    write_suite(cases(1, seed=4, actions=(2, 2)), suite)
    proc = subprocess.run(planprobe_cmd() + ["run", str(suite), "--agent", "langgraph:lg_agents:without_model",
                                             "--out", str(tmp_path / "run"), "-q"],
                          capture_output=True, text=True, check=False, env=_env())
    assert proc.returncode == 0, proc.stderr
    (trace, _verdict), = RunStore(tmp_path / "run").results()
    assert trace.final_answer.startswith("model is None;") and trace.status.value == "completed"


def test_the_module_form_finds_a_file_in_the_current_directory_as_python_m_would(tmp_path):
    """`langgraph:my_graphs:build` with my_graphs.py where the user is: the `planprobe` script does not
    have the current directory on its import path (`python -P` starts the same way)."""
    import os
    import sys

    suite = tmp_path / "suite.jsonl"
    write_suite(cases(1, seed=4, actions=(2, 2)), suite)
    (tmp_path / "my_graphs_here.py").write_text(
        "from lg_agents import without_model\n\n\ndef build(tools, model):\n    return without_model(tools, model)\n")
    env = _env()
    # the tests' own folder stays importable (lg_agents), the current directory is not on the path
    env["PYTHONPATH"] = os.pathsep.join(p for p in env["PYTHONPATH"].split(os.pathsep) if p and os.path.isabs(p))
    proc = subprocess.run([sys.executable, "-P", "-m", "planprobe", "run", str(suite), "--agent",
                           "langgraph:my_graphs_here:build", "--model", "openai:x", "--base-url",
                           "http://127.0.0.1:9/v1", "--out", str(tmp_path / "run"), "-q"],  # (the graph calls no model)
                          cwd=tmp_path, capture_output=True, text=True, check=False, env=env)
    assert proc.returncode == 0, proc.stderr
    (trace, verdict), = RunStore(tmp_path / "run").results()
    assert trace.agent == "langgraph:my_graphs_here:build" and trace.final_answer.startswith("model is ")
    assert not verdict.infra and trace.status.value == "completed"
