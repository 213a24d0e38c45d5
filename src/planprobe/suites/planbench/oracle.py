"""The oracle of a ``planbench`` case: the reply read and scored as PlanBench scores it.

The scoring is ``scoring.py``'s (shared with the re-scoring of PlanBench's
recorded responses). Error classes are the closest of the shared taxonomy; the
evidence ``kind`` says exactly what went wrong:

* ``act_error`` — ``no_plan`` (no step could be read; the unreadable lines are
  quoted), ``unknown_step`` (a step names an action or object the problem does
  not have), ``no_verdict`` (t3: neither "valid" nor "invalid"), ``no_state``
  (t7: no fact could be read), ``tool_call`` (a text task has no tools).
* ``order_error`` — ``unmet_precondition``: the plan's step k cannot run (the
  validator's failing step and each unmet precondition, in the domain's words);
  t3: ``wrong_verdict`` / ``wrong_failure_type`` / ``wrong_explanation`` about a
  plan that fails on a precondition; t7: ``extra_fact`` (a stated fact is false).
* ``action_lost`` — ``unmet_goal``: every step runs but goal facts are missing;
  t3: the same three kinds about a plan that misses its goal; t7:
  ``missing_fact`` (a true fact is not stated).
* ``suboptimal_cost`` — ``suboptimal_length`` (t2: valid but longer than optimal).
* ``missed_refusal`` / ``wrong_refusal`` — the goal was made contradictory
  (``--transform unsolvable:contradiction``) and the reply gives a plan, or a
  solvable case is refused.
* ``timeout`` / ``agent_crash`` / ``infra`` — the episode did not complete.

A reply refuses when a line starts with ``REFUSE:``, or (plan tasks) when no
step can be read and it says no plan exists ("no plan exists", "the goal is
impossible", "cannot be achieved"…).

``Verdict.labels``: ``task``, ``refused`` and per task ``plan_length``,
``optimal_length``, ``outcome`` (the validator's), ``unparsed`` (lines not
read); t3 ``binary``/``type``/``explanation`` (all three levels, whichever
decides pass/fail) and ``truth``; t7 ``planbench_rules``/``planprobe_rules``.
``Verdict.score``: t2 optimal/length of a valid plan; t3 the levels passed / 3;
t7 the overlap (Jaccard) of stated and true facts.
"""

from __future__ import annotations

import re
from typing import Any

from ...pddl.model import PDDLLiteral
from ...pddl.reply_parser import parse_plan
from ...pddl.translation import join_items
from ...pddl.validator import Outcome
from ...schema import (
    Case,
    ErrorClass,
    Evidence,
    OracleKind,
    Trace,
    Verdict,
    sort_errors,
)
from ..registry import restart_tool_of
from ..unfinished import unfinished_verdict
from .prepared import PreparedCase, prepare
from .prompt_blocks import verification_message
from .scoring import (
    UNMET_GOAL,
    UNMET_PRECONDITION,
    failure_kind,
    score_plan,
    score_state,
    score_verification,
)
from .spec import PLAN_TASKS

CHECKER = "planbench/1"
E = ErrorClass
REFUSE_LINE = re.compile(r"^\s*(?:[-*>#]+\s*)?\**refuse\**\s*:", re.IGNORECASE | re.MULTILINE)
NO_PLAN = re.compile(
    r"\bno (?:valid |such |possible |feasible )?plan (?:exists|is possible|can (?:achieve|reach|satisfy))"
    r"|\bthere is no (?:valid |possible |feasible )?plan\b"
    r"|\b(?:goal|goals) (?:is|are) (?:unreachable|unachievable|impossible|contradictory|unsatisfiable)\b"
    r"|\b(?:cannot|can ?not|can't) (?:be )?(?:achieved?|reached?|satisfied|solved)\b"
    r"|\bimpossible to (?:achieve|reach|satisfy)\b", re.IGNORECASE)


def refused(reply: str, plan_steps: int | None) -> bool:
    """Whether the reply refuses (see the module docstring); ``plan_steps``: the
    steps read from it for plan tasks, None for the other tasks."""
    if REFUSE_LINE.search(reply):
        return True
    return plan_steps == 0 and bool(NO_PLAN.search(reply))


