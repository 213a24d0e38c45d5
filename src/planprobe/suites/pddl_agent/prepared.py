"""What the environment and the oracle derive from a case, built once per case.

The domain text is parsed once per process for all the cases that share it
(a suite has one domain); the problem once per case (kept in ``Case._derived``).
"""

from __future__ import annotations

from functools import cached_property, lru_cache
from typing import Any

from ...errors import PlanprobeError
from ...pddl.errors import PDDLSyntaxError
from ...pddl.grounding import GroundAction, GroundProblem, ground
from ...pddl.model import Action, Domain, Problem
from ...pddl.obfuscate import Renaming
from ...pddl.parser import parse_domain, parse_problem
from ...schema import Case
from .describe import Renderer
from .spec import AgentSpec, parse_spec
from .tools import parameter_keys, tool_names


@lru_cache(maxsize=32)
def _domain(text: str) -> Domain:
    return parse_domain(text, "spec.domain")


def parse_case_problem(spec: AgentSpec) -> Problem:
    """The spec's problem; syntax errors name the spec field, line and column."""
    try:
        domain = _domain(spec.domain)
    except PDDLSyntaxError as exc:
        raise PlanprobeError(f"field 'spec.domain': line {exc.line}, column {exc.column}: {exc.detail}") from None
    try:
        return parse_problem(spec.problem, domain, "spec.problem")
    except PDDLSyntaxError as exc:
        raise PlanprobeError(f"field 'spec.problem': line {exc.line}, column {exc.column}: {exc.detail}") from None


class PreparedCase:
    def __init__(self, case: Case):
        self.case = case
        self.spec = parse_spec(case)
        self.problem = parse_case_problem(self.spec)
        self.grounded: GroundProblem = ground(self.problem)
        names = tool_names(self.problem.domain)
        self.tool_action: dict[str, Action] = {names[a.name]: a for a in self.problem.domain.actions}
        self.keys: dict[str, list[str]] = {t: parameter_keys(a) for t, a in self.tool_action.items()}
        self.tool_of: dict[str, str] = {a: t for t, a in ((t, a.name) for t, a in self.tool_action.items())}
        self.renaming = Renaming.from_json(self.spec.renaming) if self.spec.renaming else None

    @cached_property
    def renderer(self) -> Renderer:
        return Renderer(self.problem, self.spec.language)

    def ground_call(self, tool: str, args: dict[str, Any]) -> GroundAction:
        """The ground action a schema-valid call names (``PlanStepError`` if it names none)."""
        action = self.tool_action[tool]
        return self.grounded.ground(action.name, [str(args[k]) for k in self.keys[tool]])

    def call_for(self, step: str) -> tuple[str, dict[str, str]]:
        """A PDDL step ``(stack a b)`` → (tool name, arguments)."""
        from ...pddl.simulator import parse_step

        name, args = parse_step(step)
        action = self.problem.domain.action(name)
        if action is None:
            raise PlanprobeError(f"step {step!r}: the domain has no action {name!r}")
        tool = self.tool_of[action.name]
        return tool, dict(zip(self.keys[tool], args))


def prepare(case: Case) -> PreparedCase:
    return case.derived("pddl_agent", PreparedCase)
