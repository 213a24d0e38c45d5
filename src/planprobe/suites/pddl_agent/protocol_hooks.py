"""What the planning protocols (``suites/protocols``) need from the ``pddl`` family.

``extendable(case, calls)``: can these calls begin a valid plan? Every call must
be a well-formed call of an action whose preconditions hold when it comes (the
oracle's checks, always strict here: a step that would fail is never part of a
valid plan, whatever ``spec.failed_calls`` allows during execution), and the goal
must still be reachable from the state they lead to.

Reachability is decided by a search from that state: greedy best-first on the
number of unmet goal atoms, pruning states whose goal is unreachable even with
delete effects ignored (a sound test). It is exact when the search finishes;
the standard domains (Blocksworld, Logistics and their obfuscations) are
reversible, so it finds a path almost at once. A search that runs out of its
node budget (``SEARCH_NODES``) decides nothing and counts as extendable, with the
reason saying so.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Sequence

from ...pddl.relaxed import relaxed_closure, relaxed_lost_goals
from ...schema import Case, ErrorClass, Evidence, ToolCall, Trace
from ..base import PlannedCall
from . import oracle
from .prepared import prepare

SEARCH_NODES = 200_000
DEAD_END = "dead_end"


def _strict(case: Case) -> Case:
    if case.spec.get("failed_calls", "error") == "error":
        return case
    return case.derived("pddl_protocol_strict",
                        lambda c: c.model_copy(update={"spec": {**c.spec, "failed_calls": "error"}}))


def _trace(case: Case, calls: Sequence[PlannedCall]) -> Trace:
    return Trace(case_id=case.id, agent="prefix",
                 tool_calls=[ToolCall(index=k, name=c.name, arguments=c.arguments) for k, c in enumerate(calls)])


def goal_reachable(case: Case, state: int, node_limit: int = SEARCH_NODES) -> bool | None:
    """True/False when decided, None when the search ran out of nodes."""
    grounded = prepare(case).grounded
    if grounded.goal_reached(state):
        return True
    if grounded.goal_impossible:
        return False
    actions = grounded.actions()
    if relaxed_closure(actions, state) & grounded.goal_pos != grounded.goal_pos:
        return False

    def h(s: int) -> int:
        return (grounded.goal_pos & ~s).bit_count() + (grounded.goal_neg & s).bit_count()

    seen = {state}
    frontier = [(h(state), 0, state)]
    counter = 0
    while frontier:
        _, _, s = heapq.heappop(frontier)
        if len(seen) > node_limit:
            return None
        for a in actions:
            if not a.applicable(s):
                continue
            nxt = a.apply(s)
            if nxt in seen:
                continue
            if grounded.goal_reached(nxt):
                return True
            seen.add(nxt)
            counter += 1
            heapq.heappush(frontier, (h(nxt), counter, nxt))
    return False


def prefix_problems(case: Case, calls: Sequence[PlannedCall]) -> list[dict]:
    """Evidence (as dicts) of why ``calls`` cannot begin a valid plan; empty when they can."""
    verdict = oracle.check(_strict(case), _trace(case, calls))
    problems = [e.model_dump() for e in verdict.evidence if e.kind != "unmet_goal"]
    if problems:
        return problems
    prepared = prepare(case)
    state = prepared.grounded.init
    for call in calls:  # all valid and applicable now (checked above)
        state = prepared.ground_call(call.name, json.loads(call.arguments or "{}") or {}).apply(state)
    if goal_reachable(case, state) is False:
        grounded = prepared.grounded
        lost = relaxed_lost_goals(grounded, relaxed_closure(grounded.actions(), state))
        if lost:  # these can never be made true again: name them
            what = f"{prepared.renderer.literals(lost)} can never be made true again"
        else:
            what = f"the goal (still missing: {prepared.renderer.literals(grounded.unmet_goals(state))}) can no longer be reached"
        return [dict(error=ErrorClass.ORDER_ERROR.value, kind=DEAD_END, step=len(calls) - 1 if calls else None,
                     symbolic="goal unreachable: " + " ".join(map(str, lost or grounded.unmet_goals(state))),
                     text=f"After these steps {what}: no sequence of actions reaches the goal from there.")]
    return []


def prefix_evidence(case: Case, calls: Sequence[PlannedCall]) -> list[Evidence]:
    return [Evidence(**p) for p in prefix_problems(case, calls)]


def extendable(case: Case, calls: Sequence[PlannedCall]) -> tuple[bool, str]:
    problems = prefix_problems(case, calls)
    if problems:
        return False, " ".join(p["text"] for p in problems)
    return True, "every step applies and the goal is still reachable (or undecided within the search budget)"
