"""The task reader for PDDL agent tasks: rebuild the problem from the text (``pddl_text``), plan, act.

The tool results are replayed on the rebuilt problem (``Done`` applied, ``Not done`` changed
nothing, any other error marks the tool broken); a result that contradicts the rules as read is
reported as under-specified. Plans come from the greedy planner (valid, not always shortest), or
the cost-optimal planner when the tools state costs; they are memoised per task text and state (a
pure function of what the calls showed), and the next call depends on the calls shown alone
(``_next_call``). A scaffold that shows only its last calls (``ChatView.unseen``) gets the state
from the latest result that states it.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any

from ..pddl.cost_planner import CompositeAction, solve_costs
from ..pddl.errors import PlannerTimeoutError, UnsolvableError
from ..pddl.grounding import State
from ..pddl.model import Domain, Problem
from ..pddl.satisficing import greedy_plan
from ..pddl.simulator import parse_step
from .base import ChatView, Decision, Step
from .pddl_text import (
    DESCRIPTION,
    Composite,
    Reading,
    Unreadable,
    paragraph,
    read_facts,
    read_task,
)
from .scaffolds import DONE


def _call(reading: Reading, step: Step) -> Any:
    tool = reading.by_tool[step.tool]
    args = tuple(str(step.arguments.get(k, "")).lower() for k in tool.keys)
    return reading.gp.ground(tool.action.name, args)


def _outcome(result: str) -> str:
    """What a tool result says happened: ``done``, ``not_done`` (preconditions failed, nothing changed)
    or ``failed`` (the tool itself failed: an error that is no verdict on the action)."""
    text = result.lstrip()
    if text.startswith("Done"):
        return "done"
    return "not_done" if text.startswith("Not done") else "failed"


def _replay(reading: Reading, view: ChatView) -> tuple[State, list[tuple[Step, bool, State, frozenset[str]]]]:
    """The state the shown calls start from, and per call: the call, whether it was done, and the
    state and the tools found broken after it (a call the rules allow that failed with an error: a
    perfect planner stops using that tool). A ``Done`` the rules forbid, or a ``Not done`` they
    allow, contradicts the text."""
    state = reading.gp.init
    history = view.history
    if view.unseen:
        state, history = _state_shown(reading, view)
    start = state
    broken: set[str] = set()
    out = []
    for seen in history:
        done = _outcome(seen.result) == "done"
        combo = reading.composites.get(seen.step.tool)
        if combo is not None:
            state = _replay_composite(reading, combo, seen, state)
        elif seen.step.tool in reading.by_tool:
            action = _call(reading, seen.step)
            outcome = _outcome(seen.result)
            if outcome == "failed":
                broken.add(seen.step.tool)
            else:
                if done != action.applicable(state):
                    raise Unreadable(f"the result of {seen.step.tool}{seen.step.arguments} ({seen.result[:120]!r}) "
                                     "contradicts the rules and state as the text states them")
                if done:
                    state = action.apply(state)
        # else: not an action (a refusal, a distractor): changes nothing in this world
        out.append((seen.step, done, state, frozenset(broken)))
    return start, out


_STATE_NOW = "The state is now: "


def _state_shown(reading: Reading, view: ChatView) -> tuple[State, tuple[Any, ...]]:
    """When the scaffold no longer shows the first calls: the state the latest tool result states
    (with the facts no action changes, from the task), and the calls made after it."""
    for i in range(len(view.history) - 1, -1, -1):
        result = view.history[i].result
        at = result.find(_STATE_NOW)
        if at >= 0 and reading.facts is not None:
            body = result[at + len(_STATE_NOW):].strip().removesuffix(".")
            static = reading.problem.domain.static_predicates
            atoms = {a for a in reading.problem.init if a.predicate in static}
            atoms |= {lit.atom for lit in read_facts(body, reading.style, reading.facts, state=True)}
            return reading.gp.mask(atoms), view.history[i + 1:]
    raise Unreadable(f"the scaffold no longer shows the first {view.unseen} calls, and no result shown states "
                     "the whole state, so the current state cannot be known")


def _replay_composite(reading: Reading, combo: Composite, seen: Any, state: State) -> State:
    """A composite call: both actions, or (any other result) neither."""
    if _outcome(seen.result) != "done":
        return state
    parts = ((combo.first, combo.first_keys), (combo.second, combo.second_keys))
    for tool, keys in parts:
        args = tuple(str(seen.step.arguments.get(k, "")).lower() for k in keys)
        action = reading.gp.ground(tool.action.name, args)
        if not action.applicable(state):
            raise Unreadable(f"the result of {seen.step.tool}{seen.step.arguments} ({seen.result[:120]!r}) "
                             "contradicts the rules and state as the text states them")
        state = action.apply(state)
    return state


def _plan(reading: Reading, problem: Problem, usable: set[str]) -> list[tuple[str, tuple[str, ...]]]:
    """(tool, PDDL steps) per call: the cheapest plan when the tools state costs, else a valid one."""
    if reading.costs is None:
        steps = greedy_plan(problem, time_limit=60.0).steps
        return [(reading.tools[parse_step(step)[0]].name, (step,)) for step in steps]
    costs = {a: c for a, c in reading.costs.items() if reading.tools[a].name in usable}
    composites = [CompositeAction(c.name, c.first.action.name, c.second.action.name, c.cost)
                  for c in reading.composites.values()
                  if c.name in usable and c.first.action.name in costs and c.second.action.name in costs]
    plan = solve_costs(problem, costs, composites, time_limit=60.0)
    return [(reading.tools[step.name].name if step.name in reading.tools else step.name, step.actions)
            for step in plan.steps]


def _plan_from(reading: Reading, state: State, broken: frozenset[str]) -> list[tuple[str, tuple[str, ...]]]:
    """The plan from ``state`` without the broken tools (memoised; raises ``UnsolvableError``)."""
    key = (state, broken)
    if key not in reading.plans:
        gp = reading.gp
        domain = gp.domain
        unusable = broken | {t.name for t in reading.tools.values() if t.missing}
        usable = {t.name for t in reading.tools.values()} | set(reading.composites)
        usable -= unusable
        if unusable:
            kept = tuple(a for a in domain.actions if reading.tools[a.name].name in usable)
            domain = Domain(domain.name, domain.requirements, domain.types, domain.constants, domain.predicates, kept)
        problem = Problem("solver-reading", domain, reading.problem.objects, tuple(sorted(gp.decode(state))),
                          reading.problem.goal)
        reading.plans[key] = _plan(reading, problem, usable)
    return reading.plans[key]


def _as_step(reading: Reading, entry: tuple[str, tuple[str, ...]]) -> Step:
    """A plan's call as the tool call to make: the tool and its arguments (ids as the text writes them)."""
    tool_name, steps = entry
    combo = reading.composites.get(tool_name)
    if combo is not None:
        arguments: dict[str, Any] = {}
        for (tool, keys), one in zip(((combo.first, combo.first_keys), (combo.second, combo.second_keys)), steps):
            arguments |= {k: reading.ids.get(a, a) for k, a in zip(keys, parse_step(one)[1])}
            arguments |= tool.given
        return Step(tool_name, arguments)
    name, args = parse_step(steps[0])
    tool = reading.tools[name]
    arguments = {k: reading.ids.get(a, a) for k, a in zip(tool.keys, args)}
    return Step(tool.name, {**arguments, **tool.given})


