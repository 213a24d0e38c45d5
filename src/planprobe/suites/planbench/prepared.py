"""What the oracle and the reference agents derive from a planbench case, once per case.

The domain text is parsed once per process for all the cases that share it;
the problems once per case (kept in ``Case._derived``).
"""

from __future__ import annotations

from functools import cached_property, lru_cache

from ...errors import PlanprobeError
from ...pddl.errors import PDDLSyntaxError
from ...pddl.grounding import GroundProblem, ground
from ...pddl.model import Atom, Domain, Problem
from ...pddl.parser import parse_domain, parse_problem
from ...pddl.simulator import parse_step
from ...pddl.translation import Translator, load_translation, translator
from ...pddl.validator import ValidationResult, validate
from ...schema import Case
from .scoring import resulting_state
from .spec import PlanBenchSpec, parse_spec


@lru_cache(maxsize=32)
def _domain(text: str) -> Domain:
    return parse_domain(text, "spec.domain")


def _problem(text: str, domain: Domain, field: str) -> Problem:
    try:
        return parse_problem(text, domain, f"spec.{field}")
    except PDDLSyntaxError as exc:
        raise PlanprobeError(f"field 'spec.{field}': line {exc.line}, column {exc.column}: {exc.detail}") from None


def parse_atom(text: str) -> Atom:
    name, args = parse_step(text)
    return Atom(name, tuple(args))


class PreparedCase:
    def __init__(self, case: Case):
        self.case = case
        self.spec: PlanBenchSpec = parse_spec(case)
        try:
            domain = _domain(self.spec.domain)
        except PDDLSyntaxError as exc:
            raise PlanprobeError(f"field 'spec.domain': line {exc.line}, column {exc.column}: {exc.detail}") from None
        self.problem = _problem(self.spec.problem, domain, "problem")
        self.stated = _problem(self.spec.stated, domain, "stated") if self.spec.stated else None
        self.grounded: GroundProblem = ground(self.problem)
        config = load_translation(self.spec.translation) if self.spec.translation else None
        self.tr: Translator = translator(self.problem, config)

    @cached_property
    def truth(self) -> ValidationResult | None:
        """t3: the validator's verdict on the plan to verify."""
        return validate(self.grounded, self.spec.plan) if self.spec.plan is not None else None

    @cached_property
    def resulting_state(self) -> frozenset[Atom]:
        """t7: the visible facts after the executed sequence."""
        return resulting_state(self.grounded, self.spec.plan or [], self.tr)


def prepare(case: Case) -> PreparedCase:
    return case.derived("planbench", PreparedCase)
