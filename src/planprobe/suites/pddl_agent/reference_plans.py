"""Plans for the reference agents: a valid one, a random one, and one with a
single injected fault (used to prove the oracle names each fault exactly).

The reference plan is optimal when the built-in A* finds one within its
budget (or the spec carries an optimal plan). The budget is in expansions, not
seconds, so the outcome is the same on every machine: ``REFERENCE_WORK /
actions²`` expansions (an expansion costs about actions² operations: each
successor's heuristic scans the actions), at most ``REFERENCE_NODE_LIMIT``
— about a second at worst;
otherwise it is the spec's plan (generated problems carry a constructive one)
or a greedy-search plan. It is computed once per case.
"""

from __future__ import annotations

import itertools
import json
import random

from ...pddl.errors import PlannerTimeoutError, PlanStepError
from ...pddl.planner import solve
from ...pddl.satisficing import greedy_plan
from ...pddl.simulator import random_walk
from ...pddl.validator import validate
from ...schema import Case, ErrorClass
from ..base import PlannedCall
from .prepared import PreparedCase, prepare

REFERENCE_NODE_LIMIT = 20_000
REFERENCE_WORK = 50_000_000
FAULTS: dict[str, str] = {
    "drop": ErrorClass.ACTION_LOST.value,  # a step left out: the rest executes, the goal is not reached
    "swap": ErrorClass.ORDER_ERROR.value,  # a step called before the one it depends on (fails), then retried
    "impossible-action": ErrorClass.ACT_ERROR.value,  # well-typed objects a static precondition rules out
    "unknown-tool": ErrorClass.ACT_ERROR.value,
    "malformed-args": ErrorClass.ACT_ERROR.value,
    "invalid-args": ErrorClass.ACT_ERROR.value,  # an object outside the tool's enum
    "stall": ErrorClass.TIMEOUT.value,
}


def reference_steps(case: Case) -> list[str]:
    """A valid plan (PDDL steps) for the case; optimal when cheaply found."""
    return case.derived("pddl_reference", _reference)


def _reference(case: Case) -> list[str]:
    prepared = prepare(case)
    spec_plan = list(prepared.spec.plan) if prepared.spec.plan is not None else None
    if spec_plan is not None and not validate(prepared.grounded, spec_plan).valid:
        spec_plan = None
    if spec_plan is not None and prepared.spec.plan_optimal:
        return spec_plan
    try:
        budget = min(REFERENCE_NODE_LIMIT, REFERENCE_WORK // max(1, len(prepared.grounded.actions())) ** 2)
        # the built-in planner only, within a node budget (not Fast Downward: whether it finished in its
        # time limit would make the reference plan depend on the machine's speed); past it, the spec's plan
        return list(solve(prepared.grounded, node_limit=max(1, budget), time_limit=None).steps)
    except PlannerTimeoutError:
        pass
    if spec_plan is not None:
        return spec_plan
    return list(greedy_plan(prepared.grounded, time_limit=600).steps)


def to_calls(prepared: PreparedCase, steps: list[str]) -> list[PlannedCall]:
    out = []
    for step in steps:
        tool, args = prepared.call_for(step)
        out.append(PlannedCall(tool, json.dumps(args)))
    return out


def reference_plan(case: Case) -> list[PlannedCall]:
    return to_calls(prepare(case), reference_steps(case))


def random_plan(case: Case, rng: random.Random) -> list[PlannedCall]:
    """A random walk of executable actions (at most two per object), stopping early if
    it stumbles on the goal: the floor a planning agent should beat."""
    prepared = prepare(case)
    length = rng.randint(1, 2 * max(1, len(prepared.problem.all_objects)))
    steps, _ = random_walk(prepared.grounded, rng, length, stop_at_goal=True)
    return to_calls(prepared, steps)


def _run(prepared: PreparedCase, steps: list[str]) -> int | None:
    """The final state if every step executes, else None."""
    state = prepared.grounded.init
    for s in steps:
        a = prepared.grounded.ground(*_split(s))
        if not a.applicable(state):
            return None
        state = a.apply(state)
    return state


def _split(step: str) -> tuple[str, list[str]]:
    name, *args = step.strip("()").split()
    return name, args


def faulty_plan(case: Case, fault: str, rng: random.Random) -> list[PlannedCall] | None:
    prepared = prepare(case)
    base = reference_steps(case)
    n = len(base)
    if fault not in FAULTS or fault == "stall" or n == 0:
        return None
    if fault == "drop":
        ks = list(range(n))
        rng.shuffle(ks)
        for k in ks:
            rest = base[:k] + base[k + 1:]
            end = _run(prepared, rest)
            if end is not None and not prepared.grounded.goal_reached(end):
                return to_calls(prepared, rest)
        return None
    if fault == "swap":
        if prepared.spec.failed_calls != "error":
            return None  # failed calls are not errors in this case: no room for the fault
        states = [prepared.grounded.init]
        for s in base:
            states.append(prepared.grounded.ground(*_split(s)).apply(states[-1]))
        ks = [i for i in range(n - 1) if not prepared.grounded.ground(*_split(base[i + 1])).applicable(states[i])]
        if not ks:
            return None
        i = rng.choice(ks)
        return to_calls(prepared, base[:i] + [base[i + 1]] + base[i:])
    calls = to_calls(prepared, base)
    k = rng.randrange(n + 1)
    template = calls[min(k, n - 1)]
    if fault == "unknown-tool":
        ghost = template.name + "_v2"
        while ghost in prepared.tool_action or ghost in {t.name for t in case.tools}:
            ghost += "_v2"
        calls.insert(k, PlannedCall(ghost, template.arguments))
    elif fault == "malformed-args":
        calls.insert(k, PlannedCall(template.name, template.arguments[:-1]))
    elif fault == "invalid-args":
        args = json.loads(template.arguments)
        if args:
            args[next(iter(args))] = "no-such-object"
        else:
            args["object"] = "no-such-object"
        calls.insert(k, PlannedCall(template.name, json.dumps(args)))
    else:  # impossible-action
        bad = _impossible_call(prepared, case)
        if bad is None:
            return None
        calls.insert(k, bad)
    return calls


def _impossible_call(prepared: PreparedCase, case: Case, limit: int = 5000) -> PlannedCall | None:
    """A schema-valid call whose static preconditions (or equalities) are false."""
    static = prepared.problem.domain.static_predicates
    for tool in case.tools:
        if tool.name not in prepared.tool_action:
            continue
        keys = prepared.keys[tool.name]
        enums = [tool.parameters["properties"][k]["enum"] for k in keys]
        for combo in itertools.islice(itertools.product(*enums), limit):
            try:
                a = prepared.grounded.ground(prepared.tool_action[tool.name].name, list(combo))
            except PlanStepError:
                continue
            unmet = a.unmet(prepared.grounded.init)
            if any(lit.is_equality or lit.atom.predicate in static for lit in unmet):
                return PlannedCall(tool.name, json.dumps(dict(zip(keys, combo))))
    return None
