"""The ``cost`` robustness variant on pddl cases: composite tools and the cheapest plan.

A composite ``combo_k`` does an action of one schema and then, immediately after it,
an action of another (or the same) schema, in one call. Its schema holds **both
argument lists**: the first action's parameters prefixed ``first_``, then the second's
prefixed ``second_`` (``first_ob``, ``second_ob``, ``second_underob`` for pick-up then
stack). The prefixes differ, so no name can be read two ways even when both halves are
one schema; a name cut to 64 characters that collides gets ``_2``, ``_3``….

The oracle's reference is the cheapest plan under the tools' prices, found by
``cost_planner.solve_costs`` (A* with LM-cut under action costs: optimal). The search
is bounded in expansions, not seconds, so a suite is the same on every machine; a
case too big for the bound is refused with a one-line error.
"""

from __future__ import annotations

import json
from typing import Any

from ...errors import PlanprobeError
from ...pddl.cost_planner import CompositeAction, solve_costs
from ...pddl.errors import PlannerTimeoutError, UnsolvableError
from ...schema import Case, ToolSpec
from .prepared import prepare

FIRST, SECOND = "first_", "second_"
NODE_LIMIT = 200_000  # expansions for the cheapest plan of one case


def composite_keys(first: list[str], second: list[str]) -> tuple[list[str], list[str]]:
    """The composite's argument names for the two actions' parameter names (module doc)."""
    taken: set[str] = set()

    def name(prefix: str, key: str) -> str:
        base = (prefix + key)[:64]
        out, k = base, 2
        while out in taken:
            out = f"{base[:60]}_{k}"
            k += 1
        taken.add(out)
        return out

    return [name(FIRST, k) for k in first], [name(SECOND, k) for k in second]


def _keys(tool: ToolSpec) -> list[str]:
    return list(tool.parameters.get("properties") or {})


def composite_parameters(case: Case, first: ToolSpec, second: ToolSpec) -> tuple[dict[str, Any], str]:
    """The composite's JSON schema (both argument lists, each property as in its tool) and the
    sentence of its description that says which argument goes to which action."""
    k1, k2 = _keys(first), _keys(second)
    n1, n2 = composite_keys(k1, k2)
    p1 = first.parameters.get("properties") or {}
    p2 = second.parameters.get("properties") or {}
    props: dict[str, Any] = {}
    for new, old in zip(n1, k1):
        props[new] = {**p1[old], "description": f"{first.name}'s {old}: {p1[old].get('description', old)}"}
    for new, old in zip(n2, k2):
        props[new] = {**p2[old], "description": f"{second.name}'s {old}: {p2[old].get('description', old)}"}
    params = {"type": "object", "properties": props, "required": [*n1, *n2], "additionalProperties": False}

    def listing(names: list[str]) -> str:
        return ", ".join(names) if names else "none"

    note = (f"It takes {first.name}'s arguments prefixed {FIRST} ({listing(n1)}) and then {second.name}'s "
            f"prefixed {SECOND} ({listing(n2)}). If {second.name} cannot be done right after {first.name}, "
            "neither is done. ")
    return params, note


def composite_args(case: Case, first: str, second: str, args: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A composite call's arguments split into the first and the second action's."""
    prepared = prepare(case)
    k1, k2 = prepared.keys[first], prepared.keys[second]
    n1, n2 = composite_keys(k1, k2)
    return ({k: args[n] for k, n in zip(k1, n1) if n in args}, {k: args[n] for k, n in zip(k2, n2) if n in args})


def joined_args(case: Case, first: str, second: str, a1: dict[str, Any], a2: dict[str, Any]) -> dict[str, Any]:
    """The inverse of ``composite_args``: one composite call's arguments."""
    prepared = prepare(case)
    k1, k2 = prepared.keys[first], prepared.keys[second]
    n1, n2 = composite_keys(k1, k2)
    return {**{n: a1[k] for k, n in zip(k1, n1)}, **{n: a2[k] for k, n in zip(k2, n2)}}


def min_cost_calls(case: Case, costs: dict[str, int],
                   composites: list[tuple[str, str, str, int]]) -> tuple[int, list[tuple[str, str]]]:
    """The cheapest valid plan as (tool, arguments JSON) calls; ``costs`` and the composites'
    halves are in tool names."""
    prepared = prepare(case)
    schema = {tool: action.name for tool, action in prepared.tool_action.items()}
    # a schema the case offers no tool for cannot be called: priced out of reach
    unreachable = 1 + 2 * sum(costs.values()) * max(1, len(prepared.grounded.actions()))
    action_costs = {a.name: unreachable for a in prepared.problem.domain.actions}
    for tool, c in costs.items():
        if tool in schema:
            action_costs[schema[tool]] = c
    comps = [CompositeAction(name, schema[a], schema[b], c) for name, a, b, c in composites]
    try:
        plan = solve_costs(prepared.grounded, action_costs, comps, time_limit=None, node_limit=NODE_LIMIT)
    except PlannerTimeoutError:
        raise PlanprobeError(f"case {case.id}: the cheapest plan was not found within {NODE_LIMIT:,} expansions; "
                             "--transform cost needs smaller problems (fewer blocks or packages)") from None
    except UnsolvableError as exc:
        raise PlanprobeError(f"case {case.id}: --transform cost: {exc}") from None
    if plan.cost >= unreachable:  # pragma: no cover - the base case is solvable with its own tools
        raise PlanprobeError(f"case {case.id}: --transform cost: no plan uses only the case's tools")
    by_name = {c[0] for c in composites}
    calls: list[tuple[str, str]] = []
    for step in plan.steps:
        if step.name in by_name:
            t1, a1 = prepared.call_for(step.actions[0])
            t2, a2 = prepared.call_for(step.actions[1])
            calls.append((step.name, json.dumps(joined_args(case, t1, t2, a1, a2))))
        else:
            tool, args = prepared.call_for(step.actions[0])
            calls.append((tool, json.dumps(args)))
    return plan.cost, calls


def min_cost_plan(case: Case, costs: dict[str, int],
                  composites: list[tuple[str, str, str, int]]) -> tuple[int, list[str]]:
    total, calls = min_cost_calls(case, costs, composites)
    return total, [name for name, _ in calls]
