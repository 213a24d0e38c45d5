"""The one run path: open (or resume) a run directory, run its pending cases, close it.

``run``, ``demo``, ``sweep`` and ``planprobe.run_suite`` all go through ``run_suite``,
so resuming, closing the models in the run's own event loop and reporting what an
interrupt kept are written once; running on many workers (``planprobe.scale``) is a
``runner`` passed in, not a second loop. The rules that decide how a run is set up (how many
cases at a time a backend can serve, what a suite must hold for an agent, which model
settings a resume must match) live here too, not in the CLI.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..agents.base import Agent
from ..errors import PlanprobeError
from ..schema import Case
from .engine import OnResult, RunConfig, open_run, pending_total, run_pending
from .store import RunStore

InfraRow = tuple[str, int, int, list[str]]  # case id, trial, attempts, causes
Runner = Callable[[RunStore, OnResult | None], Any]  # runs a store's pending cases elsewhere (planprobe.scale)


@dataclass
class SuiteRun:
    """What a finished ``run_suite`` leaves: what ``summarize`` made of the store (when given)
    and the results that failed for infrastructure reasons (re-running retries those with
    attempts left)."""

    summary: Any
    infra: list[InfraRow] = field(default_factory=list)


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run: ``saved`` of ``total`` results are in the store (resumable)."""

    def __init__(self, saved: int, total: int) -> None:
        super().__init__(f"{saved}/{total} results saved")
        self.saved, self.total = saved, total


def run_suite(out: Path, cases: Iterable[Case], agent: Agent, config: RunConfig, *, suite_name: str = "",
              digest: str | None = None, on_open: Callable[[RunStore, int, int], None] | None = None,
              on_result: OnResult | None = None, aclose: Callable[[], Coroutine[Any, Any, None]] | None = None,
              summarize: Callable[[RunStore], Any] | None = None, runner: Runner | None = None) -> SuiteRun:
    """Run (or resume) ``cases`` into ``out``. ``on_open(store, total, done_before)`` sees the
    open store first (to record settings beside the engine's, or size a progress bar);
    ``on_result`` sees each result as it is stored; ``aclose`` (the models' close) runs in
    the run's own event loop when the cases are done, and also when opening fails;
    ``summarize`` (e.g. ``analysis.summary.summarize``: the runner does not import the
    analysis layer) reads the store before it closes. ``runner(store, on_result)`` runs the
    pending cases somewhere else instead of with ``agent`` in this process (``planprobe.scale``:
    workers or Ray, this process only merging; the models are closed first). Ctrl-C raises
    ``RunInterrupted`` naming how many results were kept."""
    try:
        store = open_run(Path(out), cases, config, suite_name=suite_name, digest=digest)
    except BaseException:
        if aclose is not None:
            asyncio.run(aclose())
        raise
    total = store.case_count() * config.trials
    try:
        if on_open is not None:
            on_open(store, total, total - pending_total(store, config))

        async def go() -> None:
            try:
                if runner is None:
                    await run_pending(store, agent, config, on_result)
            finally:
                if aclose is not None:
                    await aclose()

        try:
            asyncio.run(go())
            if runner is not None:
                runner(store, on_result)
        except KeyboardInterrupt:
            raise RunInterrupted(store.result_count(config.trials), total) from None
        return SuiteRun(summarize(store) if summarize is not None else None, store.infra_rows())
    finally:
        store.close()


def effective_concurrency(model_spec: str | None, concurrency: int,
                          on_note: Callable[[str], None] | None = None) -> int:
    """A backend that answers one call at a time (the embedded model; its registry entry says
    ``serial``) would make cases run side by side wait for each other, and the waiting would
    count against each case's time limit as spurious Timeouts."""
    from ..models.registry import serves_one_call_at_a_time
    from ..models.roles import parse_role_specs

    serial = [spec for spec in (parse_role_specs(model_spec).values() if model_spec else ())
              if serves_one_call_at_a_time(spec)]
    if serial and concurrency > 1:
        if on_note is not None:
            on_note(f"note: the model {serial[0]} serves one call at a time; running cases one at a time "
                    "(--concurrency 1) so waiting is not counted against each case's time limit")
        return 1
    return concurrency


def read_suite_for_run(suite: Path, needs_tools: str = "") -> tuple[int, str]:
    """Check every case of the suite (streaming) and fingerprint it: (cases, digest).
    ``needs_tools`` names an agent that cannot run a case without tools (PMC's executors act through them)."""
    from ..suites.io import stream_suite
    from .store import SuiteDigest

    digest = SuiteDigest()
    for case in stream_suite(suite):
        if needs_tools and not case.tools:
            raise PlanprobeError(f"{suite}: case {case.id!r} (family {case.family}) has no tools; --agent "
                                 f"{needs_tools} runs only on families with tools")
        digest.update(case)
    return digest.count, digest.hexdigest()


def record_model_path(store: RunStore, model_spec: str | None, model_options: Any) -> None:
    """Keep the GGUF file a local run used (not the embedded model), so re-runs (dissect) use
    the same file or refuse; see analysis/rerun.py."""
    from ..agents.prepare import uses_local

    path = getattr(model_options, "model_path", None) if uses_local(model_spec) else None
    if path is not None:
        from ..analysis.rerun import MODEL_PATH_META

        store.set_meta({MODEL_PATH_META: str(Path(path).resolve())})


def params_identity(params: Any, options: Any = None) -> str:
    """The model settings that change results, as stored with a run (resuming must match them).
    Sending tool results as user messages changes every prompt after the first tool call."""
    if params is None:
        return ""
    text = f"temperature={params.temperature},max_tokens={params.max_tokens}"
    if getattr(options, "tool_result_role", "tool") != "tool":
        text += f",tool_results_as={options.tool_result_role}"
    return text
