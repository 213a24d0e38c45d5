"""Shared by the solver's tests: PDDL agent cases made in memory, and a run of them."""

from __future__ import annotations

from pathlib import Path

from planprobe.agents import make_agent
from planprobe.runner.engine import RunConfig
from planprobe.runner.findings import underspecified_rows
from planprobe.runner.store import RunStore
from planprobe.runner.suite_run import run_suite
from planprobe.schema import Case
from planprobe.suites.pddl_agent import PDDLSuiteOptions, generate_cases

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
