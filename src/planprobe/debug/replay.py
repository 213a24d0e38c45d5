"""What the labeller asks a formal family, step by step (one adapter per family).

Each adapter answers, for a list of calls taken from a trace:

* ``earliest(calls)`` — the first call after which the calls can no longer be part
  of a passing run (a per-call error, a violated constraint, a dead end), with the
  problem found there; ``None`` when every prefix can still be completed;
* ``dead(calls)`` — whether the *state* the accepted calls lead to is a dead end
  (no continuation completes the task). Only calls the environment carried out
  change the state: a rejected call changes nothing, so it is never a point of no
  return;
* ``complete(calls)`` — whether the calls, as they stand, complete the task;
* ``distance(calls)`` — h*, the fewest further calls that complete the task from
  the state reached (``math.inf`` from a dead end the environment offers no way out
  of, ``None`` if undecided), for the budget point of no return. Where the
  environment grants restarts, a dead attempt is one restart call and a whole plan
  away: that is what playing on perfectly would do.

Every answer counts as one oracle call (``self.calls``), so the labeller can show
that the point of no return costs O(log T) of them.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Sequence

from ..schema import Case, ToolCall, split_attempts
from ..suites.base import PlannedCall

# kinds of evidence (as the families' oracles and prefix checks name them) -> (module, type)
KIND_TYPE: dict[str, tuple[str, str]] = {
    "unknown_tool": ("action", "invalid_action"),
    "malformed_arguments": ("action", "format_error"),
    "invalid_arguments": ("action", "parameter_error"),
    "overlap": ("action", "parameter_error"),
    "past_day": ("action", "parameter_error"),
    "repeated_action": ("planning", "constraint_ignorance"),
    "violated_constraint": ("planning", "constraint_ignorance"),
    "unextendable": ("planning", "constraint_ignorance"),
    "no_time_left": ("planning", "constraint_ignorance"),
    "dead_end": ("planning", "constraint_ignorance"),
    "impossible_action": ("planning", "impossible_action"),
    "unmet_precondition": ("planning", "impossible_action"),
    "tool_failure": ("system", "tool_execution_error"),
}
UNPARSED_NAMES = ("(unparsed reply)",)  # the text agents' record of a reply with no usable action


def _planned(calls: Sequence[ToolCall]) -> list[PlannedCall]:
    return [PlannedCall(c.name, c.arguments) for c in calls]


class ConstraintReplay:
    """PDoctor cases: the family's exact prefix check (``constraints/prefix.py``:
    order, windows, once-only, and the solver's residual schedule in the extended
    mode) is the oracle."""

    def __init__(self, case: Case):
        from ..suites.constraints.prepared import prepare

        self.prepared = prepare(case)
        self.calls = 0

    def _problems(self, calls: Sequence[ToolCall], explain: bool = False) -> list[dict]:
        from ..suites.constraints.prefix import prefix_problems

        self.calls += 1
        return prefix_problems(self.prepared, _planned(calls), explain)

    def earliest(self, calls: Sequence[ToolCall], explain: bool = True) -> tuple[int, dict] | None:
        found = _first_bad(len(calls), lambda k: self._problems(calls[:k]))
        if not explain or found is None or found[1].get("kind") != "unextendable":
            return found
        k = found[0]  # the remaining schedule is ruled out: name the constraints that do it (Z3's core)
        at = [p for p in self._problems(calls[:k + 1], explain=True) if p.get("step") == k]
        return k, (at[0] if at else found[1])

    def dead(self, calls: Sequence[ToolCall]) -> bool | None:
        return bool(self._problems(calls))

    def complete(self, calls: Sequence[ToolCall]) -> bool:
        done = {self.prepared.tool_index.get(c.name) for c in calls} - {None}
        return len(done) == self.prepared.n and not self._problems(calls)

    def distance(self, calls: Sequence[ToolCall]) -> float | None:
        from ..suites.constraints.generator import RESTART_TOOL_SPEC

        if self._problems(calls):  # judged in the last attempt only, as the environment does
            return 1 + self.prepared.n if self.prepared.restart_tool else math.inf
        restart = RESTART_TOOL_SPEC if self.prepared.restart_tool else None
        last = split_attempts(list(calls), restart)[-1]
        done = {self.prepared.tool_index.get(c.name) for c in last} - {None}
        return self.prepared.n - len(done)


class PDDLReplay:
    """PDDL cases: the simulator replays calls as the environment did; a dead end is
    decided by the family's sound test (relaxed reachability, then a bounded search:
    ``protocol_hooks.goal_reachable``); h* by the built-in optimal planner."""

    def __init__(self, case: Case, node_limit: int = 200_000):
        from ..suites.pddl_agent.prepared import prepare

        self.case = case
        self.prepared = prepare(case)
        self.strict = self.prepared.spec.failed_calls == "error"
        self.tools = {t.name: t for t in case.tools}
        self.node_limit = node_limit
        self.calls = 0
        self.undecided = False  # a dead-end search ran out of nodes: the answer is only sound
        self._dead: dict[int, bool | None] = {}  # state -> reachable? (the correction search re-asks)
        self._h: dict[int, int | None] = {}

    def _step(self, state: int, call: ToolCall) -> tuple[int, dict | None, bool]:
        """The state after one call, the problem the oracle would report for it, and whether
        the action was carried out."""
        from ..pddl.errors import PlanStepError
        from ..tool_args import parse_arguments, validate_arguments

        prepared = self.prepared
        tool = self.tools.get(call.name)
        if tool is None or call.name not in prepared.tool_action:
            return state, dict(kind="unknown_tool", text=f'called "{call.name}", which is not one of the actions'), False
        args = parse_arguments(call.arguments)
        if args is None:
            return state, dict(kind="malformed_arguments", text="the arguments are not a JSON object"), False
        why = validate_arguments(tool.parameters, args)
        if why:
            return state, dict(kind="invalid_arguments", text=why), False
        try:
            action = prepared.ground_call(call.name, args)
        except PlanStepError as exc:
            return state, dict(kind="invalid_arguments", text=exc.reason), False
        if action.applicable(state):
            return action.apply(state), None, True
        unmet = action.unmet(state)
        static = prepared.problem.domain.static_predicates
        say = prepared.renderer
        if any(lit.is_equality or lit.atom.predicate in static for lit in unmet):
            return state, dict(kind="impossible_action",
                               text=f"{say.action(action.name, action.args)} can never be done"), False
        if self.strict:
            return state, dict(kind="unmet_precondition",
                               text=f"{say.action(action.name, action.args)} needs {say.literals(unmet)}"), False
        return state, None, False

    def states(self, calls: Sequence[ToolCall]) -> tuple[list[int], list[dict | None]]:
        """s_0..s_T (s_k after k calls) and each call's problem."""
        states, problems, _ = self.replay(calls)
        return states, problems

    def replay(self, calls: Sequence[ToolCall]) -> tuple[list[int], list[dict | None], list[bool]]:
        """s_0..s_T, each call's problem, and whether each call's action was carried out."""
        state = self.prepared.grounded.init
        out, problems, applied = [state], [], []
        for call in calls:
            state, problem, done = self._step(state, call)
            out.append(state)
            problems.append(problem)
            applied.append(done)
        return out, problems, applied

    def is_dead(self, state: int) -> bool:
        from ..suites.pddl_agent.protocol_hooks import goal_reachable

        self.calls += 1
        if state not in self._dead:
            self._dead[state] = goal_reachable(self.case, state, self.node_limit)
        found = self._dead[state]
        if found is None:
            self.undecided = True
            return False
        return not found

    def earliest(self, calls: Sequence[ToolCall], explain: bool = True) -> tuple[int, dict] | None:
        states, problems = self.states(calls)
        first, problem = next(((k, p) for k, p in enumerate(problems) if p is not None), (None, None))
        dead = _first_true(len(calls), lambda k: self.is_dead(states[k]))  # k calls -> dead
        if dead is not None and (first is None or dead - 1 < first):
            return dead - 1, dict(kind="dead_end", text="after this step the goal can no longer be reached")
        if first is not None and problem is not None:
            return first, problem
        return None

    def dead(self, calls: Sequence[ToolCall]) -> bool | None:
        states, _ = self.states(calls)
        return self.is_dead(states[-1])

    def complete(self, calls: Sequence[ToolCall]) -> bool:
        states, problems = self.states(calls)
        return self.prepared.grounded.goal_reached(states[-1]) and all(p is None for p in problems)

    def distance(self, calls: Sequence[ToolCall]) -> float | None:
        state = self.states(calls)[0][-1]
        h = self.h_star(state)
        if h is None:
            return math.inf if self.is_dead(state) else None
        return h

    def h_star(self, state: int) -> int | None:
        """The length of a shortest plan from ``state``; None when unsolvable or undecided."""
        self.calls += 1
        if state not in self._h:
            self._h[state] = self._solve(state)
        return self._h[state]

    def _solve(self, state: int) -> int | None:
        from ..pddl.auto_planner import solve_auto
        from ..pddl.errors import PlannerTimeoutError, UnsolvableError

        grounded = self.prepared.grounded
        if grounded.goal_reached(state):
            return 0
        local = copy.copy(grounded)
        local.init = state
        try:
            # past the built-in's work budget, Fast Downward when installed (its own 60 s limit)
            return len(solve_auto(local, time_limit=None, node_limit=self.node_limit).steps)
        except (UnsolvableError, PlannerTimeoutError):
            return None


