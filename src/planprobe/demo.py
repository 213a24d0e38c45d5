"""The main job with embedded defaults: a small suite generated on the spot, run
against the embedded local model (function calling and ReAct) and the reference
agents, with the results printed as one table.

No API key, no network. The embedded model is SmolLM2-135M: it is here to drive
the whole pipeline (generate → run → check → summarize) offline, not to plan
well. If it is not installed, the reference agents still run and the message
says how to add the model.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from rich.console import Console

from .agents import make_agent
from .analysis.summary import RunSummary, summarize
from .atomic import write_text_atomic
from .environment import Limits
from .errors import PlanprobeError
from .models import ModelOptions, make_model
from .models.base import ChatParams
from .report.table import comparison_table
from .runner.engine import RunConfig
from .runner.suite_run import run_suite
from .schema import Case
from .suites.constraints.generator import ConstraintSuiteOptions, generate_cases
from .suites.io import load_suite

REFERENCE_AGENTS = ("oracle", "random", "faulty:swap")
MODEL_ITERATIONS = 8  # plenty for 2-3 actions; keeps the demo to a few minutes on 2 cores


def _run(cases: list[Case], agent, config: RunConfig, run_dir: Path, suite: Path) -> RunSummary:
    summary = run_suite(run_dir, cases, agent, config, suite_name=str(suite), summarize=summarize).summary
    assert summary is not None
    return summary


def _place_suite(cases: list[Case], path: Path) -> None:
    """Write the demo's suite, unless ``path`` already holds it. An existing demo of other
    cases (another --n or --seed) is refused before anything is written, so its suite
    and runs stay as they were."""
    text = "".join(c.model_dump_json() + "\n" for c in cases)
    if path.exists():
        try:
            same = path.read_text(encoding="utf-8") == text
        except (OSError, UnicodeDecodeError):
            same = False
        if not same:
            raise PlanprobeError(
                f"{path.parent.parent} holds a demo of other cases (another --n or --seed); "
                "use another --out directory, or remove it to start over"
            )
        return
    write_text_atomic(path, text)


def run_demo(out: Path, n: int, seed: int, console: Console, err_console: Console,
             model_spec: str | None = "local") -> None:
    out = Path(out)
    if n < 1:
        raise PlanprobeError(f"--n {n}: the demo needs at least 1 case")
    opts = ConstraintSuiteOptions(actions=(2, 3), n=n, seed=seed)
    opts.check()
    path = out / "suites" / "constraints-basic.jsonl"
    _place_suite(list(generate_cases(opts)), path)
    cases = load_suite(path)
    rows: list[tuple[str, RunSummary]] = []

    model = None
    if model_spec:
        try:
            model = make_model(model_spec, ModelOptions())
        except PlanprobeError as exc:
            from rich.text import Text

            err_console.print(Text.assemble(("embedded model unavailable:", "yellow"),
                                            f" {exc}. Running the reference agents only."), soft_wrap=True)
    if model is not None:
        limits = Limits(max_iterations=MODEL_ITERATIONS)
        for agent_name in ("tools", "react"):
            err_console.print(f"running {len(cases)} cases with {model.name} ({agent_name} agent)...")
            params = ChatParams(seed=seed, max_tokens=256)
            config = RunConfig(agent=agent_name, model=model.name, seed=seed, concurrency=1, limits=limits,
                               model_params="temperature=0.0,max_tokens=256")
            agent = make_agent(agent_name, seed, model=model, params=params)
            summary = _run(cases, agent, config, out / "runs" / f"local-{agent_name}", path)
            rows.append((f"{agent_name} · {model_spec}", summary))
        asyncio.run(model.aclose())
    for agent_name in REFERENCE_AGENTS:
        config = RunConfig(agent=agent_name, seed=seed)
        rows.append((agent_name, _run(cases, make_agent(agent_name, seed), config,
                                      out / "runs" / agent_name.replace(":", "-"), path)))

    title = f"constraint planning · {len(cases)} cases of 2-3 actions · {path}"
    if model is not None:
        title += f"\nmodel {model.name}, at most {MODEL_ITERATIONS} iterations per case"
    console.print(comparison_table(rows, title=title))
    err_console.print(
        f"runs are in {out / 'runs'}; look at one with: planprobe show {out / 'runs' / 'local-tools'}\n"
        "The embedded SmolLM2-135M model is there to exercise the pipeline offline, not to plan well; "
        "point --model at a real model (openai:<model> with --base-url for any OpenAI-compatible server) "
        "to measure one."
    )
