"""Running a suite: agent × environment per case, judged, stored as it finishes.

Cases run concurrently (asyncio, ``concurrency`` at a time) under per-episode
limits. An agent that exceeds its time, iterations or the model's context
window gets a Timeout; an agent that raises gets an agent_crash; a model service
that keeps failing after the backend's retries gets ``infra``, which never
counts as a planning failure. A service that cannot serve the run at all
(``ServiceUnusableError``) stops it at once, recording nothing for the cases in
flight. Every finished case is committed to the run store at once, so a killed
run resumes with the same ``--out`` and runs each remaining case exactly once.

On resume, an ``infra`` result counts as not done: its (case, trial) runs again,
up to ``infra_attempts`` attempts in all; the new result replaces it and records
its attempt number and the earlier causes in ``trace.meta``.
"""

from __future__ import annotations

import asyncio
import time
import traceback
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..agents.base import Agent
from ..environment import (
    INFRA_PENDING,
    Environment,
    IterationLimitExceeded,
    Limits,
    current_trace,
    within,
)
from ..errors import (
    ContextLimitError,
    InfrastructureError,
    PlanprobeError,
    ServiceUnusableError,
)
from ..models.redact import redact
from ..schema import Case, Trace, TraceError, TraceStatus, Verdict
from ..suites.registry import get_family
from ..version import __version__
from .findings import judge, note_solver_findings
from .resume import check_same_settings
from .store import STORE_FORMAT, RunStore, suite_digest


@dataclass(frozen=True)
class RunConfig:
    agent: str
    model: str | None = None
    trials: int = 1
    concurrency: int = 8
    limits: Limits = field(default_factory=Limits)
    seed: int = 0
    model_params: str = ""  # e.g. temperature and max tokens, as they affect results
    infra_attempts: int = 3  # attempts per (case, trial) whose result is infra, counting resumes
    models: dict[str, str] = field(default_factory=dict)  # role -> model name when roles have their own

    def identity(self) -> dict[str, object]:
        """What must match for a run directory to be resumed."""
        return {"agent": self.agent, "model": self.model or "", "seed": self.seed, "model_params": self.model_params}


OnResult = Callable[[Trace, Verdict], None]


async def run_episode(case: Case, agent: Agent, limits: Limits, trial: int = 0, model: str | None = None,
                      models: dict[str, str] | None = None) -> Trace:
    """One agent on one case, under the limits; never raises for agent failures. ``model``
    is the run's model name, ``models`` role -> model name when roles have their own."""
    env = get_family(case.family).environment(case, limits, trial, agent.name)
    return await drive(env, lambda: agent(case, env), model, models)


async def drive(env: Environment, start: Callable[[], Awaitable[str | None]], model: str | None = None,
                models: dict[str, str] | None = None) -> Trace:
    """Run an agent's coroutine (``start()``) in its environment under the environment's
    limits and return the trace; agent failures are recorded, never raised. Shared by a
    fresh episode and a re-rollout (runner/rollout.py)."""
    limits = env.limits
    trace = env.trace
    trace.model = model
    if models:
        trace.models = dict(models)
    token = current_trace.set(trace)
    t0 = time.monotonic()
    try:
        answer = await within(start(), limits.timeout_s)
        if trace.final_answer is None and answer is not None:
            env.finish(answer)
    except asyncio.TimeoutError:
        if trace.meta.pop(INFRA_PENDING, None):  # the time ran out while the service was failing
            trace.status = TraceStatus.INFRA_ERROR
            trace.errors.append(TraceError(kind="infra", message=f"over {limits.timeout_s:g} s while the model "
                                                                  "service was failing", t=env.elapsed()))
        else:
            trace.status = TraceStatus.TIMEOUT
            trace.errors.append(TraceError(kind="timeout", message=f"over {limits.timeout_s:g} s", t=env.elapsed()))
    except IterationLimitExceeded as exc:
        trace.status = TraceStatus.ITERATION_LIMIT
        trace.errors.append(TraceError(kind="iteration_limit", message=str(exc), t=env.elapsed()))
    except ContextLimitError as exc:
        trace.status = TraceStatus.CONTEXT_LIMIT
        trace.errors.append(TraceError(kind="context_limit", message=str(exc), t=env.elapsed()))
    except InfrastructureError as exc:
        trace.status = TraceStatus.INFRA_ERROR
        trace.errors.append(TraceError(kind="infra", message=str(exc), t=env.elapsed()))
    except ServiceUnusableError:
        raise  # the whole run stops; nothing is recorded for this case
    except Exception as exc:  # noqa: BLE001 -- the agent's own bug: recorded, judged as a crash, never fatal
        trace.status = TraceStatus.AGENT_ERROR
        tb = traceback.format_exception_only(type(exc), exc)[-1].strip()
        trace.errors.append(TraceError(kind="agent_error", message=tb[:2000], t=env.elapsed()))
    finally:
        current_trace.reset(token)
    trace.meta.pop(INFRA_PENDING, None)
    for error in trace.errors:  # a key a server echoed into an exception must not be stored
        error.message = redact(error.message)
    trace.wall_time_s = round(time.monotonic() - t0, 6)
    note_solver_findings(trace)
    return trace


