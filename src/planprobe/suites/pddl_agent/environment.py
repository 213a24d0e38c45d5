"""The world of a ``pddl`` case: each tool call applies an action to the state.

A call whose preconditions hold changes the state and returns the new state
(or only what changed, ``spec.observation = "changes"``). A call whose
preconditions do not hold changes nothing and returns each failed
precondition, so the agent can learn from it; whether that counts against it
is the oracle's business (``spec.failed_calls``). Arguments that do not fit the
tool's schema never get here: ``Environment.call`` rejects them first.
"""

from __future__ import annotations

from typing import Any, Optional

from ...environment import Environment, Limits
from ...schema import Case, ToolCallError
from ...pddl.errors import PlanStepError
from .compiled import compiled


class PDDLEnvironment(Environment):
    def __init__(self, case: Case, limits: Limits = Limits(), trial: int = 0, agent: str = ""):
        super().__init__(case, limits, trial, agent)
        self.compiled = compiled(case)
        self.state = self.compiled.gp.init

    def execute(self, name: str, args: dict[str, Any]) -> tuple[str, Optional[str]]:
        cc = self.compiled
        if name not in cc.tool_action:  # a tool the case offers that is no action of the domain
            return f"Error: '{name}' is not an action of this world; nothing changed.", \
                ToolCallError.TOOL_FAILURE.value
        try:
            action = cc.ground_call(name, args)
        except PlanStepError as exc:
            return f"Error: {exc.reason}; nothing changed.", ToolCallError.INVALID_ARGUMENTS.value
        say = cc.renderer
        what = say.action(action.name, action.args)
        if not action.applicable(self.state):
            unmet = say.literals(action.unmet(self.state))
            return f"Not done: {what} needs {unmet}, which does not hold. Nothing changed.", None
        before = self.state
        self.state = action.apply(before)
        gp = cc.gp
        if cc.spec.observation == "changes":
            now = gp.decode(self.state & ~before)
            gone = gp.decode(before & ~self.state)
            return (f"Done: {what}. Now true: {say.atoms(now)}. No longer true: {say.atoms(gone)}.", None)
        return f"Done: {what}. The state is now: {say.atoms(gp.decode(self.state))}.", None
