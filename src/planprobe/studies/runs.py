"""One run of a study: a suite file run (or resumed) into ``DIR/runs/NAME`` by the run engine,
as ``planprobe run`` does; infrastructure failures stop the study there (exit 3, resumable)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from .base import StudyContext, StudyInfraError

_STUDYS = object()  # "the study's own" (a runner given as None means: run in this process)


def run_study_suite(ctx: StudyContext, suite: Path, name: str, *, agent: Any = _STUDYS, config: Any = _STUDYS,
                    runner: Any = _STUDYS, aclose: Callable[[], Coroutine[Any, Any, None]] | None = None) -> Path:
    """Run ``suite`` into ``DIR/runs/NAME`` with the study's agent, config and runner unless others are
    given; the run directory, complete (a re-run resumes where it stopped)."""
    from ..analysis.summary import summarize
    from ..runner.suite_run import run_suite
    from ..suites.io import load_suite

    run = Path(ctx.directory) / "runs" / name
    done = run_suite(run, load_suite(suite), ctx.agent if agent is _STUDYS else agent,
                     ctx.config if config is _STUDYS else config, suite_name=str(suite),
                     on_open=lambda store, _total, _done: ctx.on_store(store), summarize=summarize,
                     runner=ctx.runner if runner is _STUDYS else runner, aclose=aclose)
    if done.infra:
        raise StudyInfraError(f"{run}: {len(done.infra)} result(s) failed for infrastructure reasons; run the "
                              "same command again to retry them")
    return run
