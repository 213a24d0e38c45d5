"""``cost`` (``transforms.py``): every tool priced, composites that do two actions in one call for less,
and the cheapest valid plan the oracle holds the agent to (asked of the family: ``PricesPlans``,
``PricesCalls``, ``ComposesTools``).
"""

from __future__ import annotations

import random

from ...schema import Case, ToolSpec
from ..base import ComposesTools, PricesCalls, PricesPlans
from ..registry import get_family
from .spec import Composite, RobustSpec
from .tool_edits import _unsupported

# timed cases: what start_time means for a composite (the second starts when the first ends)
_FOLLOW_ON = "start_time is the hour the first starts; the second starts the hour the first ends. "


def draw_pairs(actions: list[str], count: int, rng: random.Random, repeats: bool = False) -> list[tuple[str, str]]:
    """``count`` ordered pairs drawn from all pairs of ``actions`` (with ``repeats``, an action
    may follow itself), never from a plan: which pairs exist says nothing about the order."""
    pairs = [(a, b) for a in actions for b in actions if repeats or a != b]
    rng.shuffle(pairs)
    return pairs[:count]


def _priced(case: Case, tools: list[ToolSpec], spec: RobustSpec, rng: random.Random,
            base: Case | None = None) -> list[ToolSpec]:
    """Price every tool and add composites, some of them usable in a valid order. ``base`` is
    the case the cheapest plan is for (a contradiction's control has one more goal fact)."""
    costs = {t.name: rng.randint(2, 9) for t in tools}
    names = frozenset(t.name for t in tools)
    base_costs = {spec.base_name(n): c for n, c in costs.items()}
    family = get_family(case.family)
    composes = isinstance(family, ComposesTools)
    # no composite may do what the variant made impossible or conditional (a removed tool, a
    # tool that needs a parameter): it would be a way round the change
    blocked = {spec.given.tool if spec.given else None,
               *((spec.unsolvable.removed_tool, spec.unsolvable.missing_tool) if spec.unsolvable else ())}
    if composes:
        # every action schema of the case, each pair (one may follow itself): how many and which
        # composites exist depends on the domain, not on a plan's length or its actions
        actions = sorted({t.name for t in case.tools} - blocked)
        chosen = draw_pairs(actions, max(1, len(actions) // 2 + 1), rng, repeats=True)
    else:
        # composites for ordered pairs drawn from all the actions, not from the plan: which pairs
        # exist must say nothing about the order (some fit a valid order, some never do)
        plan = [c.name for c in family.reference_plan(case)]
        actions = sorted({n for n in plan if n not in blocked})
        chosen = draw_pairs(actions, max(1, len(plan) // 2 + 1), rng)
    composites = []
    for k, (a, b) in enumerate(chosen, 1):
        saving = rng.randint(1, max(1, min(base_costs[a], base_costs[b]) - 1))
        composites.append(Composite(tool=f"combo_{k}", first=a, second=b,
                                    cost=base_costs[a] + base_costs[b] - saving))
    spec.costs, spec.composites = costs, composites
    if not isinstance(family, PricesPlans):
        raise _unsupported(case, "cost")
    if spec.unsolvable is None:  # an unsolvable variant has no cheapest plan: it must be refused
        quads = [(c.tool, c.first, c.second, c.cost) for c in composites]
        priced_case = base if base is not None else case
        if isinstance(family, PricesCalls):  # with arguments (start times, objects)
            total, calls = family.min_cost_calls(priced_case, base_costs, quads)
            best = [name for name, _ in calls]
            spec.min_cost_args = [args for _, args in calls]
        else:
            total, best = family.min_cost_plan(priced_case, base_costs, quads)
        spec.min_cost = total
        spec.min_cost_plan = [n if n in names or n.startswith("combo_") else spec.alias_of(n, names) for n in best]
    by_name = {spec.base_name(t.name): t for t in tools}
    priced = [t.model_copy(update={"description": f"{t.description} Cost: {costs[t.name]} credits."}) for t in tools]
    for c in composites:
        first, second = by_name[c.first], by_name[c.second]
        parameters, how = first.parameters, ""
        if isinstance(family, ComposesTools):
            parameters, how = family.composite_parameters(case, first, second)
        priced.append(ToolSpec(
            name=c.tool, parameters=parameters,
            description=(f"Carries out {spec.alias_of(c.first, names)} and then, immediately after it, "
                         f"{spec.alias_of(c.second, names)}, in one call. " + how
                         + (_FOLLOW_ON if "start_time" in first.parameters.get("properties", {}) else "")
                         + f"Cost: {c.cost} credits."),
        ))
    return priced
