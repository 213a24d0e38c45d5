"""What the labeller labels: the steps of a trace, as calls of an executable case.

An executed trace is labelled as it is. A holistic-protocol trace (the whole plan
written as JSON, nothing executed) is labelled through its plan: the plan's tool
chain is replayed in a fresh environment of the wrapped case (as the protocol's
own check does), so step k is the plan's k-th call and the labels mean what they
mean for an executed run. An answer with no readable plan has one step, a format
error.
"""

from __future__ import annotations

from typing import NamedTuple

from ..schema import Case, Trace

EXECUTED = ("constraints", "pddl")
WRAPPED = ("holistic",)


class View(NamedTuple):
    case: Case  # the executable case whose calls are the steps
    trace: Trace  # its trace (executed, or the replayed plan)
    unreadable: str | None = None  # a holistic answer with no plan: why


def labellable_family(case: Case) -> bool:
    if case.family in EXECUTED:
        return True
    if case.family in WRAPPED:
        from ..suites.protocols.spec import base_case

        return base_case(case).family in EXECUTED
    return False


def view_of(case: Case, trace: Trace) -> View:
    if case.family in EXECUTED:
        return View(case, trace)
    from ..suites.protocols.parse import parse_plan
    from ..suites.protocols.spec import base_case
    from ..suites.protocols.wrap import replay
    from ..suites.registry import get_family

    base = base_case(case)
    parsed = parse_plan(trace.final_answer, get_family(case.family).answer_keys)  # type: ignore[attr-defined]
    if parsed.calls is None:
        stand_in = Trace(case_id=base.id, trial=trace.trial, agent=trace.agent, model=trace.model,
                         status=trace.status, messages=trace.messages, final_answer=trace.final_answer)
        return View(base, stand_in, parsed.problem or "no plan could be read")
    replayed = replay(base, parsed.calls, trace.trial, trace.agent)
    replayed.status, replayed.model, replayed.messages = trace.status, trace.model, trace.messages
    replayed.final_answer = parsed.description or "(the plan ends here)"
    return View(base, replayed)
