"""Agents with roles (issue #13 item 5): ``--model`` per role, python: agents given models,
and traces that say which role made every message and call."""

from __future__ import annotations

import asyncio
import subprocess
import textwrap

import pytest

from helpers import cases, planprobe_cmd, subprocess_env
from planprobe.agents import make_agent
from planprobe.agents.tools_agent import ToolsAgent
from planprobe.errors import PlanprobeError
from planprobe.models.base import ChatResult
from planprobe.models.roles import (
    ANY_ROLE,
    RoleModels,
    build_role_models,
    parse_role_specs,
)
from planprobe.runner.store import RunStore
from planprobe.schema import Message, Trace, Usage


class Named:
    def __init__(self, name: str):
        self.name = name
        self.closed = 0

    async def chat(self, messages, tools, params):
        return ChatResult(Message(role="assistant", content="done"), Usage(model_calls=1))

    async def aclose(self) -> None:
        self.closed += 1


@pytest.mark.parametrize("text, specs", [
    ("local", {ANY_ROLE: "local"}),
    ("openai:qwen2.5:7b", {ANY_ROLE: "openai:qwen2.5:7b"}),  # colons are never roles
    ("manager=openai:gpt-4o,executor=local", {"manager": "openai:gpt-4o", "executor": "local"}),
    ("local, executor=openai:x", {ANY_ROLE: "local", "executor": "openai:x"}),
    ("openai:a=b", {ANY_ROLE: "openai:a=b"}),  # 'openai:a' is not a role name
])
def test_role_specs_parse(text, specs):
    assert parse_role_specs(text) == specs


@pytest.mark.parametrize("text, message", [
    ("", "an empty model"), ("manager=", "an empty model"), ("local,,x=local", "an empty model"),
    ("local,openai:x", "two default models"), ("a=local,a=openai:x", "role 'a' twice"),
])
def test_bad_role_specs_are_refused_naming_the_option(text, message):
    with pytest.raises(PlanprobeError, match=f"--model .*{message}"):
        parse_role_specs(text)


def test_each_distinct_model_is_built_once_and_closed_once():
    built = []

    def build(spec):
        built.append(spec)
        return Named(spec)

    models = build_role_models("local,manager=openai:m,executor=local", build)
    assert built == ["local", "openai:m"]
    assert models.get("executor") is models.get("anyone") is models.get(ANY_ROLE)
    assert models.name == "local,executor=local,manager=openai:m"
    assert models.names() == {"*": "local", "executor": "local", "manager": "openai:m"}
    asyncio.run(models.aclose())
    assert [m.closed for m in (models.get("executor"), models.get("manager"))] == [1, 1]
    single = RoleModels.of(Named("local"))
    assert single.name == "local" and single.names() == {}  # as a run stored its model before roles


def test_single_model_agents_take_their_one_role_and_refuse_others():
    m = Named("x")
    agent = make_agent("tools", model={"agent": m})
    assert isinstance(agent, ToolsAgent) and agent.model is m
    with pytest.raises(PlanprobeError, match="role 'manager', which --agent tools does not have"):
        make_agent("tools", model={"manager": m})
    with pytest.raises(PlanprobeError, match="needs a model"):
        make_agent("react")


AGENT = textwrap.dedent('''
    from planprobe.schema import Message

    async def planner(case, env, models=None):
        manager = env.as_role("manager")
        manager.log(Message(role="user", content=case.task))
        names = [models.for_role(r).name for r in ("manager", "executor")] if models else []
        for tool in env.tools:
            env.step()
            executor = manager.sub_episode("executor", task=tool.name)
            executor.log(Message(role="assistant", content="on it"))
            executor.call(tool.name, "{}")
            executor.finish("done " + tool.name)
        return " ".join(names)
''')


def _run(tmp_path, *model):
    (tmp_path / "planner.py").write_text(AGENT)
    suite = tmp_path / "s.jsonl"
    subprocess.run(planprobe_cmd() + ["generate", "constraints", "--n", "3", "--actions", "3", "-o", str(suite)],
                   check=True, capture_output=True)
    env = subprocess_env(OPENAI_API_KEY="sk-test-not-used")
    return subprocess.run(planprobe_cmd() + ["run", str(suite), "--agent", f"python:{tmp_path / 'planner.py'}:planner",
                                             "--out", str(tmp_path / "run"), "--base-url", "http://127.0.0.1:9/v1",
                                             "--no-cache", "-q", *model],
                          capture_output=True, text=True, env=env, cwd=tmp_path)