def _next_call(reading: Reading, start: State, calls: list[tuple[Step, bool, State, frozenset[str]]]) -> Step | None:
    """The next call, a function of the calls shown alone: the plan from the *anchor* (the state after
    the last call that was not done, else the start), when the calls since are exactly its first
    calls; otherwise (calls made by someone else, e.g. a step-wise case's prefix) the plan from the
    current state. None when the goal holds. Two plans at most, each memoised per state."""
    anchor = max((i + 1 for i, (_, done, _, _) in enumerate(calls) if not done), default=0)
    state, broken = (calls[anchor - 1][2], calls[anchor - 1][3]) if anchor else (start, frozenset[str]())
    now, broken_now = (calls[-1][2], calls[-1][3]) if calls else (start, frozenset[str]())
    if reading.gp.goal_reached(now):
        return None
    since = [step for step, _, _, _ in calls[anchor:]]
    plan = _plan_from(reading, state, broken)
    if len(since) < len(plan) and all(_as_step(reading, plan[i]) == step for i, step in enumerate(since)):
        return _as_step(reading, plan[len(since)])
    plan = _plan_from(reading, now, broken_now)
    return _as_step(reading, plan[0]) if plan else None


def memo_key(view: ChatView) -> tuple[str, str, str]:
    """What ``read_task`` reads of a call: its system prompt, task text and tool schemas (never the
    calls made, which are replayed on every call)."""
    return (view.system, view.task, repr(view.tools))


class PDDLReader:
    """Reads a PDDL agent task (plain or obfuscated, English or PDDL) and plays it perfectly."""

    name = "pddl"

    def __init__(self, memo_size: int = 256):
        # text read -> its reading: keyed by exactly what ``read_task`` reads of a call (system prompt, task
        # text, tool schemas), valued by what it made of them (and the plans it found from states it was
        # shown), so a hit answers as a fresh reading would; it holds no case, only texts (issue #27; tested)
        self._memo: OrderedDict[tuple[str, str, str], Reading | Unreadable] = OrderedDict()
        self._memo_size = memo_size

    def forget(self) -> None:
        """Drop the memo (benchmarks measure each run from a cold start)."""
        self._memo.clear()

    def claims(self, view: ChatView) -> bool:
        return any(DESCRIPTION.match(str(t.get("description", ""))) for t in view.tools) and \
            paragraph(view.task, "goal") is not None

    def _reading(self, view: ChatView) -> Reading:
        key = memo_key(view)
        hit = self._memo.get(key)
        if hit is None:
            try:
                hit = read_task(view)
            except Unreadable as exc:
                hit = exc
            self._memo[key] = hit
            if len(self._memo) > self._memo_size:
                self._memo.popitem(last=False)
        if isinstance(hit, Unreadable):
            raise hit
        return hit

    def decide(self, view: ChatView) -> Decision:
        try:
            reading = self._reading(view)
            start, calls = _replay(reading, view)
        except Unreadable as exc:
            return Decision(underspecified=str(exc))
        state, broken = (calls[-1][2], calls[-1][3]) if calls else (start, frozenset[str]())
        if reading.gp.goal_reached(state):
            return Decision(answer=DONE)
        try:
            step = _next_call(reading, start, calls)
        except UnsolvableError:
            why = ["no sequence of the offered actions reaches the goal from the stated state"]
            why += [f"{t.name} needs {', '.join(t.missing)}, which the task does not give"
                    for t in reading.tools.values() if t.missing]
            why += [f"the tools {', '.join(sorted(broken))} failed"] if broken else []
            return Decision(refuse="; ".join(why))
        except PlannerTimeoutError as exc:  # a perfect planner would finish; say so rather than guess
            return Decision(underspecified=f"the planner ran out of time ({exc})")
        return Decision(answer=DONE) if step is None else Decision(calls=(step,))


READER = PDDLReader()
