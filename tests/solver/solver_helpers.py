"""Shared by the solver's tests: PDDL agent cases made in memory, a run of them, and one episode of a
task reader driven without a scaffold."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from planprobe.agents import make_agent
from planprobe.environment import IterationLimitExceeded, Limits
from planprobe.runner.engine import RunConfig
from planprobe.runner.findings import underspecified_rows
from planprobe.runner.store import RunStore
from planprobe.runner.suite_run import run_suite
from planprobe.schema import Case, Trace, TraceStatus, Verdict
from planprobe.solver.base import ChatView, Decision, Observed, TaskReader
from planprobe.suites.pddl_agent import PDDLSuiteOptions, generate_cases
from planprobe.suites.registry import get_family

# (domain, generator options): plain and obfuscated, English and PDDL texts, both observation forms
VARIANTS = {
    "blocksworld": dict(domain="blocksworld"),
    "blocksworld-mystery": dict(domain="blocksworld", obfuscate="mystery"),
    "blocksworld-random": dict(domain="blocksworld", obfuscate="random"),
    "blocksworld-pddl-changes": dict(domain="blocksworld", language="pddl", observation="changes"),
    "logistics": dict(domain="logistics"),
    "logistics-mystery": dict(domain="logistics", obfuscate="mystery", failed_calls="allowed"),
    "logistics-random": dict(domain="logistics", obfuscate="random", observation="changes"),
}


def pddl_cases(variant: str, n: int = 4, seed: int = 11) -> list[Case]:
    return list(generate_cases(PDDLSuiteOptions(n=n, seed=seed, **VARIANTS[variant])))  # type: ignore[arg-type]


def run_cases(cases: list[Case], agent: str, model, out: Path, concurrency: int = 4):
    """Run ``cases`` with ``agent`` on ``model``; (verdicts by case id, solver findings)."""
    verdicts = {}
    run_suite(out, cases, make_agent(agent, model=model), RunConfig(agent=agent, model="solver",
                                                                      concurrency=concurrency),
              on_result=lambda trace, verdict: verdicts.__setitem__(trace.case_id, verdict))
    with RunStore(out) as store:
        findings = underspecified_rows(store)
    return verdicts, findings


def view_of(case: Case, history: tuple[Observed, ...] = ()) -> ChatView:
    """What a model is shown: the case's visible fields only (never its spec)."""
    tools = tuple({"name": t.name, "description": t.description, "parameters": t.parameters} for t in case.tools)
    return ChatView(system=case.system or "", task=case.task, tools=tools, history=history)


@dataclass
class Episode:
    verdict: Verdict
    decisions: list[Decision]
    history: tuple[Observed, ...]
    trace: Trace


def drive(reader: TaskReader, case: Case) -> Episode:
    """One episode of a task reader without a scaffold, judged by the case's family: every decide() is
    one model call (the iteration limit applies), the calls of one decision run in order and their
    results are shown at the next. A refusal is a call of the case's refuse tool when it has one (as the
    tools scaffold sends it), then a final answer starting "REFUSE:"."""
    family = get_family(case.family)
    env = family.environment(case, Limits(), 0, "solver")
    history: tuple[Observed, ...] = ()
    decisions: list[Decision] = []
    try:
        while True:
            env.step()
            d = reader.decide(view_of(case, history))
            decisions.append(d)
            if d.refuse and any(t.name == "refuse" for t in case.tools):
                env.call("refuse", json.dumps({"reason": d.refuse}))
            if not d.calls:
                env.finish(f"REFUSE: {d.refuse}" if d.refuse else (d.answer or d.underspecified))
                env.trace.status = TraceStatus.COMPLETED
                break
            for step in d.calls:
                result = env.call(step.tool, json.dumps(step.arguments))
                history = (*history, Observed(step, result))
    except IterationLimitExceeded:
        env.trace.status = TraceStatus.ITERATION_LIMIT
    return Episode(family.check(case, env.trace), decisions, history, env.trace)
