"""The world of a ``pddl`` case: each tool call applies an action to the state.

A call whose preconditions hold changes the state and returns the new state
(or only what changed, ``spec.observation = "changes"``). A call whose
preconditions do not hold changes nothing and returns each failed
precondition, so the agent can learn from it; whether that counts against it
is the oracle's business (``spec.failed_calls``). Arguments that do not fit the
tool's schema never get here: ``Environment.call`` rejects them first.
"""

from __future__ import annotations

from typing import Any

from ...environment import Environment, Limits
from ...pddl.errors import PlanStepError
from ...schema import Case, ToolCallError
from .prepared import prepare


class PDDLEnvironment(Environment):
    def __init__(self, case: Case, limits: Limits = Limits(), trial: int = 0, agent: str = ""):
        super().__init__(case, limits, trial, agent)
        self.prepared = prepare(case)
        self.state = self.prepared.grounded.init

    def execute(self, name: str, args: dict[str, Any]) -> tuple[str, str | None]:
        prepared = self.prepared
        if name not in prepared.tool_action:  # a tool the case offers that is no action of the domain
            return f"Error: '{name}' is not an action of this world; nothing changed.", \
                ToolCallError.TOOL_FAILURE.value
        try:
            action = prepared.ground_call(name, args)
        except PlanStepError as exc:
            return f"Error: {exc.reason}; nothing changed.", ToolCallError.INVALID_ARGUMENTS.value
        say = prepared.renderer
        what = say.action(action.name, action.args)
        if not action.applicable(self.state):
            unmet = say.literals(action.unmet(self.state))
            return f"Not done: {what} needs {unmet}, which does not hold. Nothing changed.", None
        before = self.state
        self.state = action.apply(before)
        return self._done(what, before)

    def _done(self, what: str, before: int) -> tuple[str, str | None]:
        prepared, say, grounded = self.prepared, self.prepared.renderer, self.prepared.grounded
        if prepared.spec.observation == "changes":
            now = grounded.decode(self.state & ~before)
            gone = grounded.decode(before & ~self.state)
            return (f"Done: {what}. Now true: {say.atoms(now)}. No longer true: {say.atoms(gone)}.", None)
        return f"Done: {what}. The state is now: {say.atoms(grounded.decode(self.state))}.", None

    def execute_composite(self, name: str, first: str, first_args: dict[str, Any], second: str,
                          second_args: dict[str, Any]) -> tuple[str, str | None]:
        """A cost variant's composite (capability ``RunsComposites``): ``first`` then ``second``
        as one call; the second is checked in the state after the first, and if it cannot run
        the call is rolled back, so nothing changes (as a service's transaction would)."""
        prepared = self.prepared
        for tool in (first, second):
            if tool not in prepared.tool_action:
                return f"Error: '{tool}' is not an action of this world; nothing changed.", \
                    ToolCallError.TOOL_FAILURE.value
        try:
            a1, a2 = prepared.ground_call(first, first_args), prepared.ground_call(second, second_args)
        except PlanStepError as exc:
            return f"Error: {exc.reason}; nothing changed.", ToolCallError.INVALID_ARGUMENTS.value
        say = prepared.renderer
        what1, what2 = say.action(a1.name, a1.args), say.action(a2.name, a2.args)
        if not a1.applicable(self.state):
            return (f"Not done: {name} starts with {what1}, which needs {say.literals(a1.unmet(self.state))}, "
                    "which does not hold. Nothing changed."), None
        mid = a1.apply(self.state)
        if not a2.applicable(mid):
            return (f"Error: {name} was rolled back: after {what1}, {what2} needs "
                    f"{say.literals(a2.unmet(mid))}, which would not hold. Nothing changed."), None
        before = self.state
        self.state = a2.apply(mid)
        return self._done(f"{what1}, then {what2}", before)
