"""The main job with embedded defaults: suites generated on the spot, the
reference agents run on them, and the results printed as one table per suite.

No API key and no network: until a model backend is configured this exercises
the whole pipeline (generate → run → check → summarize) with the built-in
reference agents, which is also a quick end-to-end health check.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from rich.console import Console

from .agents import make_agent
from .analysis.summary import summarize
from .report.table import comparison_table
from .runner.engine import RunConfig, open_run, run_pending
from .suites.constraints.generator import ConstraintSuiteOptions, generate_cases
from .suites.io import load_suite, write_suite

DEMO_AGENTS = ("oracle", "random", "faulty:swap", "faulty:drop", "faulty:unknown-tool")


def run_demo(out: Path, n: int, seed: int, console: Console, err_console: Console) -> None:
    out = Path(out)
    suites = {
        "basic": ConstraintSuiteOptions(actions=(3, 5), n=n, seed=seed),
        "extended": ConstraintSuiteOptions(actions=(2, 4), n=n, seed=seed, extended=True),
    }
    for mode, opts in suites.items():
        opts.check()
        path = out / "suites" / f"constraints-{mode}.jsonl"
        write_suite(generate_cases(opts), path)
        cases = load_suite(path)
        rows = []
        for agent_name in DEMO_AGENTS:
            config = RunConfig(agent=agent_name, seed=seed)
            run_dir = out / "runs" / f"{mode}-{agent_name.replace(':', '-')}"
            store = open_run(run_dir, cases, config, suite_name=str(path))
            try:
                asyncio.run(run_pending(store, cases, make_agent(agent_name, seed), config))
                rows.append((agent_name, summarize(store)))
            finally:
                store.close()
        console.print(comparison_table(rows, title=f"{mode} constraint planning · {len(cases)} cases · {path}"))
    err_console.print(
        f"runs are in {out / 'runs'}; inspect one with: planprobe show {out / 'runs' / 'basic-random'}\n"
        "model-backed agents (OpenAI-compatible endpoints, an embedded local model) are not built yet; "
        "the reference agents above exercise the whole pipeline."
    )
