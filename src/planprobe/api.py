"""Convenience entry points for using planprobe from Python.

The CLI is built on the same functions; these wrap the async runner for
scripts and notebooks.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Optional, Sequence

from .agents import make_agent
from .agents.base import Agent
from .analysis.summary import RunSummary, summarize
from .environment import Limits
from .runner.engine import RunConfig, open_run, run_pending
from .schema import Case, Trace, Verdict
from .suites.registry import get_family


def check(case: Case, trace: Trace) -> Verdict:
    """Judge a trace with its case family's oracle."""
    return get_family(case.family).check(case, trace)


def run_suite(
    cases: Sequence[Case],
    agent: str | Agent,
    out: str | Path,
    *,
    trials: int = 1,
    concurrency: int = 8,
    limits: Optional[Limits] = None,
    seed: int = 0,
    suite_name: str = "",
) -> RunSummary:
    """Run (or resume) a suite against an agent, storing results in ``out``."""
    agent_obj = make_agent(agent, seed) if isinstance(agent, str) else agent
    config = RunConfig(agent=agent if isinstance(agent, str) else agent_obj.name, trials=trials,
                       concurrency=concurrency, limits=limits or Limits(), seed=seed)
    cases = list(cases)
    store = open_run(Path(out), cases, config, suite_name)
    try:
        asyncio.run(run_pending(store, agent_obj, config))
        return summarize(store)
    finally:
        store.close()