def _first_true(n: int, pred) -> int | None:
    """The smallest k in 1..n with pred(k) true, for a predicate that stays true once
    it is (binary search: about log2(n)+1 calls); None when pred(n) is false."""
    if n < 1 or not pred(n):
        return None
    lo, hi = 1, n
    while lo < hi:
        mid = (lo + hi) // 2
        if pred(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _first_bad(n: int, problems_of) -> tuple[int, dict] | None:
    """Binary search for the shortest failing prefix; returns (index of its last call, the
    problem reported at that call)."""
    cache: dict[int, list[dict]] = {}

    def bad(k: int) -> bool:
        if k not in cache:
            cache[k] = problems_of(k)
        return bool(cache[k])

    k = _first_true(n, bad)
    if k is None:
        return None
    found = cache[k]
    at = [p for p in found if p.get("step") == k - 1] or found
    return k - 1, at[0]


def replay_for(case: Case):
    """The adapter for the case's family, or None when the family has no formal step labels."""
    if case.family == "constraints":
        return ConstraintReplay(case)
    if case.family == "pddl":
        return PDDLReplay(case)
    return None


LABELLED_FAMILIES = ("constraints", "pddl")  # executed; debug/views.py adds the holistic protocol over them


def arguments_of(call: ToolCall) -> str:
    return call.arguments if call.arguments else json.dumps({})
