"""The registries: a new family, agent or model kind is checked against its Protocol,
can never replace a built-in or an earlier registration, and never makes the
built-ins vanish; broken plug-ins are named in one line; the import cycles that
used to make some modules unimportable on their own are gone."""

from __future__ import annotations

import ast
import asyncio
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

import pytest

import planprobe as pp
from helpers import cases, run_agent
from planprobe.agents import agent_entry, make_agent, model_agents, unregister_agent
from planprobe.agents.prepare import prepare_agent
from planprobe.errors import PlanprobeError
from planprobe.models import ModelOptions, make_model, unregister_model
from planprobe.plugins import Registry
from planprobe.runner.suite_run import effective_concurrency
from planprobe.suites.base import (
    AnswersInText,
    GeneratesSuites,
    WrapsCases,
    capabilities,
)
from planprobe.suites.registry import families, get_family, unregister_family

SRC = Path(__file__).resolve().parents[1] / "src" / "planprobe"
BUILTINS = ["constraints", "holistic", "stepwise", "robust", "judged", "pddl", "planbench"]


class Tiny:
    """A complete family in a few lines: one tool, called once."""

    name = "tiny"
    faults: ClassVar[dict[str, str]] = {"drop": "action_lost"}

    def validate(self, case):
        pass

    def environment(self, case, limits, trial=0, agent=""):
        from planprobe.environment import Environment

        class Env(Environment):
            def execute(self, name, args):
                return "done", None

        return Env(case, limits, trial, agent)

    def check(self, case, trace):
        ok = [c.name for c in trace.tool_calls] == ["go"]
        return pp.Verdict(case_id=case.id, trial=trace.trial, passed=ok, errors=[] if ok else ["action_lost"])

    def reference_plan(self, case):
        return [pp.PlannedCall("go", "{}")]

    def random_plan(self, case, rng):
        return []

    def faulty_plan(self, case, fault, rng):
        return [] if fault == "drop" else None


@pytest.fixture
def tiny():
    family = pp.register_family(Tiny())
    yield family
    unregister_family("tiny")


def test_registering_a_family_keeps_the_builtins(tiny):
    assert get_family("tiny") is tiny
    assert list(families())[: len(BUILTINS)] == BUILTINS  # built-ins first, in their order
    assert get_family("constraints").name == "constraints"  # the old registry lost these
    case = pp.Case(id="t1", family="tiny", task="Go.", tools=[pp.ToolSpec(name="go", description="Go.")])
    assert get_family("tiny").check(case, run_agent(make_agent("oracle"), case)).passed
    trace = run_agent(make_agent("faulty:drop"), case)  # its fault is known to the faulty agent now
    assert trace.meta["expected_error"] == "action_lost" and not get_family("tiny").check(case, trace).passed


def test_a_name_is_taken_once(tiny):
    with pytest.raises(PlanprobeError, match="'tiny'.*already registered"):
        pp.register_family(Tiny())
    builtin = Tiny()
    builtin.name = "constraints"
    with pytest.raises(PlanprobeError, match="a built-in family has that name"):
        pp.register_family(builtin)
    with pytest.raises(PlanprobeError, match="built in and cannot be removed"):
        unregister_family("constraints")


def test_a_family_is_checked_against_the_protocol():
    class Half:
        name = "half"
        faults: ClassVar[dict[str, str]] = {}

        def check(self, case, trace): ...

    with pytest.raises(PlanprobeError, match="lacks validate, environment, reference_plan, random_plan, faulty_plan"):
        pp.register_family(Half())
    bad = Tiny()
    bad.faults = {"drop": 3}
    with pytest.raises(PlanprobeError, match="'faults' must map"):
        pp.register_family(bad)
    with pytest.raises(PlanprobeError, match="unknown case family 'tiny'"):
        get_family("tiny")  # nothing half-registered is left behind


def test_a_class_registers_as_a_decorator():
    @pp.register_family
    class Tiny2(Tiny):
        name = "tiny2"

    try:
        assert isinstance(get_family("tiny2"), Tiny2) and Tiny2.__name__ == "Tiny2"
    finally:
        unregister_family("tiny2")


def test_capabilities_are_named_protocols():
    assert "JudgesPrefixes" in capabilities(get_family("constraints"))
    assert isinstance(get_family("holistic"), (AnswersInText, WrapsCases))
    assert not isinstance(get_family("pddl"), AnswersInText)
    assert isinstance(get_family("lamps"), GeneratesSuites)  # the test plug-in's


def test_wrapper_fault_sets_come_from_the_registry(tiny):
    robust, holistic = get_family("robust").faults, get_family("holistic").faults
    assert robust["drop"] == "action_lost" and robust["distractor"] == "extraneous_tool"
    assert "impossible-action" in robust  # the PDDL family's, no longer hard-coded
    assert {"drop", "duplicate", "swap", "unknown-tool", "malformed-args"} <= set(robust) & set(holistic)
    assert "garble" not in holistic  # PlanBench's agents answer in text: nothing to wrap