def check(case: Case, trace: Trace) -> Verdict:
    unfinished = unfinished_verdict(case, trace, CHECKER, doing="answering")
    if unfinished is not None:
        return unfinished
    prepared = prepare(case)
    spec = prepared.spec
    reply = trace.final_answer or ""
    labels: dict[str, Any] = {"task": spec.task}
    evidence: list[Evidence] = []
    for call in trace.judged_calls(restart_tool_of(case)):
        evidence.append(Evidence(error=E.ACT_ERROR.value, kind="tool_call", step=call.index,
                                 symbolic=f"step {call.index}: called {call.name}",
                                 text=f'Called a tool "{call.name}"; this task has no tools: answer in text.'))
    steps = len(parse_plan(reply, prepared.tr)) if spec.task in PLAN_TASKS else None
    labels["refused"] = refused(reply, steps)
    if spec.unsolvable is not None:
        if not labels["refused"]:
            evidence.append(Evidence(
                error=E.MISSED_REFUSAL.value, kind="missed_refusal", symbolic="unsolvable(contradiction)",
                text=f"No plan can achieve the goal ({spec.unsolvable}), but the reply does not refuse"
                     + (f" (it gives {steps} step{'s' if steps != 1 else ''})." if steps else ".")))
        return _verdict(case, trace, evidence, labels)
    if labels["refused"]:
        evidence.append(Evidence(error=E.WRONG_REFUSAL.value, kind="wrong_refusal", symbolic="solvable",
                                 text=f"The task can be done, but the reply refuses: {_quote(reply)}."))
        return _verdict(case, trace, evidence, labels)
    score: float | None
    if spec.task == "t3":
        score = _verification(prepared, reply, labels, evidence)
    elif spec.task == "t7":
        score = _execution(prepared, reply, labels, evidence)
    else:
        score = _plan(prepared, reply, labels, evidence)
    return _verdict(case, trace, evidence, labels, score)


def _verdict(case: Case, trace: Trace, evidence: list[Evidence], labels: dict, score: float | None = None) -> Verdict:
    if not evidence:
        return Verdict(case_id=case.id, trial=trace.trial, passed=True, checker=CHECKER, labels=labels, score=score)
    return Verdict(case_id=case.id, trial=trace.trial, passed=False, errors=sort_errors({e.error for e in evidence}),
                   evidence=evidence, oracle=OracleKind.FORMAL, checker=CHECKER, labels=labels, score=score)


def _quote(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[:limit] + "…")


def _literals(prepared: PreparedCase, lits) -> str:
    tr = prepared.tr
    parts = []
    for lit in lits:
        if lit.is_equality:
            parts.append(str(lit))
        else:
            text = tr.atom(lit.atom) if tr.visible(lit.atom) else str(lit.atom)
            parts.append(text if lit.positive else f"it is not the case that {text}")
    return join_items(parts)


# -- plans ---------------------------------------------------------------------

def _plan(prepared: PreparedCase, reply: str, labels: dict, evidence: list[Evidence]) -> float | None:
    spec = prepared.spec
    score = score_plan(prepared.grounded, prepared.tr, reply, spec.optimal_length)
    result = score.result
    unparsed = score.unparsed()
    labels.update(plan_length=score.length, outcome=result.outcome.value, unparsed=unparsed)
    if spec.optimal_length is not None:
        labels["optimal_length"] = spec.optimal_length
    if score.correct:
        return 1.0 if spec.optimal_length is not None else None
    not_read = f" {len(unparsed)} line(s) could not be read: {'; '.join(unparsed)}." if unparsed else ""
    if score.length == 0:
        evidence.append(Evidence(error=E.ACT_ERROR.value, kind="no_plan", symbolic="no plan steps read",
                                 text=f"No plan step could be read from the reply {_quote(reply)}.{not_read}"))
        return 0.0 if spec.optimal_length is not None else None
    symbolic = result.explain().split("\n")[0]
    if result.outcome is Outcome.UNPARSEABLE_STEP:
        assert result.error is not None  # an unreadable step comes with its PlanStepError
        evidence.append(Evidence(error=E.ACT_ERROR.value, kind="unknown_step", step=result.step, symbolic=symbolic,
                                 text=f"Step {result.step}: {result.action} is not an action of this problem "
                                      f"({result.error.reason}).{not_read}"))
    elif result.outcome is Outcome.INEXECUTABLE:
        assert result.action is not None  # the step that could not run
        unmet = result.unmet_preconditions
        evidence.append(Evidence(
            error=E.ORDER_ERROR.value, kind="unmet_precondition", step=result.step,
            symbolic=f"step {result.step} {result.action}: " + " ".join(map(str, unmet)) + " does not hold",
            text=f"Step {result.step}: {prepared.tr.action(result.action)} is not possible: it needs "
                 f"{_literals(prepared, unmet)}, which does not hold at that point.{not_read}"))
    elif result.outcome is Outcome.GOAL_NOT_REACHED:
        unmet = result.unmet_goals
        evidence.append(Evidence(
            error=E.ACTION_LOST.value, kind="unmet_goal",
            symbolic="goal not reached: " + " ".join(map(str, unmet)),
            text=f"All {score.length} step{'s' if score.length != 1 else ''} run, but the goal is not reached: "
                 f"{_literals(prepared, unmet)} {'does' if len(unmet) == 1 else 'do'} not hold.{not_read}"))
    elif score.suboptimal and spec.optimal_length is not None:  # only a known optimum makes a plan suboptimal
        evidence.append(Evidence(
            error=E.SUBOPTIMAL_COST.value, kind="suboptimal_length",
            symbolic=f"length {score.length} > optimal {spec.optimal_length}",
            text=f"The plan is valid but takes {score.length} steps; an optimal plan takes {spec.optimal_length}."))
        return spec.optimal_length / score.length
    return 0.0 if spec.optimal_length is not None else None


