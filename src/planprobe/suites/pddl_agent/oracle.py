"""The oracle of a ``pddl`` case: replay the executed calls on the PDDL model.

The trace's calls are replayed from the initial state exactly as the
environment executed them (a call whose preconditions fail changes nothing),
so the verdict does not trust the results the agent saw. Error classes
(``schema.ErrorClass``), and the evidence ``kind`` each one carries:

* ``act_error`` — ``unknown_tool``, ``malformed_arguments``,
  ``invalid_arguments`` (the call executes nothing); ``impossible_action``: a
  well-formed call that can never apply because a *static* precondition (one
  no action changes, e.g. Logistics' ``(in-city l1-0 c0)``) or an equality
  fails — the arguments are wrong, not the moment.
* ``order_error`` — ``unmet_precondition``: a call made when a precondition
  that some action could have made true did not hold (the step came too early,
  or its prerequisite was never done). Only with ``spec.failed_calls =
  "error"`` (the default); with ``"allowed"`` such calls are feedback, not
  mistakes.
* ``action_lost`` — ``unmet_goal``: after the last call some goal literal
  does not hold (the actions that would achieve it were never executed).
* ``timeout`` / ``agent_crash`` / ``infra`` — the episode did not complete
  (judged alone, as in every family).

Calls that share an index are one atomic call (a cost variant's composite: both
actions or neither; the second is checked in the state after the first).

Pass iff there is no error: the goal holds at the end and, by default, no
call failed.
"""

from __future__ import annotations

from ...pddl.errors import PlanStepError
from ...pddl.grounding import GroundAction
from ...schema import (
    Case,
    ErrorClass,
    OracleKind,
    ToolCall,
    ToolSpec,
    Trace,
    Verdict,
    sort_errors,
)
from ...tool_args import parse_arguments, validate_arguments
from ..registry import restart_tool_of
from ..unfinished import unfinished_verdict
from .prepared import PreparedCase, prepare

CHECKER = "pddl-agent/1"
E = ErrorClass
def _atomic_groups(calls: list[ToolCall]) -> list[list[ToolCall]]:
    """Calls that share an index are one call: a cost variant's composite tool, rewritten
    by the robust oracle into its two actions. It runs whole or not at all."""
    groups: list[list[ToolCall]] = []
    for call in calls:
        if groups and groups[-1][0].index == call.index:
            groups[-1].append(call)
        else:
            groups.append([call])
    return groups


def _ground(prepared: PreparedCase, tools: dict[str, ToolSpec], call: ToolCall, problems: list[dict]) -> GroundAction | None:
    """The ground action a call names, or None with the act error recorded."""
    k = call.index
    tool = tools.get(call.name)
    if tool is None or call.name not in prepared.tool_action:
        problems.append(dict(error=E.ACT_ERROR.value, kind="unknown_tool", step=k,
                             symbolic=f"step {k}: {call.name} not in tools",
                             text=f'Step {k}: called "{call.name}", which is not one of the actions.'))
        return None
    args = parse_arguments(call.arguments)
    if args is None:
        problems.append(dict(error=E.ACT_ERROR.value, kind="malformed_arguments", step=k,
                             symbolic=f"step {k}: {call.name}({call.arguments[:60]}) is not a JSON object",
                             text=f'Step {k}: the arguments sent to "{call.name}" are not a JSON object: '
                                  f"{call.arguments[:120]}"))
        return None
    why = validate_arguments(tool.parameters, args)
    if why:
        problems.append(dict(error=E.ACT_ERROR.value, kind="invalid_arguments", step=k,
                             symbolic=f"step {k}: {call.name}: {why}",
                             text=f'Step {k}: invalid arguments for "{call.name}": {why}.'))
        return None
    try:
        return prepared.ground_call(call.name, args)
    except PlanStepError as exc:
        problems.append(dict(error=E.ACT_ERROR.value, kind="invalid_arguments", step=k,
                             symbolic=f"step {k}: {call.name}: {exc.reason}",
                             text=f'Step {k}: invalid arguments for "{call.name}": {exc.reason}.'))
        return None


def check(case: Case, trace: Trace) -> Verdict:
    unfinished = unfinished_verdict(case, trace, CHECKER)
    if unfinished is not None:
        return unfinished
    prepared = prepare(case)
    tools = {t.name: t for t in case.tools}
    strict = prepared.spec.failed_calls == "error"
    static = prepared.problem.domain.static_predicates
    state = prepared.grounded.init
    problems: list[dict] = []
    executed = 0
    for group in _atomic_groups(trace.judged_calls(restart_tool_of(case))):
        actions = []
        for call in group:
            action = _ground(prepared, tools, call, problems)
            if action is not None:
                actions.append((call.index, action))
        if len(actions) != len(group):
            continue  # an invalid call executes nothing (a composite: neither half)
        after = state
        for i, (k, action) in enumerate(actions):
            if action.applicable(after):
                after = action.apply(after)
                continue
            unmet = action.unmet(after)
            never = [lit for lit in unmet if lit.is_equality or lit.atom.predicate in static]
            say = prepared.renderer
            within = (f", right after {say.action(actions[0][1].name, actions[0][1].args)} in the same call "
                      "(so neither was done)") if i else ""
            if never:
                problems.append(dict(
                    error=E.ACT_ERROR.value, kind="impossible_action", step=k,
                    symbolic=f"step {k} {action}: " + " ".join(map(str, never)) + " can never hold",
                    text=f"Step {k}: {say.action(action.name, action.args)}{within} can never be done: "
                         f"{say.literals(never)} does not hold and no action changes that.",
                ))
            elif strict:
                problems.append(dict(
                    error=E.ORDER_ERROR.value, kind="unmet_precondition", step=k,
                    symbolic=f"step {k} {action}: precondition " + " ".join(map(str, unmet)) + " does not hold",
                    text=f"Step {k}: {say.action(action.name, action.args)}{within} was not possible: it needs "
                         f"{say.literals(unmet)}, which did not hold at that point.",
                ))
            break
        else:
            state = after
            executed += len(actions)
    unmet_goals = prepared.grounded.unmet_goals(state)
    if unmet_goals:
        say = prepared.renderer
        problems.append(dict(
            error=E.ACTION_LOST.value, kind="unmet_goal",
            symbolic="goal not reached: " + " ".join(map(str, unmet_goals)),
            text=f"After {executed} executed action{'' if executed == 1 else 's'} the goal is not reached; "
                 f"still missing: {say.literals(unmet_goals)}.",
        ))
    if not problems:
        return Verdict(case_id=case.id, trial=trace.trial, passed=True, checker=CHECKER)
    return Verdict(case_id=case.id, trial=trace.trial, passed=False, errors=sort_errors({p["error"] for p in problems}),
                   evidence=problems, oracle=OracleKind.FORMAL, checker=CHECKER)
