"""``debug --workers``: failed cases repaired on worker processes (or Ray actors), stored by one.

Each worker labels a failed trace, runs the detector and re-rolls out the case with
feedback, reading the run but never writing it; the attempts come back with the case's
repair, in the run's order, and the command (the one holder of the run's lock) stores
them. The output is the same as with one process."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..schema import Case, Trace, Verdict
from .repair import CaseRepair, repair_case
from .restarts import RESTART_TEMPERATURE, agent_maker

_made: dict[str, Any] = {}


@dataclass(frozen=True)
class DebugJob:
    """What every case of one ``planprobe debug`` shares (plain data, sent to each worker)."""

    run_dir: Path
    detector: str
    spec: str
    seed: int
    max_rounds: int
    model: str | None = None
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    cache: bool = True
    threads: int | None = None
    n_ctx: int = 4096
    restart_temperature: float = RESTART_TEMPERATURE  # Best-of-N restarts' (restarts.py)


def debug_one(job: DebugJob, case: Case, trace: Trace, verdict: Verdict, limit_steps: int | None, make: Any,
              new_agent: Any, keep_attempts: list | None = None) -> tuple[dict, CaseRepair]:
    """(the trace's formal labels as JSON, its repair) for one failed result."""
    from .bench import bench_record
    from .detectors import run_detector
    from .labels import label_trace

    pick = None
    labels = label_trace(case, trace, verdict, limit_steps)
    if job.detector not in ("none", "self-refine"):
        record = bench_record(case, trace, labels, run=job.run_dir.name)
        pick = run_detector(job.detector, record, job.seed, make)
    repair = repair_case(job.run_dir, case.id, trace.trial, verdict, job.detector, pick, new_agent, job.max_rounds,
                         job.model, keep_attempts=keep_attempts)
    return labels.model_dump(mode="json"), repair


def debug_elsewhere(item: tuple) -> tuple[dict, CaseRepair, list]:
    """One case in a worker process: (labels, repair, attempts to store)."""
    job, case, trace, verdict, limit_steps = item
    key = repr(job)
    if key not in _made:
        from ..models import ModelOptions
        from ..models.factory import model_factory

        make = model_factory(job.model, ModelOptions(base_url=job.base_url, api_key_env=job.api_key_env,
                                                     cache=job.cache, threads=job.threads, n_ctx=job.n_ctx))
        _made[key] = (make, agent_maker(job.spec, job.seed, make, None, job.restart_temperature))
    make, new_agent = _made[key]
    attempts: list = []
    labels, repair = debug_one(job, case, trace, verdict, limit_steps, make, new_agent, keep_attempts=attempts)
    return labels, repair, attempts
