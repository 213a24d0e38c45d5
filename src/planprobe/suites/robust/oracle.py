"""The variant's oracle: refusal first, then the base oracle on what really ran.

* Unsolvable variant: passes iff the agent refused (the ``refuse`` tool, or a final
  answer that starts with ``REFUSE:``); anything else is ``missed_refusal``.
* Solvable variant: a refusal is ``wrong_refusal``. Otherwise the trace is
  rewritten into the base case's terms — the replacement becomes the broken
  tool, a composite becomes its two actions, the broken tool's failed calls and
  the distractors' calls are taken out (they did nothing) — and the base
  family's oracle judges it, with an ``extraneous_tool`` error per distractor
  call. With costs, a valid plan dearer than the cheapest is ``suboptimal_cost``.

``Verdict.labels`` records what robustness analyses count: ``refused``,
``unsolvable`` (its kind), ``broken_tool`` (APB's behaviour class), ``cost``,
``min_cost``, ``cost_gap``.
"""

from __future__ import annotations

import json
from typing import Any, cast

from ...schema import (
    Case,
    ErrorClass,
    Evidence,
    OracleKind,
    ToolCall,
    Trace,
    TraceStatus,
    Verdict,
    sort_errors,
)
from ..base import ComposesTools, has_capability
from ..registry import get_family, restart_tool_of
from .spec import RobustSpec, base_case, follow_on_args, spec_of

CHECKER = "robust/1"
REFUSE_PREFIX = "REFUSE:"
E = ErrorClass

# APB's five reactions to a broken tool
USED_REPLACEMENT = "used_replacement"
RETRIED_BROKEN = "retried_broken"
USED_OTHER_TOOL = "used_other_tool"
REFUSED = "refused"
OTHER = "other"
BROKEN_BEHAVIOURS = (USED_REPLACEMENT, RETRIED_BROKEN, USED_OTHER_TOOL, REFUSED, OTHER)


def refusal(spec: RobustSpec, trace: Trace, calls: list[ToolCall]) -> str | None:
    """The refusal's reason, or None when the agent did not refuse."""
    for call in calls:
        if spec.refuse_tool and call.name == spec.refuse_tool and call.error is None:
            return str((call.args or {}).get("reason", ""))
    answer = (trace.final_answer or "").lstrip()
    if answer[: len(REFUSE_PREFIX)].upper() == REFUSE_PREFIX:
        return answer[len(REFUSE_PREFIX):].strip()
    return None


def check(case: Case, trace: Trace) -> Verdict:
    spec = spec_of(case)
    base = base_case(case)
    family = get_family(base.family)
    if trace.status != TraceStatus.COMPLETED:
        verdict = family.check(base, trace)  # timeouts and crashes are judged alone, as in the base
        return verdict.model_copy(update={"case_id": case.id, "checker": CHECKER})
    calls = trace.judged_calls(restart_tool_of(case))
    reason = refusal(spec, trace, calls)
    labels: dict[str, Any] = {"refused": reason is not None}
    if spec.broken is not None:
        labels["broken_tool"] = broken_behaviour(spec, calls)
    if spec.unsolvable is not None:
        labels["unsolvable"] = spec.unsolvable.kind
        if reason is not None:
            return Verdict(case_id=case.id, trial=trace.trial, passed=True, checker=CHECKER, labels=labels)
        return _failed(case, trace, labels, [Evidence(
            error=E.MISSED_REFUSAL.value, kind="missed_refusal", symbolic=f"unsolvable({spec.unsolvable.kind})",
            text=f"The task cannot be done ({spec.unsolvable.proof}), but the agent did not refuse "
                 f"({len(calls)} tool calls).",
        )])
    if reason is not None:
        return _failed(case, trace, labels, [Evidence(
            error=E.WRONG_REFUSAL.value, kind="wrong_refusal", symbolic="solvable",
            text=f"The task can be done, but the agent refused: {reason[:300]!r}.",
        )])

    rewritten, extraneous = _base_calls(spec, trace.tool_calls, frozenset(t.name for t in case.tools), base)
    verdict = family.check(base, trace.model_copy(update={"tool_calls": rewritten}))
    evidence = list(verdict.evidence) + extraneous
    errors = set(verdict.errors) | {e.error for e in extraneous}
    if spec.min_cost is not None:
        cost = plan_cost(spec, calls)
        labels.update(cost=cost, min_cost=spec.min_cost, cost_gap=cost - spec.min_cost)
        if not errors and cost > spec.min_cost:
            errors.add(E.SUBOPTIMAL_COST.value)
            evidence.append(Evidence(
                error=E.SUBOPTIMAL_COST.value, kind="cost_gap", symbolic=f"cost {cost} > min {spec.min_cost}",
                text=f"The plan is valid but costs {cost} credits; the cheapest valid plan costs {spec.min_cost} "
                     f"({' → '.join(spec.min_cost_plan)}).",
            ))
    if not errors:
        return Verdict(case_id=case.id, trial=trace.trial, passed=True, checker=CHECKER, labels=labels)
    return Verdict(case_id=case.id, trial=trace.trial, passed=False, errors=sort_errors(errors), evidence=evidence,
                   unsat_core=verdict.unsat_core, oracle=OracleKind.FORMAL, checker=CHECKER, labels=labels)


