"""What each of PlanBench's eight tasks puts in a prompt, in the plain domain.

A prompt is the domain description, worked examples, then the query
(seed 004 §5; PlanBench's ``prompt_generation.py``). ``build`` returns the
statements (``Block``s: problem, plan, stated goal, event…) and what the reply
will be judged against; ``prompts.render`` turns them into text in the
domain's (possibly obfuscated) words.

Examples are drawn from their own seeded streams (``key/example/k``), the
query from ``key/query``, so a case is the same whatever the other cases are.
How each task uses its shots (``shots`` worked examples):

* t1, t2, t5 — ``shots`` other solved problems (t2 with optimal plans and their
  time; t5 from the generalizable family).
* t3 — ``shots`` other problems with a plan and its verdict; the kinds of plan
  (valid, goal not reached, inexecutable) cycle through a shuffled order, so the
  default three shots show each once (PlanBench's setting). The query's plan is
  of a random kind.
* t7 — ``shots`` other problems with an executed prefix of a plan and the
  resulting state; the query an executable prefix.
* t6 — ``shots`` other problems with the event and the new plan.
* t4, t8 — the query restates the example's problem, so the last example is
  *the same* problem with its plan (t4: the query's goal is the state after a
  prefix of that plan; t8_1: the goal facts shuffled; t8_2: the example states
  the full final state as goal, the query the original goal; t8_3 the other way
  round). More shots put other solved problems before it; ``shots = 0`` leaves
  only the query (then the task is plain plan generation).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ...errors import PlanprobeError
from ...pddl.grounding import ground
from ...pddl.model import Atom, PDDLLiteral, Problem
from ...pddl.validator import Outcome, validate
from .problems import Event, plan_for, states_along, unexpected_event

__all__ = ["Block", "Built", "VERIFICATION_KINDS", "build"]

VERIFICATION_KINDS = ("inexecutable", "goal_not_reached", "valid")
Draw = Callable[[random.Random], Problem]
General = Callable[[random.Random], tuple[Problem, list[str]]]


@dataclass
class Block:
    """One ``[STATEMENT]`` block. ``worked``: an example that shows its answer."""

    kind: str  # plan | optimality | verification | execution | reuse | replanning
    problem: Problem
    plan: list[str] | None = None  # the plan shown (or to verify / executed / replanned)
    goal: tuple[Atom, ...] | None = None  # a goal stated instead of the problem's
    ordered: bool = False  # state ``goal`` in the given order (shuffled goals)
    event: Event | None = None
    new_plan: list[str] | None = None  # t6: the plan after the event (worked examples)
    worked: bool = True


@dataclass
class Built:
    examples: list[Block]
    query: Block
    judged: Problem  # the problem a reply is judged against
    reference: list[str] | None = None  # a correct plan for ``judged`` (plan tasks)
    optimal: bool = False  # ``reference`` is optimal
    stated: Problem | None = None  # the query's problem when ``judged`` differs (t4, t6)
    plan: list[str] | None = None  # t3: the plan to verify; t7: the executed sequence
    event: Event | None = None
    notes: dict = field(default_factory=dict)  # for the case's metadata


def _rng(key: str, *parts) -> random.Random:
    return random.Random("/".join((key, *map(str, parts))))


def _solved(draw: Draw, rng: random.Random, optimal: bool = False) -> tuple[Problem, list[str], bool]:
    problem = draw(rng)
    plan, is_opt = plan_for(problem, optimal)
    return problem, plan, is_opt


def _plan_examples(draw: Draw, key: str, n: int, kind: str = "plan", optimal: bool = False) -> list[Block]:
    out = []
    for k in range(n):
        problem, plan, _ = _solved(draw, _rng(key, "example", k), optimal)
        out.append(Block(kind, problem, plan))
    return out


def build(task: str, key: str, draw: Draw, general: General, shots: int) -> Built:
    """The blocks of one case of ``task`` (see the module docstring)."""
    return _BUILDERS[task](key, draw, general, shots)


# -- t1, t2, t5 --------------------------------------------------------------

def _generation(key: str, draw: Draw, general: General, shots: int) -> Built:
    problem, plan, opt = _solved(draw, _rng(key, "query"))
    return Built(_plan_examples(draw, key, shots), Block("plan", problem, worked=False), problem, plan, opt)


def _optimality(key: str, draw: Draw, general: General, shots: int) -> Built:
    problem, plan, _ = _solved(draw, _rng(key, "query"), optimal=True)
    examples = _plan_examples(draw, key, shots, "optimality", optimal=True)
    return Built(examples, Block("optimality", problem, worked=False), problem, plan, True)


def _generalization(key: str, draw: Draw, general: General, shots: int) -> Built:
    examples = [Block("plan", *general(_rng(key, "example", k))) for k in range(shots)]
    problem, plan = general(_rng(key, "query"))
    return Built(examples, Block("plan", problem, worked=False), problem, plan, False)


# -- t3 ----------------------------------------------------------------------

def verification_plan(problem: Problem, plan: list[str], kind: str, rng: random.Random) -> list[str]:
    """A plan of the given kind made from a valid ``plan`` as PlanBench makes them:
    valid — the plan; goal not reached — without its last step; inexecutable — one
    step in the middle deleted and the rest shuffled (redrawn until it really is
    inexecutable; failing that, a step that cannot run is inserted)."""
    if kind == "valid":
        return list(plan)
    if kind == "goal_not_reached":
        return list(plan[:-1])
    grounded = ground(problem)
    for _ in range(12):
        cand = list(plan)
        if len(cand) > 2:
            del cand[rng.randrange(1, len(cand) - 1)]
        elif len(cand) == 2:
            del cand[1]
        rng.shuffle(cand)
        if validate(grounded, cand).outcome is Outcome.INEXECUTABLE:
            return cand
    states = states_along(problem, plan)
    at = rng.randrange(len(plan) + 1)
    state = grounded.mask(states[at])
    blocked = [a for a in grounded.actions() if not a.applicable(state)]
    if not blocked:  # pragma: no cover - some action is always inapplicable in the standard domains
        raise PlanprobeError(f"problem {problem.name!r}: no inexecutable plan can be made")
    return list(plan[:at]) + [str(rng.choice(blocked))] + list(plan[at:])


def _kinds(n: int, rng: random.Random) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        cycle = list(VERIFICATION_KINDS)
        rng.shuffle(cycle)
        out += cycle
    return out[:n]


def _verification(key: str, draw: Draw, general: General, shots: int) -> Built:
    kinds = _kinds(shots, _rng(key, "kinds"))
    examples = []
    for k, kind in enumerate(kinds):
        rng = _rng(key, "example", k)
        problem, plan, _ = _solved(draw, rng)
        examples.append(Block("verification", problem, verification_plan(problem, plan, kind, rng)))
    rng = _rng(key, "query")
    problem, plan, _ = _solved(draw, rng)
    kind = rng.choice(VERIFICATION_KINDS)
    stated = verification_plan(problem, plan, kind, rng)
    return Built(examples, Block("verification", problem, stated, worked=False), problem, plan=stated,
                 notes={"plan_kind": kind})


# -- t7 ----------------------------------------------------------------------

def _prefix(plan: list[str], rng: random.Random) -> int:
    """PlanBench's random prefix: 1 … len-1 steps (the whole plan when it has one step)."""
    return rng.randint(1, max(1, len(plan) - 1))


