"""errorbench's output read by AgentDebug's OWN readers (``parse_trajectory`` of stage 1,
``load_original_trajectory`` of stage 2, loaded from its code: agentdebug_code.py): every
critical step is a step they read, a run with no step is a trajectory, the whole task survives
their reading, a modular run at the limit keeps its last observation, and the agent's own crash
is not AgentDebug's environment_error."""

from __future__ import annotations

import json
import re
import subprocess

import pytest
from agentdebug_code import agentdebug_readers, require

from helpers import cases as constraint_cases
from helpers import planprobe_cmd, subprocess_env
from planprobe.agents.modular import ModularAgent
from planprobe.api import run_suite
from planprobe.environment import Limits
from planprobe.models.base import ChatResult
from planprobe.runner.store import RunStore
from planprobe.schema import Message
from planprobe.suites.pddl_agent import PDDLSuiteOptions, generate_cases
from planprobe.suites.registry import get_family


def pp(*args):
    return subprocess.run(planprobe_cmd() + [str(a) for a in args], capture_output=True, text=True,
                          env=subprocess_env(), timeout=300)


class FirstToolModel:
    """Answers every prompt by calling the first tool the prompt lists (it knows nothing else)."""

    name = "first-tool"

    async def chat(self, messages, tools, params):
        listed = re.search(r"^- ([^:\s]+):", messages[-1].content, re.MULTILINE)
        reply = (f"<plan>Call {listed.group(1)}.</plan>\n<action>tool: {listed.group(1)} parameters: {{}}</action>"
                 if listed else "<answer>done</answer>")
        return ChatResult(message=Message(role="assistant", content=reply))

    async def aclose(self):
        pass


class Crasher:
    """Makes the first call of the reference plan (as the built-in oracle agent would), then its own
    code raises (an agent_crash)."""

    name = "crasher"

    async def __call__(self, case, env):
        first = get_family(case.family).reference_plan(case)[0]
        env.step()
        env.call(first.name, first.arguments)
        raise RuntimeError("the agent's own bug")


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    root = tmp_path_factory.mktemp("adbench")
    cases = constraint_cases(4, seed=6)
    blocks = list(generate_cases(PDDLSuiteOptions(domain="blocksworld", n=3, seed=6, blocks=(3, 4))))
    run_suite(cases, "random", root / "random", concurrency=1, limits=Limits(max_iterations=3))
    run_suite(cases, "oracle", root / "short", concurrency=1, limits=Limits(max_iterations=2))  # right, too slow
    run_suite(blocks, "random", root / "pddl", concurrency=1, limits=Limits(max_iterations=4))
    run_suite(cases[:2], "faulty:stall", root / "stall", concurrency=1, limits=Limits(max_iterations=3))
    run_suite(cases[:2], Crasher(), root / "crash", concurrency=1)
    run_suite(cases[:2] + blocks[:1], ModularAgent(FirstToolModel()), root / "modular", concurrency=1,
              limits=Limits(max_iterations=3))
    rows = {}
    for name in ("random", "short", "pddl", "stall", "crash", "modular"):
        r = pp("errorbench", root / name, "-o", root / f"{name}.jsonl", "-q")
        assert r.returncode == 0, r.stderr
        rows[name] = [json.loads(x) for x in (root / f"{name}.jsonl").read_text().splitlines()]
        assert rows[name], name
    return root, rows


@pytest.fixture(scope="module")
def agentdebug(tmp_path_factory):
    return agentdebug_readers(tmp_path_factory.mktemp("agentdebug-code"))


def _all(rows):
    return [row for name in rows for row in rows[name]]


def test_every_critical_step_is_a_step_agentdebugs_reader_reads(agentdebug, bench):
    agentdebug = require(agentdebug)
    _, rows = bench
    limit_endings = 0
    for row in _all(rows):
        crit = row["critical_error"]
        if crit is None:
            continue
        parsed = agentdebug.parse_trajectory(row)
        assert 1 <= crit["critical_step"] <= parsed["total_steps"], (crit, parsed["total_steps"])
        assert crit["error_type"] in agentdebug.valid_types(crit["critical_module"])
        if row["metadata"]["status"] == "iteration_limit" and crit["error_type"] == "step_limit":
            limit_endings += 1  # AgentDebug marks step_limit on the step where the limit is reached: the last
            assert crit["critical_step"] == parsed["total_steps"] == row["labels"]["steps"]
            assert row["labels"]["critical"]["step"] == row["labels"]["steps"] + 1  # the labels keep T+1
    assert limit_endings >= len(rows["short"]) == 4


def test_a_run_with_no_step_is_a_trajectory_not_a_refused_file(bench, agentdebug, tmp_path):
    root, rows = bench
    for row in rows["stall"]:
        assert agentdebug is None or agentdebug.parse_trajectory(row)["total_steps"] == 0  # AgentDebug reads it
        assert row["critical_error"] is None and row["labels"]["critical"]["type"] == "step_limit"
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text((root / "stall.jsonl").read_text() + (root / "random.jsonl").read_text())
    r = pp("import", "agentdebug", mixed, "-o", tmp_path / "back.jsonl")
    assert r.returncode == 0, r.stderr
    assert len((tmp_path / "back.jsonl").read_text().splitlines()) == len(rows["stall"]) + len(rows["random"])
    r = pp("detect", mixed, "--detector", "oracle", "--json", "-q")
    assert r.returncode == 0, r.stderr
    scores = json.loads(r.stdout)
    assert scores["n"] == len(rows["random"]) and scores["unlabelled"] == len(rows["stall"])
    assert scores["step"]["rate"] == 1.0


def test_agentdebugs_reader_keeps_the_whole_task(agentdebug, bench):
    agentdebug = require(agentdebug)
    _, rows = bench
    multi_line = 0
    for row in _all(rows):
        task = row["metadata"]["task"]
        multi_line += "\n" in task
        parsed = agentdebug.parse_trajectory(row)
        assert parsed["task_description"].replace(" / ", " ").split() == task.split(), row["metadata"]["agent"]
        original = agentdebug.load_original_trajectory(row)
        assert original["chat_history"] == row["messages"] and original["task_success"] is False
    assert multi_line >= 5


def test_a_modular_run_at_the_limit_keeps_its_last_observation(agentdebug, bench):
    agentdebug = require(agentdebug)
    root, rows = bench
    store = RunStore(root / "modular")
    try:
        at_limit = 0
        for row in rows["modular"]:
            trace = store.trace(row["metadata"]["task_id"], row["metadata"]["trial"])
            parsed = agentdebug.parse_trajectory(row)
            assert parsed["total_steps"] == len(trace.tool_calls) + (trace.final_answer is not None)
            for step, call in zip(parsed["steps"], trace.tool_calls):
                assert call.result in step["env_response"], (step["step"], call.result)
            at_limit += row["metadata"]["status"] == "iteration_limit"
    finally:
        store.close()
    assert at_limit >= 2


def test_the_agents_own_crash_is_not_an_environment_error(bench, agentdebug):
    _, rows = bench
    for row in rows["crash"]:
        crit = row["critical_error"]
        assert row["metadata"]["status"] == "agent_error" and crit["critical_step"] == 1  # its one step
        assert (crit["critical_module"], crit["error_type"]) == ("others", "others")
        if agentdebug is not None:  # AgentDebug: environment_error is the environment's bug
            assert "environment" in agentdebug.definition("system", "environment_error").lower()
            assert crit["error_type"] in agentdebug.valid_types("others")
            assert agentdebug.parse_trajectory(row)["total_steps"] == 1

