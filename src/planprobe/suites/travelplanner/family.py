"""The ``travelplanner`` family: environment (two-stage tools), oracle and
reference answers.

The verdict: the plan is read from the final answer (``plan.read_answer``) and
checked for the evaluator's format; then every official constraint is
evaluated, and the strict reading too. ``passed`` is the final pass of the
reading the case asks for (``spec.strict``). Error classes: ``act_error`` for no
readable plan (kind ``not_delivered``) or a place outside the sandbox,
``action_lost`` for incomplete information, ``order_error`` for every other
violated constraint (kind = the official constraint name). ``Verdict.labels``
carries ``travelplanner``: ``delivered``, ``hard_total``, ``level`` and both
readings' constraint results (``official``, ``strict``): ``show`` and
``report`` compute the official figures from them.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, ClassVar

from ...environment import Environment, Limits
from ...errors import PlanprobeError
from ...schema import (
    Case,
    ErrorClass,
    Evidence,
    Trace,
    TraceStatus,
    Verdict,
    sort_errors,
)
from ..base import NoToolPlans
from ..unfinished import status_verdict
from . import reference_answers
from .cases import FAMILY, TOOLS, prepare
from .evaluate import Evaluator
from .evaluation import PAPER_NAMES, PlanEvaluation
from .plan import format_problem, read_answer
from .solver_claim import SolverSampleFromTraining
from .tools import run_tool

CHECKER = "travelplanner/1"
E = ErrorClass
_CLASS = {"is_valid_information_in_sandbox": E.ACT_ERROR, "is_not_absent": E.ACTION_LOST}


class TravelEnvironment(Environment):
    def execute(self, name: str, args: dict[str, Any]) -> tuple[str, str | None]:
        return run_tool(prepare(self.case).sandbox, name, args)


def evaluate_answer(case: Case, answer: str | None) -> tuple[dict[str, Any], PlanEvaluation | None,
                                                                 PlanEvaluation | None, str]:
    """(labels, official evaluation, strict evaluation, why not delivered)."""
    prepared = prepare(case)
    q = prepared.fields
    labels: dict[str, Any] = {"delivered": False, "hard_total": q.hard_total(), "level": q.level,
                              "strict_decides": prepared.strict}
    plan, how = read_answer(answer)
    if plan is None:
        return labels, None, None, how
    problem = format_problem(plan, q.days)
    if problem is not None:
        return labels, None, None, f"the plan is not in TravelPlanner's format: {problem}"
    box = prepared.sandbox
    official = Evaluator(q, box).evaluate(plan)
    strict = Evaluator(q, box, strict=True).evaluate(plan)
    labels.update(delivered=True, read_as=how, official=official.to_json(), strict=strict.to_json())
    return labels, official, strict, ""


def check(case: Case, trace: Trace) -> Verdict:
    if trace.status != TraceStatus.COMPLETED:
        q = prepare(case).fields
        labels = {FAMILY: {"delivered": False, "hard_total": q.hard_total(), "level": q.level}}
        return status_verdict(case, trace, CHECKER, doing="answering", detail=False, labels=labels)
    labels, official, strict, why = evaluate_answer(case, trace.final_answer)
    ev = strict if prepare(case).strict else official
    evidence: list[Evidence] = []
    if ev is None:
        evidence.append(Evidence(error=E.ACT_ERROR.value, kind="not_delivered", symbolic="not_delivered",
                                 text=f"No plan was delivered: {why}."))
    else:
        for key, message in ev.failed():
            evidence.append(Evidence(error=_CLASS.get(key, E.ORDER_ERROR).value, kind=key, symbolic=f"{key}=False",
                                     text=f"{PAPER_NAMES[key]}: {message}", constraint_ids=[key]))
        if ev.hard is None and not evidence:  # cannot happen: hard is skipped only after a failure
            evidence.append(Evidence(error=E.ACTION_LOST.value, kind="unscored", symbolic="hard=None",
                                     text="The hard constraints were not scored."))
    passed = ev is not None and ev.final_pass
    errors = sort_errors([e.error for e in evidence]) if not passed else []
    return Verdict(case_id=case.id, trial=trace.trial, passed=passed, errors=errors, evidence=evidence,
                   checker=CHECKER + ("/strict" if prepare(case).strict else ""), labels={FAMILY: labels})


class TravelPlannerFamily(SolverSampleFromTraining, NoToolPlans):  # SolvableFromText: the training queries
    name = FAMILY
    faults: ClassVar[dict[str, str]] = {k: v[1] for k, v in reference_answers.MUTATIONS.items()}

    def validate(self, case: Case) -> None:
        """The spec's fields, mode and sandbox directory (its tables are read at the first check)."""
        prepared = prepare(case)
        if prepared.mode == "sole-planning" and case.tools:
            raise PlanprobeError(f"case {case.id}: field 'tools': a sole-planning case has no tools")
        if not Path(prepared.sandbox_ref[1]).is_dir():
            raise PlanprobeError(f"case {case.id}: field 'spec.sandbox.dir': {prepared.sandbox_ref[1]} is not a directory "
                                 "(the sandbox is read from there)")

    def environment(self, case: Case, limits: Limits, trial: int = 0, agent: str = "") -> Environment:
        return TravelEnvironment(case, limits, trial, agent)

    def check(self, case: Case, trace: Trace) -> Verdict:
        return check(case, trace)

    # -- reference agents (they answer with a plan) ------------------------

    def reference_answer(self, case: Case) -> str:
        return reference_answers.dump(prepare(case).plan)

    def random_answer(self, case: Case, rng: random.Random) -> str:
        prepared = prepare(case)
        return reference_answers.dump(reference_answers.random_plan(prepared.fields, prepared.sandbox, rng))

    def faulty_answer(self, case: Case, fault: str, rng: random.Random) -> str | None:
        prepared = prepare(case)
        if fault not in reference_answers.MUTATIONS or not prepared.plan:
            return None
        plan = reference_answers.mutate(fault, prepared.plan, prepared.fields, prepared.sandbox, rng)
        return None if plan is None else reference_answers.dump(plan)


__all__ = ["TOOLS", "TravelPlannerFamily", "check", "evaluate_answer"]