def test_a_python_agent_gets_a_model_per_role_and_its_trace_says_who_did_what(tmp_path):
    r = _run(tmp_path, "--model", "manager=openai:m1,executor=openai:m2")
    assert r.returncode == 0, r.stderr
    store = RunStore(tmp_path / "run")
    try:
        assert store.meta()["model"] == "executor=openai:m2,manager=openai:m1"
        for trace, verdict in store.results():
            assert trace.final_answer == "openai:m1 openai:m2"
            assert trace.model == "executor=openai:m2,manager=openai:m1"
            assert trace.models == {"executor": "openai:m2", "manager": "openai:m1"}
            assert [(m.agent, m.step) for m in trace.messages] == [("manager", 0)]
            assert [(c.agent, c.step, c.episode) for c in trace.tool_calls] == \
                [("executor", i + 1, f"executor-{i + 1}") for i in range(len(trace.tool_calls))]
            assert [(e.id, e.agent, e.parent, e.step, e.final_answer) for e in trace.episodes] == \
                [(f"executor-{i + 1}", "executor", None, i + 1, f"done {c.name}") for i, c in
                 enumerate(trace.tool_calls)]
            assert verdict.checker  # judged like any other trace: every call counts
    finally:
        store.close()
    # the same models in another order are the same settings: a resume with nothing to do
    r = _run(tmp_path, "--model", "executor=openai:m2,manager=openai:m1")
    assert r.returncode == 0, r.stderr
    r = _run(tmp_path, "--model", "executor=openai:m3,manager=openai:m1")
    assert r.returncode == 2 and "model=executor=openai:m2,manager=openai:m1" in r.stderr


def test_a_python_agent_runs_without_a_model_too(tmp_path):
    r = _run(tmp_path)
    assert r.returncode == 0, r.stderr
    trace = next(RunStore(tmp_path / "run").results())[0]
    assert trace.final_answer == "" and trace.model is None and trace.models == {}


@pytest.mark.parametrize("agent, model, message", [
    ("tools", "manager=local", "role 'manager', which --agent tools does not have"),
    ("tools", "local,local", "two default models"),
    ("oracle", "local", "not by --agent oracle"),
])
def test_role_options_are_refused_in_one_line_before_a_model_loads(tmp_path, agent, model, message):
    suite = tmp_path / "s.jsonl"
    subprocess.run(planprobe_cmd() + ["generate", "constraints", "--n", "2", "-o", str(suite)], check=True,
                   capture_output=True)
    r = subprocess.run(planprobe_cmd() + ["run", str(suite), "--agent", agent, "--model", model, "--out",
                                          str(tmp_path / "r")], capture_output=True, text=True, env=subprocess_env())
    assert r.returncode == 2 and message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "r").exists()


def test_annotations_never_reach_a_model():
    m = Message(role="assistant", content="x", agent="manager", step=3)
    assert m.wire() == {"role": "assistant", "content": "x"}
    from planprobe.models.base import message_json

    assert message_json([m]) == [{"role": "assistant", "content": "x"}]


def test_newer_trace_versions_are_refused_and_older_read():
    assert Trace.model_validate({"schema_version": 1, "case_id": "c", "agent": "a"}).schema_version == 1
    with pytest.raises(ValueError, match="newer than this planprobe understands"):
        Trace.model_validate({"schema_version": 99, "case_id": "c", "agent": "a"})


def test_a_single_model_agent_records_its_role_and_steps():
    case = cases(1, seed=5)[0]
    from planprobe.environment import Limits
    from planprobe.runner.engine import run_episode

    trace = asyncio.run(run_episode(case, ToolsAgent(Named("x")), Limits(), model="x"))
    assert [(m.role, m.agent, m.step) for m in trace.messages] == \
        [("system", "agent", 0), ("user", "agent", 0), ("assistant", "agent", 1)]
    assert trace.models == {} and trace.episodes == []


def test_a_view_shares_its_environments_state():
    """A role's view acts on the same environment: a restart granted through it is the environment's."""
    from planprobe.environment import Limits
    from planprobe.suites.registry import get_family, restart_tool_of

    case = cases(1, seed=6, extended=True)[0]
    env = get_family(case.family).environment(case, Limits(), 0, "t")
    view = env.as_role("executor").sub_episode("executor", task="one")
    restart = restart_tool_of(case)
    assert restart is not None
    view.step()
    view.call(restart.name, "{}")
    assert env.attempt == view.attempt == 1 and env.trace.iterations == 1
    assert env.trace.tool_calls[0].episode == "executor-1" and view.prepared is env.prepared
    view.add_usage(Usage(model_calls=2))
    assert env.trace.usage.model_calls == 2 and env.trace.episodes[0].usage.model_calls == 2
