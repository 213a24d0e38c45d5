"""What the holistic and step-wise families share.

A protocol case offers no tools: the agent answers in text and executes
nothing. Its check (1) judges an episode that did not complete through the base
family's own status verdict (timeout, crash, infra); (2) fails any attempt to
call a tool during planning; (3) reads the plan out of the final answer (an
unreadable answer is an Act Error that quotes it); (4) leaves the rest to the
protocol (``_judge``), which asks the base family's oracle. Verdicts keep the
base family's error classes and evidence, re-addressed to the wrapped case;
``checker`` names both ("holistic/1+constraints/1").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from ...environment import Environment, Limits
from ...schema import (
    Case,
    ErrorClass,
    Evidence,
    Trace,
    TraceStatus,
    Verdict,
    sort_errors,
)
from ..base import (
    AnswersInText,
    HighlightsEvidence,
    NoToolPlans,
    PlannedCall,
    ShapesConstraints,
    WordsConstraints,
)
from ..registry import families, get_family, restart_tool_of
from .parse import ParsedPlan, parse_plan, quote
from .spec import base_case, spec_of

ACT = ErrorClass.ACT_ERROR.value
UNPARSEABLE = "unparseable"  # the fault every protocol knows: an answer that is not JSON


class PlanningEnvironment(Environment):
    """No tools: every call is recorded as a call to an unknown tool, and fails the case."""

    def execute(self, name: str, args: dict[str, Any]) -> tuple[str, str | None]:  # pragma: no cover
        raise AssertionError("a planning case has no tools to execute")


class ProtocolFamily(NoToolPlans):
    name = ""
    version = 1
    answer_keys: tuple[str, ...] = ()
    own_faults: ClassVar[dict[str, str]] = {}

    # -- Family --------------------------------------------------------------

    @property
    def faults(self) -> dict[str, str]:
        return {UNPARSEABLE: ACT, **self.own_faults}

    def validate(self, case: Case) -> None:
        spec_of(case)
        base = base_case(case)
        get_family(base.family).validate(base)

    def environment(self, case: Case, limits: Limits, trial: int = 0, agent: str = "") -> Environment:
        return PlanningEnvironment(case, limits, trial, agent)

    def check(self, case: Case, trace: Trace) -> Verdict:
        base = base_case(case)
        family = get_family(base.family)
        if trace.status != TraceStatus.COMPLETED:
            stand_in = Trace(case_id=base.id, trial=trace.trial, agent=trace.agent, status=trace.status,
                             errors=trace.errors)
            return self._relabel(case, trace, family.check(base, stand_in))
        executed = [_executed(c) for c in trace.judged_calls(restart_tool_of(case))]
        parsed = parse_plan(trace.final_answer, self.answer_keys)
        if parsed.calls is None:
            return self._relabel(case, trace, None, executed + [_unparsed(trace.final_answer, parsed)])
        verdict, extra = self._judge(case, base, parsed.calls, trace)
        return self._relabel(case, trace, verdict, executed + extra)

    # -- what reports ask the base family ------------------------------------

    def base_of(self, case: Case) -> Case:
        return base_case(case)

    def evidence_spans(self, spec: dict[str, Any], constraint_ids: set[str]) -> list[tuple[int, int]]:
        """The base task is the start of the wrapped one, so the base family's spans hold."""
        base = spec.get("base") or {}
        family = get_family(base.get("family", ""))
        return family.evidence_spans(base.get("spec") or {}, constraint_ids) if isinstance(family, HighlightsEvidence) else []

    def constraint_shapes(self, case: Case) -> dict[str, list[str]]:
        base = base_case(case)
        family = get_family(base.family)
        return family.constraint_shapes(base) if isinstance(family, ShapesConstraints) else {}

    def constraint_words(self, case: Case) -> dict[str, list[str]]:
        base = base_case(case)
        family = get_family(base.family)
        return family.constraint_words(base) if isinstance(family, WordsConstraints) else {}

    # -- for subclasses ------------------------------------------------------

    def _judge(self, case: Case, base: Case, calls: list[PlannedCall],
               trace: Trace) -> tuple[Verdict | None, list[Evidence]]:
        """The base family's verdict on the plan (None if the protocol alone decides)
        and the protocol's own evidence against it."""
        raise NotImplementedError

    def _relabel(self, case: Case, trace: Trace, verdict: Verdict | None, extra: Sequence[Evidence] = ()) -> Verdict:
        """The base verdict as the wrapped case's, with the protocol's own evidence first."""
        extra = list(extra)
        tag = f"{self.name}/{self.version}"
        if verdict is None:
            return Verdict(case_id=case.id, trial=trace.trial, passed=False, errors=sort_errors({e.error for e in extra}),
                           evidence=extra, checker=tag)
        passed = verdict.passed and not extra
        return verdict.model_copy(update={
            "case_id": case.id, "trial": trace.trial, "passed": passed,
            "errors": [] if passed else sort_errors(set(verdict.errors) | {e.error for e in extra}),
            "evidence": extra + list(verdict.evidence), "checker": f"{tag}+{verdict.checker}",
        })


def base_faults() -> dict[str, str]:
    """The faults of every family a protocol can wrap: those whose agents call tools
    (not the text-answer families, protocols included). The first family naming a
    fault decides its class; ``fault_class`` says it per case."""
    out: dict[str, str] = {}
    for family in families().values():
        if isinstance(family, AnswersInText):
            continue
        for fault, error in family.faults.items():
            out.setdefault(fault, error)
    return out


def _executed(call) -> Evidence:
    return Evidence(
        error=ACT, kind="executed_during_planning", step=call.index,
        symbolic=f"step {call.index}: called {call.name} while planning",
        text=f'Called the tool "{call.name}" while planning; in this mode nothing may be executed, '
             "the plan must be given as the answer.")


def _unparsed(answer: str | None, parsed: ParsedPlan) -> Evidence:
    shown = f': "{quote(answer)}"' if answer and answer.strip() else ""
    return Evidence(
        error=ACT, kind="unparsed_answer", symbolic=f"unreadable answer: {parsed.problem}",
        text=f"The answer could not be read as a plan ({parsed.problem}){shown}.")


def not_offered(base: Case, calls: list[PlannedCall], first_step: int = 0) -> list[Evidence]:
    """Calls to tools the base case has but the planning agent was not shown (the
    constraint family's restart tool): a plan made in advance cannot use them."""
    from .wrap import planning_tools

    hidden = {t.name for t in base.tools} - {t.name for t in planning_tools(base)}
    return [evidence(ACT, "tool_not_offered", f"step {n}: {c.name} not offered for planning",
                     f'Step {n}: "{c.name}" is not one of the tools offered for planning.', step=n)
            for n, c in enumerate(calls, first_step) if c.name in hidden]


def evidence(error: str, kind: str, symbolic: str, text: str, step: int | None = None) -> Evidence:
    return Evidence(error=error, kind=kind, symbolic=symbolic, text=text, step=step)
