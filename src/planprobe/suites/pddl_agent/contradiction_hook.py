"""The ``contradict`` hook of the pddl agent family: the case with a goal made
contradictory on purpose, proven unsolvable by the planner.

Used by ``--transform unsolvable:contradiction`` (``suites/robust``): the
variant's agent must refuse. The contradiction comes from
``pddl.contradiction`` (a twin of a goal fact — a block on two blocks, a package
at two places — proven by exhausting the search; else a fact the rules fix),
computed on the case's own problem, so it works for obfuscated cases too.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

from ...pddl.contradiction import _alike, _kinds, contradict_goal
from ...pddl.errors import PlannerTimeoutError, UnsolvableError
from ...pddl.model import Atom, PDDLLiteral
from ...pddl.obfuscate import Renaming
from ...pddl.planner import solve
from ...schema import Case
from .generator import build_case
from .prepared import prepare

MAX_TRIES = 24  # candidate facts the planner tries for a control
CONTROL_NODE_LIMIT = 20_000  # expansions per try: a reachable extra fact is found well within it


def _twin_of_goal(atom: Atom, goal: set[Atom]) -> bool:
    """Whether ``atom`` has an object in the same place as a goal fact of its predicate (a block
    on two blocks, two blocks on one, a package at two places: in the standard domains no plan
    reaches these, and proving it costs a full search)."""
    return any(g.predicate == atom.predicate and len(g.args) == len(atom.args)
               and any(x == y for x, y in zip(g.args, atom.args)) for g in goal)


def contradict_case(case: Case, rng: random.Random) -> tuple[Case, str]:
    """(the case with the contradictory goal, the proof that no plan exists)."""
    prepared = prepare(case)
    spec = prepared.spec
    c = contradict_goal(prepared.problem, rng)
    changed = build_case(case.id, c.problem, language=spec.language, observation=spec.observation,
                         failed_calls=spec.failed_calls,
                         renaming=Renaming.from_json(spec.renaming) if spec.renaming else None,
                         meta=case.meta.model_copy())
    return changed, c.proof()


def restate_case(case: Case, rng: random.Random) -> Case:
    """The solvable control of ``contradict_case``: one more goal fact made like the
    contradiction's twin — a goal fact with one argument swapped for an object of the same
    kind — but one the planner proves reachable together with the goal. The goal grows by one
    fact of the same predicate in both classes; only planning tells which can be reached."""
    prepared = prepare(case)
    spec = prepared.spec
    problem = prepared.problem
    kinds = _kinds(problem)
    goal = {lit.atom for lit in problem.goal}
    candidates = set()
    for lit in problem.goal:
        atom = lit.atom
        if not lit.positive or lit.is_equality or len(atom.args) < 2:
            continue
        choices = [[arg, *_alike(problem, arg, kinds)] for arg in atom.args]
        for args in itertools.product(*choices):
            new = Atom(atom.predicate, tuple(args))
            if new not in goal and len(set(args)) == len(args) and not _twin_of_goal(new, goal):
                candidates.add(new)
    named = {arg for atom in goal for arg in atom.args}
    pool = sorted(candidates)
    rng.shuffle(pool)
    pool.sort(key=lambda a: not set(a.args) & named)  # facts naming a goal object first, as a twin does
    for added in pool[:MAX_TRIES]:
        changed = replace(problem, goal=(*problem.goal, PDDLLiteral(added)))
        try:
            steps = list(solve(changed, time_limit=None, node_limit=CONTROL_NODE_LIMIT).steps)
        except (UnsolvableError, PlannerTimeoutError):
            continue
        return build_case(case.id, changed, language=spec.language, observation=spec.observation,
                          failed_calls=spec.failed_calls,
                          renaming=Renaming.from_json(spec.renaming) if spec.renaming else None,
                          plan=steps, plan_optimal=True, meta=case.meta.model_copy())
    return case  # no reachable fact of that shape: the control keeps its goal (counted in the tells test)