# -- verification (t3) ---------------------------------------------------------

def _class_for(kind: str | None) -> str:
    return (E.ACTION_LOST if kind == UNMET_GOAL else E.ORDER_ERROR).value


def _verification(prepared: PreparedCase, reply: str, labels: dict, evidence: list[Evidence]) -> float:
    truth = prepared.truth
    assert truth is not None  # a verification case's plan is validated when the case is prepared
    score = score_verification(truth, prepared.tr, reply)
    answer = score.answer
    labels.update(binary=score.binary, type=score.type, explanation=score.explanation, truth=truth.outcome.value,
                  answer_valid=answer.valid, answer_kind=answer.kind, verify=prepared.spec.verify)
    level = prepared.spec.verify
    if score.passed(level):
        return score.levels / 3
    right = " ".join(verification_message(prepared.tr, truth).split())
    kind = failure_kind(truth)
    if answer.valid is None:
        evidence.append(Evidence(error=E.ACT_ERROR.value, kind="no_verdict", symbolic="no verdict",
                                 text=f"The reply says neither that the plan is valid nor that it is invalid: "
                                      f"{_quote(reply)}. The right answer: {right}"))
    elif not score.binary:
        said = "valid" if answer.valid else "invalid"
        evidence.append(Evidence(error=_class_for(kind or answer.kind), kind="wrong_verdict",
                                 symbolic=f"said {said}, truth {truth.outcome.value}",
                                 text=f"The reply says the plan is {said}. The right answer: {right}"))
    elif not score.type:
        named = {UNMET_GOAL: "an unmet goal", UNMET_PRECONDITION: "an unmet precondition"}.get(answer.kind or "",
                                                                                             "no kind of failure")
        evidence.append(Evidence(error=_class_for(kind), kind="wrong_failure_type",
                                 symbolic=f"said {answer.kind}, truth {kind}",
                                 text=f"The plan is invalid, but the reply names {named}. The right answer: {right}"))
    else:
        evidence.append(Evidence(error=_class_for(kind), kind="wrong_explanation",
                                 symbolic=f"said {answer.action or ''} {' '.join(map(str, sorted(answer.atoms)))}",
                                 text=f"The reply names the right kind of failure but not a right "
                                      f"{'action and precondition' if kind == UNMET_PRECONDITION else 'goal fact'}. "
                                      f"The right answer: {right}"))
    return score.levels / 3


# -- resulting state (t7) --------------------------------------------------------

def _execution(prepared: PreparedCase, reply: str, labels: dict, evidence: list[Evidence]) -> float:
    score = score_state(prepared.resulting_state, prepared.tr, reply, prepared.spec.rules)
    labels.update(planbench_rules=score.planbench_correct, planprobe_rules=score.own_correct,
                  unparsed=[u.text for u in score.stated.unparsed], facts=len(score.stated.atoms))
    if score.correct:
        return 1.0
    if not score.stated.atoms:
        evidence.append(Evidence(error=E.ACT_ERROR.value, kind="no_state", symbolic="no facts read",
                                 text=f"No fact could be read from the reply {_quote(reply)}."))
        return score.overlap
    if score.missing:
        missing = sorted(score.missing)
        evidence.append(Evidence(error=E.ACTION_LOST.value, kind="missing_fact",
                                 symbolic="missing: " + " ".join(map(str, missing)),
                                 text=f"The reply leaves out what is true after the actions: "
                                      f"{_literals(prepared, [PDDLLiteral(a) for a in missing])}."))
    if score.extra:
        extra = sorted(score.extra)
        evidence.append(Evidence(error=E.ORDER_ERROR.value, kind="extra_fact",
                                 symbolic="false: " + " ".join(map(str, extra)),
                                 text=f"The reply states what is false after the actions: "
                                      f"{_literals(prepared, [PDDLLiteral(a) for a in extra])}."))
    return score.overlap
