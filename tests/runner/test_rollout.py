"""Re-rollout (issue #13 item 6): an episode restarted from a prefix of another, on every family.

A scripted model follows a faulty plan, so the original fails; the re-rollout keeps the steps
before the fault, inserts guidance, and the same model — which now sees the guidance — follows
the reference plan from where the prefix left it. That only passes if the prefix was replayed
into the environment (the oracle judges every call of the new trace) and the model's context
was rebuilt exactly (the model counts its earlier replies to know where it is)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from rollout_fakes import GUIDANCE, GuidedModel, divergence, plans

from helpers import cases
from planprobe.agents.python_adapter import CallableAgent
from planprobe.agents.react import ReactAgent
from planprobe.agents.reference import OracleAgent
from planprobe.agents.tools_agent import ToolsAgent
from planprobe.environment import Limits
from planprobe.errors import PlanprobeError
from planprobe.models.base import ChatParams
from planprobe.runner.engine import RunConfig, open_run, run_episode, run_pending
from planprobe.runner.rollout import rerollout, rerollout_in_run, trace_sha256
from planprobe.runner.store import RunStore
from planprobe.schema import Case, Message, TraceStatus
from planprobe.suites.itinerary.generate import ItineraryOptions
from planprobe.suites.itinerary.generate import generate_cases as itinerary_cases
from planprobe.suites.pddl_agent import PDDLSuiteOptions
from planprobe.suites.pddl_agent import generate_cases as pddl_cases
from planprobe.suites.planbench.generator import PlanBenchOptions
from planprobe.suites.planbench.generator import generate_cases as planbench_cases
from planprobe.suites.protocols import wrap_holistic, wrap_stepwise
from planprobe.suites.registry import families, get_family
from planprobe.suites.robust import parse_transforms, robustify

APB_SAMPLE = Path(__file__).resolve().parents[1] / "data" / "apb_sample.jsonl"
TRAVELPLANNER_TRAIN = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "travelplanner"
API_BANK = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "api-bank"


def _judged() -> list[Case]:
    from planprobe.importers.apb import iter_apb

    return [c for c in iter_apb(APB_SAMPLE) if get_family("judged").reference_plan(c)][:2]


def _travelplanner() -> list[Case]:
    """One case of each mode, from the shared training set (none when it is absent)."""
    if not TRAVELPLANNER_TRAIN.is_dir():
        return []
    from planprobe.importers.travelplanner import build_cases

    both = build_cases(modes=["sole-planning", "two-stage"], strict=False, train_dir=TRAVELPLANNER_TRAIN)
    return [next(c for c in both if c.id.endswith(mode)) for mode in ("sole-planning", "two-stage")]


def _api_bank() -> list[Case]:
    """A level-1 call, a level-3 step, response and whole run (none when the data set is absent)."""
    if not API_BANK.is_dir():
        return []
    from planprobe.importers.apibank import import_cases

    level1 = next(c for c in import_cases(API_BANK, 1, ("api",)) if c.spec["gold_consistent"])
    level3 = import_cases(API_BANK, 3)
    return [level1] + [next(c for c in level3 if c.spec["kind"] == k) for k in ("step", "response", "run")]


# every built-in family, the constraint family in both of its modes
CASES = {
    "constraints-basic": lambda: cases(3, seed=11),
    "constraints-timed": lambda: cases(3, seed=12, extended=True),
    "robust": lambda: [robustify(c, parse_transforms(t), 0) for c in cases(2, seed=13)
                       for t in (["extraneous:2"], ["broken"])],
    "robust-timed": lambda: [robustify(c, parse_transforms(["broken"]), 0) for c in cases(2, seed=14, extended=True)],
    "pddl-blocksworld": lambda: list(pddl_cases(PDDLSuiteOptions(domain="blocksworld", n=2, seed=3, blocks=(3, 4)))),
    "pddl-logistics": lambda: list(pddl_cases(PDDLSuiteOptions(domain="logistics", n=2, seed=3, packages=(1, 2),
                                                               cities=(1, 2), locations=(1, 2)))),
    "pddl-mystery": lambda: list(pddl_cases(PDDLSuiteOptions(domain="blocksworld", n=2, seed=4, blocks=(3, 3),
                                                             obfuscate="mystery"))),
    "planbench": lambda: list(planbench_cases(PlanBenchOptions(task="t1", n=2, seed=2, blocks=(3, 4)))),
    "holistic": lambda: [wrap_holistic(c) for c in cases(2, seed=15)],
    "stepwise": lambda: [wrap_stepwise(c, 1, random.Random(i)) for i, c in enumerate(cases(2, seed=16))],
    "judged": _judged,
    "travelplanner": _travelplanner,
    "api-bank": _api_bank,
    "itinerary": lambda: list(itinerary_cases(ItineraryOptions(n=3, seed=5))),
}


def test_every_built_in_family_is_covered():
    built_in = {name for name, f in families().items() if type(f).__module__.startswith("planprobe.")}
    covered = {c.family for make in CASES.values() for c in make()}
    if not TRAVELPLANNER_TRAIN.is_dir():  # its cases come from the shared data set
        covered.add("travelplanner")
    if not API_BANK.is_dir():
        covered |= {"apibank", "apibank-response"}
    assert built_in <= covered, f"families without a re-rollout test: {sorted(built_in - covered)}"


def _agent(kind: str, model: GuidedModel):
    return (ToolsAgent if kind == "tools" else ReactAgent)(model, ChatParams(seed=0))


def _original(case: Case, kind: str):
    bad, good, _fault = plans(case)
    model = GuidedModel(bad, good, react=kind == "react")
    trace = asyncio.run(run_episode(case, _agent(kind, model), Limits(), model=model.name))
    return model, trace, bad, good


@pytest.mark.parametrize("kind", ["tools", "react"])
@pytest.mark.parametrize("family_case", sorted(CASES))
def test_a_rerollout_from_the_fault_with_guidance_repairs_the_episode(family_case, kind):
    if not CASES[family_case]():
        pytest.skip(f"no {family_case} cases here (its data set is absent)")
    for case in CASES[family_case]():
        family = get_family(case.family)
        model, original, bad, good = _original(case, kind)
        first = family.check(case, original)
        formal = case.oracle.value == "formal"
        if formal:
            assert not first.passed, (case.id, "the faulty plan must fail for the test to mean anything")
        steps = 0 if isinstance(good, str) else divergence(bad, good)
        requests_before = len(model.requests)
        new = asyncio.run(rerollout(case, original, steps, _agent(kind, model), guidance=GUIDANCE, model=model.name))
        assert new.status == TraceStatus.COMPLETED, (case.id, new.errors)
        verdict = family.check(case, new)
        if formal:
            assert verdict.passed, (case.id, kind, verdict.errors, [e.text for e in verdict.evidence])
        else:
            assert [(c.name, c.arguments) for c in new.tool_calls] == [tuple(c) for c in good]

        # the prefix: the same calls with the same results, the same messages, then the guidance
        o = new.origin
        assert o is not None and (o.case_id, o.trial, o.agent, o.steps) == (case.id, 0, original.agent, steps)
        assert o.trace_sha256 == trace_sha256(original) and o.guidance == GUIDANCE and o.attempt == 1
        kept = [(c.name, c.arguments, c.result) for c in original.tool_calls if c.step <= steps]
        assert [(c.name, c.arguments, c.result) for c in new.tool_calls[:o.replayed_calls]] == kept
        assert o.replayed_calls == len(kept) == (0 if isinstance(good, str) else steps)
        assert [m.wire() for m in new.messages[:o.replayed_messages]] == \
            [m.wire() for m in original.messages if m.step <= steps]
        g = new.messages[o.guidance_message]
        assert (g.role, g.content, g.step, g.agent) == ("user", GUIDANCE, steps, "agent")
        assert o.guidance_message == o.replayed_messages

        # the model's first request in the re-rollout is the original's context at that point plus the guidance
        request = model.requests[requests_before]
        expected = [m.wire() for m in original.messages if m.step <= steps]
        if kind == "react":  # the agent keeps its replies stripped in its context
            expected = [{**m, "content": m["content"].rstrip()} if m["role"] == "assistant" else m for m in expected]
        assert [m.wire() for m in request] == expected + [{"role": "user", "content": GUIDANCE}]
        # usage is the new attempt's alone; the replayed steps count as iterations
        assert new.usage.model_calls == len(model.requests) - requests_before
        assert new.iterations == steps + new.usage.model_calls
        assert all(m.step is not None and m.agent == "agent" for m in new.messages)


def test_the_same_rerollout_twice_gives_the_same_trace():
    case = cases(1, seed=21)[0]
    model, original, bad, good = _original(case, "tools")
    runs = [asyncio.run(rerollout(case, original, divergence(bad, good), _agent("tools", model), guidance=GUIDANCE))
            for _ in range(2)]
    strip = [t.model_copy(update={"wall_time_s": 0, "tool_calls": [c.model_copy(update={"t_start": 0, "t_end": 0})
                                                                   for c in t.tool_calls]}) for t in runs]
    assert strip[0].model_dump_json() == strip[1].model_dump_json()


def test_without_guidance_from_zero_steps_is_a_plain_second_attempt():
    case = cases(1, seed=22)[0]
    model, original, bad, _good = _original(case, "tools")
    new = asyncio.run(rerollout(case, original, 0, _agent("tools", model)))
    assert new.origin.guidance is None and new.origin.guidance_message is None
    assert [(c.name, c.arguments) for c in new.tool_calls] == [tuple(c) for c in bad]  # no guidance: same mistake


def test_a_prefix_that_does_not_replay_is_refused():
    case, other = cases(2, seed=23)
    model, original, bad, good = _original(case, "tools")
    steps = max(1, divergence(bad, good))
    tampered = original.model_copy(deep=True)
    tampered.tool_calls[0].result = "Something else happened."
    with pytest.raises(PlanprobeError, match="replaying call 0 .* the trace is not of this case"):
        asyncio.run(rerollout(case, tampered, steps, _agent("tools", model)))
    tampered = original.model_copy(deep=True)
    tampered.tool_calls[0].error = "tool_failure"  # same text, another outcome: not the same episode either
    with pytest.raises(PlanprobeError, match="replaying call 0"):
        asyncio.run(rerollout(case, tampered, steps, _agent("tools", model)))
    with pytest.raises(PlanprobeError, match="is of case"):
        asyncio.run(rerollout(other, original, steps, _agent("tools", model)))
    with pytest.raises(PlanprobeError, match="cannot keep 99 steps"):
        asyncio.run(rerollout(case, original, 99, _agent("tools", model)))
    with pytest.raises(PlanprobeError, match="exceed the iteration limit"):
        asyncio.run(rerollout(case, original, steps, _agent("tools", model), Limits(max_iterations=steps - 1)))


def test_an_agent_that_cannot_resume_is_refused_by_name():
    case = cases(1, seed=24)[0]
    _model, original, _bad, _good = _original(case, "tools")
    with pytest.raises(PlanprobeError, match="'oracle' cannot continue from a prefix"):
        asyncio.run(rerollout(case, original, 1, OracleAgent()))

    async def no_prefix(case, env):
        return None

    with pytest.raises(PlanprobeError, match="must take a 'prefix' parameter"):
        asyncio.run(rerollout(case, original, 1, CallableAgent(no_prefix, "python:x:no_prefix")))


def test_a_python_agent_resumes_from_the_prefix_it_is_given():
    case = cases(1, seed=25)[0]
    family = get_family(case.family)
    _model, original, bad, good = _original(case, "tools")
    steps = divergence(bad, good)
    seen = {}

    async def agent(case, env, prefix=None):
        seen["prefix"] = prefix
        done = len(prefix.tool_calls) if prefix else 0
        for call in family.reference_plan(case)[done:]:
            env.step()
            env.call(call.name, call.arguments)
        return "done"

    new = asyncio.run(rerollout(case, original, steps, CallableAgent(agent, "python:t:agent"), guidance=GUIDANCE))
    prefix = seen["prefix"]
    assert prefix.steps == steps and prefix.guidance == GUIDANCE and prefix.messages[-1].content == GUIDANCE
    assert family.check(case, new).passed


def test_rerollouts_are_stored_beside_the_run_and_linked(tmp_path):
    suite = cases(2, seed=26)
    case = suite[0]
    bad, good, _ = plans(case)
    model = GuidedModel(bad, good)
    config = RunConfig(agent="tools", model=model.name)
    store = open_run(tmp_path / "run", suite, config)
    try:
        asyncio.run(run_pending(store, _agent("tools", model), config))
    finally:
        store.close()
    before = RunStore(tmp_path / "run").rows()
    steps = divergence(bad, good)
    for attempt in (1, 2):
        trace, verdict = rerollout_in_run(tmp_path / "run", case.id, 0, steps, _agent("tools", model),
                                          guidance=GUIDANCE, model=model.name)
        assert verdict.passed and trace.origin.attempt == attempt and trace.origin.run == str(tmp_path / "run")
    store = RunStore(tmp_path / "run")
    try:
        stored = store.rerollouts(case.id, 0)
        assert [t.origin.attempt for t, _ in stored] == [1, 2] and all(v.passed for _, v in stored)
        assert stored[0][0].origin.trace_sha256 == trace_sha256(store.trace(case.id, 0))
        assert store.rows() == before  # the run's own results (and so its summaries) are untouched
        assert store.rerollouts(suite[1].id, 0) == []
    finally:
        store.close()
    with pytest.raises(PlanprobeError, match="no case 'nope' in this run"):
        rerollout_in_run(tmp_path / "run", "nope", 0, 0, _agent("tools", model))
    with pytest.raises(PlanprobeError, match=f"no result for case '{case.id}' trial 5"):
        rerollout_in_run(tmp_path / "run", case.id, 5, 0, _agent("tools", model))


def test_sub_episodes_and_roles_in_a_prefix_are_kept_and_cut(tmp_path):
    """A planner with an executor per sub-task: the prefix keeps the sub-episodes begun in it, cut
    to its steps, and their calls replay under their own role and sub-episode."""
    case = cases(1, seed=27, actions=(4, 4))[0]
    family = get_family(case.family)
    plan = family.reference_plan(case)

    async def planner(case, env, prefix=None):
        manager = env.as_role("manager")
        start = len(prefix.tool_calls) if prefix else 0
        if prefix is None:
            manager.log(Message(role="user", content=case.task))
        for call in plan[start:]:
            env.step()
            executor = manager.sub_episode("executor", task=f"do {call.name}")
            executor.log(Message(role="assistant", content=f"calling {call.name}"))
            executor.call(call.name, call.arguments)
            executor.finish(f"{call.name} done")
        manager.finish("all done")
        return "all done"

    agent = CallableAgent(planner, "python:t:planner")
    original = asyncio.run(run_episode(case, agent, Limits()))
    assert [e.id for e in original.episodes] == [f"executor-{i}" for i in range(1, len(plan) + 1)]
    assert {c.agent for c in original.tool_calls} == {"executor"}
    assert [c.episode for c in original.tool_calls] == [e.id for e in original.episodes]
    assert original.messages[0].agent == "manager" and original.final_answer == "all done"
    assert original.episodes[0].final_answer == f"{plan[0].name} done"
    assert family.check(case, original).passed

    new = asyncio.run(rerollout(case, original, 2, agent, role="manager", guidance=GUIDANCE))
    assert [e.id for e in new.episodes] == [f"executor-{i}" for i in range(1, len(plan) + 1)]
    assert [c.model_dump(exclude={"t_start", "t_end"}) for c in new.tool_calls] == \
        [c.model_dump(exclude={"t_start", "t_end"}) for c in original.tool_calls]
    assert new.messages[-1].agent == "manager" and new.messages[-1].content == GUIDANCE
    assert family.check(case, new).passed
