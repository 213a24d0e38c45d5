"""Goals made contradictory on purpose, each proven unsolvable by the planner.

Why: an unsolvable variant is only a fair test of refusal when no plan exists,
and "no plan exists" must be a proof, not a guess. The contradiction is built
from the problem's own goal, for any STRIPS domain (obfuscated or not):

1. **Two values for one thing** — a goal fact ``(p x … y)`` gets a twin
   ``(p x … z)`` with another last argument ``z`` of the same kind as ``y``
   (same type, same static unary facts, e.g. both locations): a block on two
   blocks, a package at two places. Proven by the built-in A*: it searches
   every reachable state and finds none with both (``UnsolvableError``, the
   search space exhausted) — within a node budget, so generation takes the same
   time on every machine.
2. **A fact the rules fix** — when every twin would need a search beyond the
   budget: a static fact (no action changes it) that is false in the initial
   state, with another last argument than a true one (a location in another
   city). Proven at once: the goal cannot be reached even with delete effects
   ignored.

The candidates are tried in a seeded random order; the first one the planner
proves unsolvable is used. A candidate the planner *solves* is skipped (in some
domain the twin may be compatible), so the result is always proven.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from ..errors import PlanprobeError
from .errors import PlannerTimeoutError, UnsolvableError
from .model import Atom, PDDLLiteral, Problem
from .planner import solve

__all__ = ["Contradiction", "contradict_goal"]

NODE_LIMIT = 100_000  # expansions spent on proving twins unsolvable (Blocksworld: up to 7 blocks)
MAX_TWINS = 4  # twins tried before a static fact


@dataclass(frozen=True)
class Contradiction:
    """The problem with its contradictory goal: the fact added, the fact it contradicts
    (a goal fact, or for ``kind == "fixed"`` the true static fact), and the planner's
    finding (``reason``)."""

    problem: Problem
    added: Atom
    against: Atom
    kind: str  # "twin" | "fixed"
    reason: str

    def proof(self, say: Callable[[Atom], str] = str) -> str:
        """Why no plan exists; ``say`` renders a fact (PDDL text by default)."""
        if self.kind == "twin":
            return f"the goal needs both {say(self.against)} and {say(self.added)}: {self.reason}"
        return (f"the goal needs {say(self.added)}, which no action can make true (the initial state has "
                f"{say(self.against)}): {self.reason}")


def _kinds(problem: Problem) -> dict[str, frozenset[str]]:
    """Each object's static unary facts (Logistics' untyped kinds: location, truck…)."""
    static = problem.domain.static_predicates
    out: dict[str, set[str]] = {}
    for a in problem.init:
        if len(a.args) == 1 and a.predicate in static:
            out.setdefault(a.args[0], set()).add(a.predicate)
    return {k: frozenset(v) for k, v in out.items()}


def _alike(problem: Problem, obj: str, kinds: dict[str, frozenset[str]]) -> list[str]:
    """Objects of the same type and the same static kinds as ``obj`` (not ``obj`` itself)."""
    t = problem.object_type(obj)
    k = kinds.get(obj, frozenset())
    return [o.name for o in problem.all_objects
            if o.name != obj and o.type == t and kinds.get(o.name, frozenset()) == k]


def _twins(problem: Problem, kinds) -> list[tuple[Atom, Atom]]:
    goal = {lit.atom for lit in problem.goal}
    out = []
    for lit in problem.goal:
        a = lit.atom
        if not lit.positive or lit.is_equality or len(a.args) < 2:
            continue
        for z in _alike(problem, a.args[-1], kinds):
            twin = Atom(a.predicate, (*a.args[:-1], z))
            if z not in a.args[:-1] and twin not in goal:
                out.append((twin, a))
    return out


def _fixed(problem: Problem, kinds) -> list[tuple[Atom, Atom]]:
    static = problem.domain.static_predicates
    init = set(problem.init)
    out = []
    for a in sorted(init):
        if a.predicate not in static or len(a.args) < 2:
            continue
        for z in _alike(problem, a.args[-1], kinds):
            other = Atom(a.predicate, (*a.args[:-1], z))
            if other not in init:
                out.append((other, a))
    return out


def _reason(exc: UnsolvableError) -> str:
    text = str(exc)
    return text.split("unsolvable: ", 1)[-1]


def contradict_goal(problem: Problem, rng: random.Random, node_limit: int = NODE_LIMIT) -> Contradiction:
    """``problem`` with one goal fact added that makes it unsolvable, with the proof.
    Raises ``PlanprobeError`` when no candidate can be proven within the budget."""
    kinds = _kinds(problem)
    twins = _twins(problem, kinds)
    rng.shuffle(twins)
    fixed = _fixed(problem, kinds)
    rng.shuffle(fixed)
    candidates = [(*t, "twin") for t in twins[:MAX_TWINS]] + [(*f, "fixed") for f in fixed]
    searched_out = False  # a twin's search hit the budget: the others have the same state space to search
    for added, against, kind in candidates:
        if kind == "twin" and searched_out:
            continue
        changed = replace(problem, goal=(*problem.goal, PDDLLiteral(added)))
        try:
            solve(changed, time_limit=None, node_limit=node_limit)
        except UnsolvableError as exc:
            return Contradiction(changed, added, against, kind, _reason(exc))
        except PlannerTimeoutError:
            searched_out = searched_out or kind == "twin"
    raise PlanprobeError(f"problem {problem.name!r}: no contradictory goal could be proven unsolvable within "
                         f"{node_limit:,} expansions; use smaller problems")
