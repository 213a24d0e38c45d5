"""The step-wise planning protocol (APB §3, Figs. 28-30) as a ``Family`` ("stepwise").

The agent sees a gold prefix of the trajectory (the first ``j`` calls of the
reference plan, with their results) and predicts the next ``k`` calls as
``{"next_steps": [{"tool", "parameters"}, …]}``. APB grades the prediction with
an LLM judge against the gold step; here it is judged exactly, and any valid
continuation counts, not only the gold one:

* more than ``k`` steps — Act Error (the format asked for ``k``);
* fewer than ``k`` — a pass only if prefix + steps is a complete valid plan
  (the base oracle on the replayed plan); otherwise the steps' own fault, or
  Action Lost (the answer stopped before the task was done);
* exactly ``k`` — a pass iff prefix + steps can still be completed into a valid
  plan: the base family's ``extendable`` hook decides, ``prefix_evidence`` says
  why not in the base family's error classes.

Faults (each verified by this checker before it is used, so the class is exact):
``unparseable``, ``unknown-tool``, ``malformed-args``, ``extra-step`` (Act Error),
``premature`` (a later step of the plan taken too early: Order Error),
``duplicate`` (a step of the prefix repeated: Repeated Action).
"""

from __future__ import annotations

import json
import random
from typing import ClassVar

from ...errors import PlanprobeError
from ...schema import Case, ErrorClass, Evidence, Trace, Verdict, sort_errors
from ..base import ExplainsPrefixes, JudgesPrefixes, PlannedCall
from ..registry import get_family
from . import prompts
from .family import ACT, UNPARSEABLE, ProtocolFamily, evidence, not_offered
from .spec import STEPWISE, base_case, spec_of
from .wrap import replay

E = ErrorClass
ORDER, REPEATED, LOST = E.ORDER_ERROR.value, E.REPEATED_ACTION.value, E.ACTION_LOST.value


class StepwiseFamily(ProtocolFamily):
    name = STEPWISE
    answer_keys = ("next_steps", "steps", "tool_chain")
    own_faults: ClassVar[dict[str, str]] = {"unknown-tool": ACT, "malformed-args": ACT, "extra-step": ACT,
                                            "premature": ORDER, "duplicate": REPEATED, "stall": E.TIMEOUT.value}

    def validate(self, case: Case) -> None:
        super().validate(case)
        base = base_case(case)
        if not isinstance(get_family(base.family), JudgesPrefixes):
            raise PlanprobeError(f"case {case.id}: field 'spec.base.family': the {base.family!r} family cannot judge "
                                 "partial plans (no 'extendable' hook)")
        if not spec_of(case).gold:
            raise PlanprobeError(f"case {case.id}: field 'spec.gold': empty; there must be a next step")

    def _judge(self, case: Case, base: Case, calls: list[PlannedCall], trace: Trace):
        spec = spec_of(case)
        family = get_family(base.family)
        prefix = spec.prefix_calls()
        k, n = spec.k, len(calls)
        extra = not_offered(base, calls, len(prefix))
        if n > k:
            return None, extra + [evidence(
                ACT, "step_count", f"{n} steps > {k}",
                f"Gave {n} steps, but {_steps(k)} were asked for.", step=len(prefix) + k)]
        whole = prefix + calls
        if n < k:
            full = family.check(base, replay(base, whole, trace.trial, trace.agent))
            if full.passed:
                return full, extra  # the task ends sooner: fewer steps are right
        if not isinstance(family, JudgesPrefixes):  # validate() refuses such cases; a trace judged alone may not
            raise PlanprobeError(f"case {case.id}: the {base.family!r} family cannot judge partial plans")
        verdict = _extendability(family, base, whole)
        if verdict.passed and n < k:
            return verdict, extra + [evidence(
                LOST, "too_few_steps", f"{n} steps < {k}, task unfinished",
                f"Gave {_steps(n)} where {_steps(k)} were asked for, but the task is not finished after them.")]
        return verdict, extra

    # -- reference agents ----------------------------------------------------

    def reference_answer(self, case: Case) -> str:
        return prompts.stepwise_answer([g.call() for g in spec_of(case).gold])

    def random_answer(self, case: Case, rng: random.Random) -> str:
        """k calls of the base family's random plan, leaving out calls the prefix made."""
        spec = spec_of(case)
        base = base_case(case)
        done = set(spec.prefix_calls())
        plan = [c for c in get_family(base.family).random_plan(base, rng) if c not in done]
        return prompts.stepwise_answer(plan[: spec.k])

    def faulty_answer(self, case: Case, fault: str, rng: random.Random) -> str | None:
        expected = self.own_faults.get(fault, ACT if fault == UNPARSEABLE else None)
        if expected is None or fault == "stall":
            return None
        for answer in self._fault_candidates(case, fault, rng):
            probe = Trace(case_id=case.id, agent="faulty", final_answer=answer)
            if self.check(case, probe).errors == [expected]:  # exact by construction
                return answer
        return None

    def _fault_candidates(self, case: Case, fault: str, rng: random.Random):
        spec = spec_of(case)
        gold = [g.call() for g in spec.gold]
        if fault == UNPARSEABLE:  # Python-dict quotes: a realistic answer that is not JSON
            yield self.reference_answer(case).replace('"', "'")
        elif fault == "unknown-tool":
            yield prompts.stepwise_answer([PlannedCall(gold[0].name + "_v2", gold[0].arguments)] + gold[1:])
        elif fault == "malformed-args":
            yield json.dumps({"next_steps": [{"tool": gold[0].name, "parameters": "as usual"}]
                              + [prompts.step_json(c) for c in gold[1:]]})
        elif fault == "extra-step" and len(gold) == spec.k:  # where the plan ends sooner it is no count error
            yield prompts.stepwise_answer(gold + [gold[-1]])
        elif fault == "premature":  # later steps of the plan taken now, skipping the next ones
            base = base_case(case)
            plan = get_family(base.family).reference_plan(base)
            starts = list(range(len(spec.prefix) + 1, len(plan) - len(gold) + 1))
            rng.shuffle(starts)
            for p in starts[:20]:
                yield prompts.stepwise_answer(plan[p:p + len(gold)])
        elif fault == "duplicate":  # a step of the prefix again
            for c in list(reversed(spec.prefix_calls()))[:20]:
                yield prompts.stepwise_answer([c] + gold[: len(gold) - 1])


def _steps(n: int) -> str:
    return "1 step" if n == 1 else f"{n} steps"


def _extendability(family: JudgesPrefixes, base: Case, calls: list[PlannedCall]) -> Verdict:
    checker = f"{base.family}/extendable"
    ok, why = family.extendable(base, calls)
    if ok:
        return Verdict(case_id=base.id, passed=True, checker=checker)
    found: list[Evidence] = list(family.prefix_evidence(base, calls)) if isinstance(family, ExplainsPrefixes) else []
    if not found:  # the family says no but not how: one line in its own words
        found = [evidence(ORDER, "unextendable", "prefix cannot be completed",
                          f"The steps so far cannot be completed into a valid plan: {why}")]
    core = next((e.constraint_ids for e in found if e.constraint_ids), [])
    return Verdict(case_id=base.id, passed=False, errors=sort_errors({e.error for e in found}), evidence=found,
                   unsat_core=list(core), checker=checker)
