"""The ``itinerary`` family: TravelPlanner's tools, plan format, evaluator and
figures over a synthesized sandbox, judged by the strict reading (names exact,
flight dates checked against the days).

The verdict is TravelPlanner's (``travelplanner.family.check``: every constraint
as separate evidence, its labels under ``travelplanner`` so ``show``/``report``
print the official figures); this family adds under ``itinerary`` the witness's
minimum cost, the plan's cost, each constraint's scope, and for cost-aware cases
a ``minimum_cost`` constraint (the plan's cost must equal the minimum; judged only on a
plan that meets every other constraint, since the minimum is over valid plans).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any, ClassVar

from ...environment import Environment, Limits
from ...errors import PlanprobeError
from ...schema import Case, ErrorClass, Evidence, Trace, Verdict, sort_errors
from ..base import PlannedCall
from ..travelplanner import family as tp
from ..travelplanner import reference_answers
from ..travelplanner.cases import FAMILY as TRAVELPLANNER
from ..travelplanner.cases import prepare
from .generate import FAMILY, ItineraryOptions, generate_cases
from .scopes import SCOPES

CHECKER = "itinerary/1"


def check(case: Case, trace: Trace) -> Verdict:
    verdict = tp.check(case, trace)
    spec = case.spec
    tp_labels = verdict.labels.get(TRAVELPLANNER, {})
    strict = tp_labels.get("strict") or {}
    cost = strict.get("cost")
    mine: dict[str, Any] = {"min_cost": spec["min_cost"], "cost": cost, "cost_aware": bool(spec.get("cost_aware")),
                            "scopes": spec.get("scopes", SCOPES)}
    passed, evidence = verdict.passed, list(verdict.evidence)
    if mine["cost_aware"] and tp_labels.get("delivered"):
        mine["minimum_cost"] = _minimum_cost(verdict.passed, cost, spec["min_cost"])
        if mine["minimum_cost"][0] is False:
            passed = False
            evidence.append(Evidence(error=ErrorClass.ORDER_ERROR.value, kind="minimum_cost",
                                     symbolic="minimum_cost=False", constraint_ids=["minimum_cost"],
                                     text=f"Minimum cost: {mine['minimum_cost'][1]}"))
    errors = sort_errors([e.error for e in evidence]) if not passed else []
    return verdict.model_copy(update={"passed": passed, "errors": errors, "evidence": evidence,
                                      "checker": CHECKER, "labels": {**verdict.labels, FAMILY: mine}})


def _minimum_cost(valid: bool, cost: float | None, minimum: float) -> list[Any]:
    """[passed, message] of the minimum-cost constraint. The minimum is over plans that
    meet every other constraint, so only such a plan is judged against it; for any other
    plan it does not apply ([None, why]: the plan already fails)."""
    if not valid or cost is None:
        return [None, "Not judged: the plan fails other constraints (the minimum is over valid plans)."]
    ok = abs(cost - minimum) < 1e-9
    return [ok, None if ok else f"The total cost {cost:g} is not the minimum {minimum:g}."]


class ItineraryFamily(tp.TravelPlannerFamily):
    name = FAMILY
    generate_command = ("travel", "planprobe.cli.generate_travel:register")  # HasGenerateCommand
    faults: ClassVar[dict[str, str]] = {k: v[1] for k, v in reference_answers.MUTATIONS.items()}

    def validate(self, case: Case) -> None:
        """The spec's fields and its inline sandbox, and the witness's cost."""
        prepared = prepare(case)
        if prepared.sandbox_ref[0] != "inline":
            raise PlanprobeError(f"case {case.id}: field 'spec.sandbox.kind': expected 'inline'")
        cost = case.spec.get("min_cost")
        if isinstance(cost, bool) or not isinstance(cost, (int, float)) or cost < 0:
            raise PlanprobeError(f"case {case.id}: field 'spec.min_cost': expected a number >= 0")
        if not isinstance(prepared.plan, list):
            raise PlanprobeError(f"case {case.id}: field 'spec.reference_plan': expected the witness plan")

    def generate(self, n: int, seed: int) -> Iterator[Case]:
        """``n`` cases of every level and length (the contract test's samples)."""
        return generate_cases(ItineraryOptions(n=n, seed=seed))

    # CoversSolverVariants: only ``extraneous`` applies. The other variants take the tools a case
    # needs from its reference plan's calls, and an itinerary's witness is its answer text (no calls):
    # ``unsolvable`` and ``broken`` find nothing to remove or break, and ``cost`` has no plan to price.
    solver_variants = (("extraneous:2",),)

    def solver_sample(self, n: int, seed: int) -> list[Case]:
        """``SolvableFromText``: ``n`` cases of every level and length (3, 5, 7 days), asking for a
        valid plan and, on the next seed (so no id repeats), for the cheapest one."""
        return [*generate_cases(ItineraryOptions(n=9 * n, seed=seed)),
                *generate_cases(ItineraryOptions(n=9 * n, seed=seed + 1, cost_aware=True))]

    def environment(self, case: Case, limits: Limits, trial: int = 0, agent: str = "") -> Environment:
        return tp.TravelEnvironment(case, limits, trial, agent)

    def check(self, case: Case, trace: Trace) -> Verdict:
        return check(case, trace)

    def faulty_answer(self, case: Case, fault: str, rng: random.Random) -> str | None:
        """TravelPlanner's mutations; ``over_budget`` only where the dearest stays do break the
        budget (a loose budget leaves no room for that fault)."""
        answer = super().faulty_answer(case, fault, rng)
        if fault == "over_budget" and answer is not None:
            _, _, strict, _ = tp.evaluate_answer(case, answer)
            if strict is None or [k for k, _ in strict.failed()] != ["valid_cost"]:
                return None
        return answer

    def reference_plan(self, case: Case) -> list[PlannedCall]:
        return []
