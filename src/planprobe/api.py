"""Convenience entry points for using planprobe from Python.

The CLI is built on the same functions; these wrap the async runner for
scripts and notebooks.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .agents import make_agent
from .agents.base import Agent
from .analysis.summary import RunSummary, summarize
from .environment import Limits
from .runner.engine import OnResult, RunConfig
from .runner.suite_run import run_suite as _run_suite
from .schema import Case, Trace, Verdict


def check(case: Case, trace: Trace) -> Verdict:
    """Judge a trace with its case family's oracle (with the solver's findings, if any, in its labels)."""
    from .runner.findings import judge

    return judge(case, trace)


def run_suite(
    cases: Sequence[Case],
    agent: str | Agent,
    out: str | Path,
    *,
    trials: int = 1,
    concurrency: int = 8,
    limits: Limits | None = None,
    seed: int = 0,
    suite_name: str = "",
    on_result: OnResult | None = None,
) -> RunSummary:
    """Run (or resume) a suite against an agent, storing results in ``out``; ``on_result(trace,
    verdict)`` sees each result as it is stored. The same run path as ``planprobe run``."""
    agent_obj = make_agent(agent, seed) if isinstance(agent, str) else agent
    config = RunConfig(agent=agent if isinstance(agent, str) else agent_obj.name, trials=trials,
                       concurrency=concurrency, limits=limits or Limits(), seed=seed)
    summary = _run_suite(Path(out), list(cases), agent_obj, config, suite_name=suite_name, on_result=on_result,
                         summarize=summarize).summary
    assert summary is not None
    return summary