def test_agents_are_registered_and_checked():
    made = []

    @pp.register_agent("echo", help="says the task", argument="<words>")
    def build(request: pp.AgentRequest):
        made.append(request)

        class Echo:
            name = f"echo:{request.arg}"

            async def __call__(self, case, env):
                env.finish(case.task)
                return case.task

        return Echo()

    try:
        agent = make_agent("echo:hi there", seed=7)
        assert agent.name == "echo:hi there" and made[-1].seed == 7 and made[-1].model is None
        assert "echo:<words> (says the task)" in pp.agents.agent_choices(described=True)
        with pytest.raises(PlanprobeError, match="already registered"):
            pp.register_agent("echo", build)
        with pytest.raises(PlanprobeError, match="a built-in agent has that name"):
            pp.register_agent("oracle", build)
        with pytest.raises(PlanprobeError, match="takes no ':' argument"):
            make_agent("oracle:x")
    finally:
        unregister_agent("echo")
    with pytest.raises(PlanprobeError, match="unknown agent 'echo'.*alphabetical"):
        agent_entry("echo")

    pp.register_agent("notanagent", lambda request: object())
    try:
        with pytest.raises(PlanprobeError, match="not an Agent"):
            make_agent("notanagent")
    finally:
        unregister_agent("notanagent")


def test_an_agent_that_needs_a_model_gets_one_and_the_cli_rules_follow():
    class Fake:
        name = "fake"

        async def chat(self, messages, tools, params): ...

        async def aclose(self): ...

    pp.register_model("fake", lambda name, options: Fake(), takes_name=False, serial=True)
    pp.register_agent("planner", lambda request: make_agent("tools", model=request.model), needs_model=True)
    try:
        assert "planner" in model_agents()
        name, agent, model = prepare_agent("planner", "fake", ModelOptions(cache=False), None, 0)
        assert (name, model.name, agent.model.name) == ("planner", "fake", "fake")
        with pytest.raises(PlanprobeError, match="--agent planner needs a model"):
            prepare_agent("planner", None, ModelOptions(), None, 0)
        with pytest.raises(PlanprobeError, match="--model is used by the tools, react, .*planner agents"):
            prepare_agent("oracle", "fake", ModelOptions(), None, 0)
        assert effective_concurrency("fake", 8) == 1 and effective_concurrency("openai:x", 8) == 8
        with pytest.raises(PlanprobeError, match="unknown model 'fake:x'"):
            make_model("fake:x", ModelOptions(cache=False))
    finally:
        unregister_agent("planner")
        unregister_model("fake")
    pp.register_model("broken", lambda name, options: object())
    try:
        with pytest.raises(PlanprobeError, match="not a Model"):
            make_model("broken:x", ModelOptions(cache=False))
    finally:
        unregister_model("broken")


def _distribution(root: Path, group: str, line: str) -> None:
    info = root / "badplug-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: badplug\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n{line}\n")


@pytest.mark.parametrize("line,message", [
    ("ghost = badplug_missing:Family", "cannot be loaded: ModuleNotFoundError"),
    ("ghost = json:dumps", "not a Family; it lacks name, faults"),
    ("constraints = json:dumps", "a built-in family has that name"),
])
def test_a_broken_plugin_is_named_in_one_line(tmp_path, monkeypatch, line, message):
    from planprobe.suites.registry import BUILTIN_FAMILIES, _as_family

    _distribution(tmp_path, "planprobe.test-only", line)
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = Registry("family", "planprobe.test-only", BUILTIN_FAMILIES, _as_family)
    with pytest.raises(PlanprobeError, match=message) as err:
        registry.all()
    if "cannot be loaded" in message:
        assert "from badplug" in str(err.value) and "planprobe.test-only" in str(err.value)
    assert registry.get("constraints") is not None  # a built-in is reachable whatever a plug-in does


def test_a_plugin_is_found_by_name_without_loading_the_others(tmp_path, monkeypatch):
    from planprobe.suites.registry import BUILTIN_FAMILIES, _as_family

    _distribution(tmp_path, "planprobe.test-only", "ghost = badplug_missing:Family")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = Registry("family", "planprobe.test-only", BUILTIN_FAMILIES, _as_family)
    assert registry.get("nothing") is None
    assert "ghost" in registry.names()  # listed for help texts without importing it


def _module_level_imports(path: Path, package: str) -> set[str]:
    """The planprobe modules a file imports when it is imported (not inside functions)."""
    tree = ast.parse(path.read_text())
    out = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            mod = ".".join(base + ([node.module] if node.module else []))
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("planprobe"):
            out.add(node.module)
    return out


def test_the_registry_imports_no_family_and_no_command_imports_cli():
    registry = _module_level_imports(SRC / "suites" / "registry.py", "planprobe.suites")
    assert not {m for m in registry if m.startswith(("planprobe.suites.protocols", "planprobe.suites.robust"))}
    for path in (SRC / "cli").glob("*.py"):  # the command modules never import the root (cli/root.py)
        assert "planprobe.cli.root" not in _module_level_imports(path, "planprobe.cli") or path.name == "__init__.py", \
            path.name


@pytest.mark.parametrize("module", ["planprobe.cli.judge", "planprobe.cli.planbench", "planprobe.cli.generate_pddl",
                                    "planprobe.suites.protocols", "planprobe.suites.robust",
                                    "planprobe.suites.registry"])
def test_each_module_imports_on_its_own(module):
    r = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-500:]


def test_make_agent_still_builds_every_builtin():
    assert {"tools", "react"} <= set(model_agents())
    assert make_agent("random", seed=2).seed == 2
    with pytest.raises(PlanprobeError, match="unknown fault 'x'"):
        make_agent("faulty:x")
    case = cases(n=1)[0]
    assert asyncio.run(make_agent("oracle")(case, get_family(case.family).environment(case, pp.Limits(), 0, "o")))
