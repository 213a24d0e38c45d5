"""The verdict on a trace that did not complete (timeout, crash, limits, infrastructure).

Why one place: every family with a formal oracle fails such a trace before looking
at the plan, with the same error class per status and the same evidence line; only
what the agent was doing ("finishing" its calls, "answering" in text) differs.
"""

from __future__ import annotations

from typing import Any

from ..schema import Case, ErrorClass, Evidence, Trace, TraceStatus, Verdict

E = ErrorClass

# status -> (error class, sentence; {doing} is "finishing" or "answering")
STATUS_ERRORS: dict[TraceStatus, tuple[ErrorClass, str]] = {
    TraceStatus.INFRA_ERROR: (E.INFRA, "The model service failed; this is not a planning failure."),
    TraceStatus.AGENT_ERROR: (E.AGENT_CRASH, "The agent raised an error."),
    TraceStatus.TIMEOUT: (E.TIMEOUT, "The agent ran out of time before {doing}."),
    TraceStatus.ITERATION_LIMIT: (E.TIMEOUT, "The agent used up its iterations before {doing}."),
    TraceStatus.CONTEXT_LIMIT: (E.TIMEOUT, "The conversation outgrew the model's context window before {doing}."),
}


def unfinished_verdict(case: Case, trace: Trace, checker: str, *, doing: str = "finishing",
                       detail: bool = True, labels: dict[str, Any] | None = None) -> Verdict | None:
    """The failed verdict of a trace that did not complete, or None when it completed."""
    if trace.status == TraceStatus.COMPLETED:
        return None
    return status_verdict(case, trace, checker, doing=doing, detail=detail, labels=labels)


def status_verdict(case: Case, trace: Trace, checker: str, *, doing: str = "finishing",
                   detail: bool = True, labels: dict[str, Any] | None = None) -> Verdict:
    """The failed verdict of a trace whose status is not ``completed``.

    ``doing``: what the agent did not finish ("finishing" its calls, "answering" in
    text); ``detail``: append the trace's last error message to the evidence text.
    """
    error, sentence = STATUS_ERRORS[trace.status]
    text = sentence.format(doing=doing)
    if detail:
        last = "; ".join(e.message for e in trace.errors[-1:])
        text += f" ({last})" if last else ""
    status = trace.status.value
    return Verdict(case_id=case.id, trial=trace.trial, passed=False, errors=[error.value], checker=checker,
                   evidence=[Evidence(error=error.value, kind=status, symbolic=status, text=text)],
                   labels=labels or {})