def open_run(out: Path, cases: Iterable[Case], config: RunConfig, suite_name: str = "",
             digest: str | None = None) -> RunStore:
    """Create a run directory, or reopen one for resuming after checking it holds the
    same suite and settings. The cases stream into the store with the settings in one
    transaction. ``digest`` is the suite's fingerprint when the caller already read it
    (then resuming does not read the cases again, and a suite that changed between the
    two readings is refused). Holds the directory's lock until the store is closed."""
    store = RunStore(out, create=True)
    try:
        if store.has_cases():
            meta = store.meta()
            if meta.get("suite_sha256") != (digest or suite_digest(cases)):
                raise PlanprobeError(
                    f"{out} already holds a run of a different suite; use a new --out directory to start a new run"
                )
            check_same_settings(Path(out), meta, config.identity(), config.limits)
            if config.trials > int(meta.get("trials", "1")):
                store.set_meta({"trials": str(config.trials)})
            return store
        store.initialize(cases, {
            "format": str(STORE_FORMAT),
            "planprobe": __version__,
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "suite": suite_name,
            "limits": {"max_iterations": config.limits.max_iterations, "timeout_s": config.limits.timeout_s},
            "trials": str(config.trials),
            **{k: (v if isinstance(v, str) else str(v)) for k, v in config.identity().items()},
        }, expect_digest=digest)
    except BaseException:
        store.discard()
        raise
    return store


def infra_retries(store: RunStore, config: RunConfig) -> dict[tuple[str, int], tuple[int, list[str]]]:
    """(case_id, trial) -> (attempts so far, their causes) of every infra result with attempts left."""
    return {(cid, trial): (attempts, causes) for cid, trial, attempts, causes in store.infra_rows()
            if attempts < config.infra_attempts}


def pending_total(store: RunStore, config: RunConfig) -> int:
    """How many (case, trial) pairs a run would still run: never run, or infra with attempts left."""
    return store.pending_count(config.trials) + len(infra_retries(store, config))


def _cancel_requested() -> bool:
    task = asyncio.current_task()
    cancelling = getattr(task, "cancelling", None)  # Python 3.11+
    return bool(cancelling and cancelling())


async def run_pending(
    store: RunStore,
    agent: Agent,
    config: RunConfig,
    on_result: OnResult | None = None,
) -> int:
    """Run every (case, trial) the store does not have yet, and every infra one with
    attempts left; returns how many ran.

    The work list streams from the store (``RunStore.pending``), a page of cases at a
    time, so memory stays flat however large the suite: the workers share one iterator.
    """
    earlier = infra_retries(store, config)
    count = store.pending_count(config.trials) + len(earlier)
    pending = store.pending(config.trials, retry=frozenset(earlier))

    async def worker() -> None:
        for case, trial in pending:  # next() never awaits, so each item goes to exactly one worker
            trace = await run_episode(case, agent, config.limits, trial, config.model, config.models)
            if (case.id, trial) in earlier:
                attempts, causes = earlier[(case.id, trial)]
                trace.meta["attempt"] = attempts + 1
                trace.meta["earlier_infra"] = causes
            verdict = judge(case, trace)
            store.add_result(trace, verdict)
            if on_result is not None:
                on_result(trace, verdict)
            await asyncio.sleep(0)  # a point where Ctrl-C lands even when no agent ever waits (reference agents)
            if _cancel_requested():  # ... and where it is honoured if wait_for swallowed it (Python < 3.12)
                raise asyncio.CancelledError

    workers = [asyncio.create_task(worker()) for _ in range(max(1, min(config.concurrency, count)))]
    try:
        await asyncio.gather(*workers)
    finally:
        for w in workers:
            w.cancel()
    return count
