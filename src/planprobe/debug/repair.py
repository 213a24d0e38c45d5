"""Repair (AgentDebug Alg. 1, stage 3): re-roll out each failed trace from its detected
critical step with feedback naming the error type and what to do instead; when the
attempt still fails, refine the feedback with what went wrong and try again, up to
``max_rounds``. Baselines at the same number of attempts (matched budget):

* ``none`` — Best-of-N restarts: a fresh attempt from step 0 with no feedback, each a sample
  of its own (``new_agent(k)``: its own draw and seed, a sampling temperature; ``restarts.py``).
  A detector's pick without a step restarts so too: with no feedback and no prefix, its
  attempts would otherwise all be one request;
* ``self-refine`` — from step 0 with the previous attempt's own failure as feedback
  (the verdict's error classes, as a self-check would report them), no localisation.

Every attempt is stored beside the original (``RunStore.add_rerollout``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..schema import Verdict
from .detectors import Pick
from .taxonomy import find

REPAIR_DETECTORS = ("agentdebug", "direct", "brute-force", "binary-search", "oracle", "random", "none",
                    "self-refine")


def feedback(pick: Pick) -> str:
    """The first feedback: the step, the error type and what to do instead."""
    t = find(pick.module, pick.type) if pick.module and pick.type else None
    what = f"a {pick.module} error of type {t.paper_name or t.name} ({t.definition})" if t else "a mistake"
    text = f"Feedback from a debugger: at step {pick.step} you made {what}."
    if pick.root_cause:
        text += f" Why it made the task fail: {pick.root_cause}"
    text += " Instead: " + (pick.guidance or _instead(pick))
    return text


def _instead(pick: Pick) -> str:
    t = find(pick.module, pick.type) if pick.module and pick.type else None
    if t is None:
        return "re-read the task, check every condition it states before each action, and only act when it holds."
    return (f"before acting, check explicitly that this step does not commit {t.paper_name or t.name}; "
            "satisfy every condition the task states, in the order it requires, and stop only when it is done.")


def refine(previous: str, verdict: Verdict, round_no: int) -> str:
    """Stage 3's UpdateFeedback: the last attempt's outcome added to the guidance."""
    errs = ", ".join(verdict.errors) or "the task was not completed"
    evidence = "; ".join(e.text for e in verdict.evidence[:3])
    return (f"{previous}\nAttempt {round_no} with this feedback still failed ({errs}"
            + (f": {evidence}" if evidence else "") + "). Avoid that too.")


def self_refine_feedback(verdict: Verdict) -> str:
    errs = ", ".join(verdict.errors) or "the task was not completed"
    evidence = "; ".join(e.text for e in verdict.evidence[:3])
    return (f"Your previous attempt at this task failed ({errs}" + (f": {evidence}" if evidence else "")
            + "). Review what went wrong and try again, fixing it.")


@dataclass
class CaseRepair:
    case_id: str
    trial: int
    detector: str
    pick: dict[str, Any]
    from_step: int  # steps kept (the critical step minus one; 0 for restarts)
    rounds: list[dict[str, Any]] = field(default_factory=list)  # per attempt: passed, errors, guidance, tokens
    fixed_at: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"case_id": self.case_id, "trial": self.trial, "detector": self.detector, "pick": self.pick,
                "from_step": self.from_step, "rounds": self.rounds, "fixed_at": self.fixed_at}


def repair_case(run_dir: Path, case_id: str, trial: int, verdict: Verdict, detector: str, pick: Pick | None,
                new_agent: Callable[[int], Any], max_rounds: int, model: str | None = None,
                keep_attempts: list | None = None) -> CaseRepair:
    """Repair one failed result. ``new_agent(draw)`` builds the agent of an attempt: draw 0 with the
    run's settings (the repairs with feedback), draw k a sampled restart k (Best-of-N, or a pick
    without a step; ``restarts.agent_maker``).
    With ``keep_attempts`` (a list) the attempts are appended to it
    instead of being stored: a worker process computes them, the process holding the run's lock
    stores them (``debug --workers``)."""
    from ..runner.rollout import rerollout_in_run

    first_attempt = None
    if keep_attempts is not None:
        from ..runner.store import RunStore

        with RunStore(run_dir) as store:
            first_attempt = 1 + len(store.rerollouts(case_id, trial))

    restart = detector in ("none", "self-refine") or pick is None or pick.step is None
    keep = 0 if restart or pick is None else max(0, (pick.step or 1) - 1)
    out = CaseRepair(case_id, trial, detector, pick.to_json() if pick else {}, keep)
    guidance: str | None = None
    if detector == "self-refine":
        guidance = self_refine_feedback(verdict)
    elif not restart and pick is not None:
        guidance = feedback(pick)
    for k in range(1, max_rounds + 1):
        try:
            trace, v = rerollout_in_run(run_dir, case_id, trial, min(keep, _steps(run_dir, case_id, trial)),
                                        new_agent(k if restart and guidance is None else 0),
                                        guidance=guidance, model=model, store_it=keep_attempts is None,
                                        attempt=None if first_attempt is None else first_attempt + k - 1)
            if keep_attempts is not None:
                keep_attempts.append((trace.model_dump_json(), v.model_dump_json()))
        except Exception as exc:  # a prefix that cannot be replayed: recorded, not fatal for the run
            from ..errors import PlanprobeError

            if not isinstance(exc, PlanprobeError):
                raise
            out.rounds.append({"round": k, "passed": False, "errors": ["rerollout_refused"], "note": str(exc)[:300],
                               "guidance": guidance, "tokens": 0, "replayed_calls": 0})
            break
        # calls answered from the record/replay cache spend no tokens: counted apart so a resumed
        # or repeated debug run says why its token figure is lower
        out.rounds.append({"round": k, "passed": v.passed, "errors": list(v.errors), "guidance": guidance,
                           "tokens": trace.usage.prompt_tokens + trace.usage.completion_tokens,
                           "replayed_calls": trace.usage.cached_calls,
                           "steps": len(trace.tool_calls)})
        if v.passed:
            out.fixed_at = k
            break
        if detector == "self-refine":
            guidance = self_refine_feedback(v)
        elif detector != "none" and guidance is not None:
            guidance = refine(guidance, v, k)
    return out


def _steps(run_dir: Path, case_id: str, trial: int) -> int:
    from ..runner.steps import step_count
    from ..runner.store import RunStore

    store = RunStore(run_dir)
    try:
        return step_count(store.trace(case_id, trial))
    finally:
        store.close()


def rounds_summary(results: list[CaseRepair], max_rounds: int) -> list[dict[str, Any]]:
    """Per round k: the cases fixed by round k (rate with its 95% Wilson interval) and the
    tokens spent up to it and the calls replayed from the cache, whose tokens are not counted (figures
    the ``debug`` command prints and stores)."""
    from ..analysis.stats import wilson_interval

    n = len(results)
    rounds: list[dict[str, Any]] = []
    for k in range(1, max_rounds + 1):
        fixed = sum(1 for r in results if r.fixed_at is not None and r.fixed_at <= k)
        lo, hi = wilson_interval(fixed, n)
        rounds.append({"round": k, "fixed": fixed, "rate": round(fixed / n, 4), "ci95": [round(lo, 4), round(hi, 4)],
                       "tokens": sum(x["tokens"] for r in results for x in r.rounds if x["round"] <= k),
                       "replayed_calls": sum(x["replayed_calls"] for r in results for x in r.rounds
                                             if x["round"] <= k)})
    return rounds