def _failed(case: Case, trace: Trace, labels: dict[str, Any], evidence: list[Evidence]) -> Verdict:
    return Verdict(case_id=case.id, trial=trace.trial, passed=False, errors=[evidence[0].error], evidence=evidence,
                   oracle=OracleKind.FORMAL, checker=CHECKER, labels=labels)


def _base_calls(spec: RobustSpec, calls: list[ToolCall], variant_names: frozenset[str],
                base: Case | None = None) -> tuple[list[ToolCall], list[Evidence]]:
    """The calls in the base case's terms, and evidence of the variant's own (distractor calls;
    invalid calls of a composite whose halves take their own arguments, which no base tool is)."""
    out: list[ToolCall] = []
    extraneous: list[Evidence] = []
    distractors = set(spec.distractors)
    composites = {c.tool: c for c in spec.composites}
    composes = base is not None and has_capability(get_family(base.family), ComposesTools)
    broken = spec.broken
    given = spec.given
    given_name = spec.alias_of(given.tool, variant_names) if given is not None else None
    for call in calls:
        if call.error is not None and composes and call.name in composites:
            extraneous.append(Evidence(
                error=E.ACT_ERROR.value, kind="invalid_arguments", step=call.index,
                symbolic=f"step {call.index}: {call.name}: {call.error}",
                text=f'Step {call.index}: the call of "{call.name}" was invalid and did nothing: {call.result[:200]}',
            ))
        elif call.error is not None:
            out.append(call)  # an invalid call stays one: the base oracle names it
        elif call.name in distractors:
            extraneous.append(Evidence(
                error=E.EXTRANEOUS_TOOL.value, kind="extraneous_tool", step=call.index,
                symbolic=f"step {call.index}: {call.name} is not part of the task",
                text=f'Step {call.index}: "{call.name}" was called, but the task never asks for it.',
            ))
        elif broken is not None and call.name == broken.tool:
            continue  # it failed and did nothing
        elif given is not None and call.name == given_name:
            if str((call.args or {}).get(given.param, "")).strip() != given.value:
                continue  # no record matched: it did nothing
            args = {k: v for k, v in (call.args or {}).items() if k != given.param}
            out.append(call.model_copy(update={"name": spec.base_name(call.name), "args": args,
                                               "arguments": json.dumps(args)}))
        elif call.name in composites and base is not None and composes:
            c = composites[call.name]  # each half its own arguments; the two keep the call's index (one call)
            split = cast(ComposesTools, get_family(base.family))
            a1, a2 = split.composite_args(base, c.first, c.second, call.args or {})
            out.append(call.model_copy(update={"name": c.first, "args": a1, "arguments": json.dumps(a1)}))
            out.append(call.model_copy(update={"name": c.second, "args": a2, "arguments": json.dumps(a2)}))
        elif call.name in composites:
            c = composites[call.name]
            out.append(call.model_copy(update={"name": c.first}))
            args = follow_on_args(base, c.first, call.args or {}) if base is not None else (call.args or {})
            out.append(call.model_copy(update={"name": c.second, "args": args, "arguments": json.dumps(args)}))
        else:
            out.append(call.model_copy(update={"name": spec.base_name(call.name)}))
    return out, extraneous


def broken_behaviour(spec: RobustSpec, calls: list[ToolCall]) -> str:
    """APB's classes, from what the agent did right after the broken tool failed."""
    broken = spec.broken
    assert broken is not None  # asked only of a case with a broken tool
    names = [c.name for c in calls]
    if broken.tool not in names:
        return USED_REPLACEMENT if broken.replacement in names else OTHER
    after = names[names.index(broken.tool) + 1:]
    if not after:
        return OTHER
    nxt = after[0]
    if nxt == broken.replacement:
        return USED_REPLACEMENT
    if nxt == broken.tool:
        return RETRIED_BROKEN
    if nxt == spec.refuse_tool:
        return REFUSED
    return USED_OTHER_TOOL


def plan_cost(spec: RobustSpec, calls: list[ToolCall]) -> int:
    """Credits spent: every call that ran (invalid calls run nothing and cost nothing)."""
    combos = {c.tool: c.cost for c in spec.composites}
    return sum(combos.get(c.name, spec.costs.get(c.name, 0)) for c in calls if c.error is None)