def _execution(key: str, draw: Draw, general: General, shots: int) -> Built:
    examples = []
    for k in range(shots):
        rng = _rng(key, "example", k)
        problem, plan, _ = _solved(draw, rng)
        examples.append(Block("execution", problem, plan[:_prefix(plan, rng)]))
    rng = _rng(key, "query")
    problem, plan, _ = _solved(draw, rng)
    seq = plan[:_prefix(plan, rng)]
    return Built(examples, Block("execution", problem, seq, worked=False), problem, plan=seq)


# -- t4 ----------------------------------------------------------------------

def _reuse(key: str, draw: Draw, general: General, shots: int) -> Built:
    examples = _plan_examples(draw, key, max(0, shots - 1), "reuse")
    rng = _rng(key, "query")
    problem, plan, _ = _solved(draw, rng)
    k = _prefix(plan, rng)
    reached = states_along(problem, plan)[k]
    init = set(problem.init)
    new = tuple(sorted(reached - init))  # PlanBench's new instance: the facts the prefix made true
    judged = replace(problem, goal=tuple(PDDLLiteral(a) for a in new))
    if shots:
        examples.append(Block("reuse", problem, plan))
    query = Block("reuse", problem, goal=tuple(sorted(reached)), worked=False)
    stated = replace(problem, goal=tuple(PDDLLiteral(a) for a in sorted(reached)))
    return Built(examples, query, judged, plan[:k], False, stated=stated, notes={"prefix": k})


# -- t6 ----------------------------------------------------------------------

def _with_event(draw: Draw, rng: random.Random) -> tuple[Problem, list[str], Event]:
    for _ in range(50):
        problem, plan, _ = _solved(draw, rng)
        event = unexpected_event(problem, plan, rng)
        if event is not None:
            return problem, plan, event
    raise PlanprobeError("no problem with room for an unexpected event was drawn in 50 tries; use larger problems")


def _replanning(key: str, draw: Draw, general: General, shots: int) -> Built:
    examples = []
    for k in range(shots):
        problem, plan, event = _with_event(draw, _rng(key, "example", k))
        new_plan, _ = plan_for(event.changed)
        examples.append(Block("replanning", problem, plan, event=event, new_plan=new_plan))
    problem, plan, event = _with_event(draw, _rng(key, "query"))
    new_plan, opt = plan_for(event.changed)
    query = Block("replanning", problem, plan, event=event, worked=False)
    return Built(examples, query, event.changed, new_plan, opt, stated=problem, event=event)


# -- t8 ----------------------------------------------------------------------

def _reformulation(task: str):
    def build_it(key: str, draw: Draw, general: General, shots: int) -> Built:
        examples = _plan_examples(draw, key, max(0, shots - 1))
        rng = _rng(key, "query")
        problem, plan, opt = _solved(draw, rng)
        goal = tuple(lit.atom for lit in problem.goal)
        final = tuple(sorted(states_along(problem, plan)[-1]))
        notes = {}
        if task == "t8_1":
            shuffled = list(goal)
            rng.shuffle(shuffled)
            example = Block("plan", problem, plan)
            query = Block("plan", problem, goal=tuple(shuffled), ordered=True, worked=False)
            notes["single_goal"] = len(goal) == 1
        elif task == "t8_2":
            example = Block("plan", problem, plan, goal=final)
            query = Block("plan", problem, worked=False)
        else:
            example = Block("plan", problem, plan)
            query = Block("plan", problem, goal=final, worked=False)
        if shots:
            examples.append(example)
        # PlanBench judges a t8 reply against the instance's own goal, whatever goal the prompt states
        return Built(examples, query, problem, plan, opt, notes=notes)
    return build_it


_BUILDERS = {
    "t1": _generation, "t2": _optimality, "t3": _verification, "t4": _reuse, "t5": _generalization,
    "t6": _replanning, "t7": _execution, "t8_1": _reformulation("t8_1"), "t8_2": _reformulation("t8_2"),
    "t8_3": _reformulation("t8_3"),
}
