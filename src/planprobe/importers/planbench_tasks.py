"""What each PlanBench task checks in one recorded response, read with PlanBench's
readers (bug for bug) and with planprobe's; ``planbench`` reads the files and calls
``SCORERS[task]`` on each record. PlanBench's semantics, from its
``response_evaluation.py`` and ``prompt_generation.py``:

* t1 plan generation, t8_1/2/3 goal reformulation: the extracted plan solves the
  instance (t8 uses the instance's own goal, whatever goal the prompt states).
* t2 optimality: valid and as long as an optimal plan (built-in A*).
* t3 verification: the answer's valid/invalid verdict equals the truth — under
  PlanBench's rules the verdict parsed from PlanBench's reference answer (the
  record's ``ground_truth_plan``), under planprobe's the validator's verdict on
  the plan stated in the query.
* t4 plan reuse: the plan reaches the facts the stated goal adds to the initial
  state (PlanBench's new goal is the prefix's end state minus the initial state).
* t5 generalization: as t1, on the generalization instances (``generated``).
* t6 replanning: the plan solves the instance from the changed state — the state
  after the stated step of the stated plan, plus the facts that "became true",
  minus those that "became false".
* t7 plan execution: the facts the model states equal the state the action
  sequence leads to — under PlanBench's rules as sorted lists of its fact
  strings against the record's reference state (every fact, static ones
  included); under planprobe's as sets of visible facts, negated ones not counted.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..errors import PlanprobeError
from ..pddl import Problem, validate
from ..pddl.grounding import ground
from ..pddl.model import Atom, PDDLLiteral
from ..pddl.reply_parser import parse_plan, parse_state, parse_verification
from ..pddl.simulator import run
from ..pddl.translation import DomainTranslation, Translator, translator
from ..suites.planbench.planbench_rules import PlanBenchReader, fact_string
from ..suites.planbench.prompt_blocks import verification_message
from ..suites.planbench.scoring import (
    resulting_state,
    score_plan,
    score_plan_planbench,
    score_state,
    score_state_planbench,
    score_verification,
    score_verification_planbench,
)
from .planbench_instances import PlanBenchInstances

__all__ = ["SCORERS", "TaskContext", "TaskVerdict"]


@dataclass(frozen=True)
class TaskContext:
    """What a task's scorer needs about one record."""

    problem: Problem
    config: DomainTranslation
    response: str
    query: str
    record: dict[str, Any]
    pb: PlanBenchInstances
    domain: str
    instance_id: int
    rules: str
    reader: PlanBenchReader

    @property
    def tr(self) -> Translator:
        return translator(self.problem, self.config)


@dataclass(frozen=True)
class TaskVerdict:
    exact: bool  # under PlanBench's rules
    own: bool  # under planprobe's rules
    reason: str
    plan: list[str] | None
    unparsed: list[str]
    extraction: bool | None = None  # see Rescore.extraction


def _last_statement(query: str) -> str:
    i = query.rfind("[STATEMENT]")
    if i < 0:
        raise PlanprobeError("field 'query': no [STATEMENT] in it")
    return query[i:]


def _between(text: str, start: str, end: str, what: str) -> str:
    i = text.find(start)
    j = text.find(end, i + len(start)) if i >= 0 else -1
    if i < 0 or j < 0:
        raise PlanprobeError(f"field 'query': no {what} ({start} … {end}) in the last [STATEMENT]")
    return text[i + len(start):j]


def _yes(value: bool) -> str:
    return "correct" if value else "incorrect"


def _lead(rules: str, exact: tuple[bool, str], own: tuple[bool, str]) -> str:
    """The chosen rules' reading (``(verdict, text)``) first; the other one named
    after it when its verdict differs."""
    (first, first_text), (other, other_text), name = ((exact, own, "planprobe's") if rules != "planprobe"
                                                      else (own, exact, "PlanBench's"))
    if first == other:
        return first_text
    return f"{first_text}; under {name} rules {_yes(other)}: {other_text}"


def _plan_verdict(ctx: TaskContext, problem: Problem, optimal: int | None = None) -> TaskVerdict:
    """A plan reply read both ways; the chosen rules' reading leads the reason."""
    tr = translator(problem, ctx.config) if problem is not ctx.problem else ctx.tr
    grounded = ground(problem)
    own = score_plan(grounded, tr, ctx.response, optimal)
    exact = score_plan_planbench(grounded, ctx.reader, ctx.response, optimal)
    unparsed = own.unparsed()
    own_text = f"planprobe's reader {own.summary()}"
    if unparsed:
        own_text += f"; unparsed: {'; '.join(unparsed)}"
    exact_text = f"PlanBench's reader {exact.summary()}"
    reason = _lead(ctx.rules, (exact.correct, exact_text), (own.correct, own_text))
    plan = list(exact.extraction.steps) if ctx.rules != "planprobe" else own.parsed.pddl
    if ctx.rules == "planprobe" and own.correct == exact.correct and exact.extraction.steps != tuple(own.parsed.pddl):
        reason += f"; PlanBench's reader reads {' '.join(exact.extraction.steps) or '(empty plan)'}"
    extraction = None
    recorded = ctx.record.get("extracted_llm_plan")
    if isinstance(recorded, str):  # the readable plan, one step a line (t2, t4–t8)
        mine: str | list[str] = "".join(f"{step}\n" for step in exact.extraction.readable)
        extraction = recorded == mine
    elif isinstance(recorded, list):  # the plan in PDDL names (t1)
        mine = list(exact.extraction.steps)
        extraction = recorded == mine
    if extraction is False:
        reason += f"; PlanBench's file records the extraction {recorded!r}, its reader gives {mine!r}"
    return TaskVerdict(exact.correct, own.correct, reason, plan, unparsed, extraction)


def _score_plan(ctx: TaskContext) -> TaskVerdict:
    """t1, t5 (on the generalization instances) and t8: the plan solves the instance."""
    return _plan_verdict(ctx, ctx.problem)


def _score_optimal(ctx: TaskContext) -> TaskVerdict:
    return _plan_verdict(ctx, ctx.problem, ctx.pb.optimal_length(ctx.domain, ctx.instance_id))


def _score_verification(ctx: TaskContext) -> TaskVerdict:
    tr, problem, response, record = ctx.tr, ctx.problem, ctx.response, ctx.record
    statement = _last_statement(ctx.query)
    stated = parse_plan(_between(statement, "[PLAN]", "[PLAN END]", "plan"), tr)
    if stated.unparsed:
        raise PlanprobeError(f"field 'query': cannot read the plan to verify: {stated.unparsed[0].text!r} "
                             f"({stated.unparsed[0].reason})")
    truth = validate(ground(problem), stated.pddl)
    own = score_verification(truth, tr, response)
    gt = record.get("ground_truth_plan")
    reference = gt if isinstance(gt, str) else verification_message(tr, truth)
    exact = score_verification_planbench(ctx.reader, response, reference)
    said = "no verdict" if own.answer.valid is None else ("valid" if own.answer.valid else "invalid")
    own_text = f"planprobe reads {said}; planprobe's validator: {truth.explain().split(chr(10))[0]}"
    if exact.error is not None:
        exact_text = f"PlanBench's evaluation raises: {exact.error}"
    else:
        exact_text = (f"PlanBench reads {exact.answer!r} against its reference {exact.reference!r} "
                      f"(binary {exact.binary}, type {exact.type}, explanation {exact.explanation})")
    reason = _lead(ctx.rules, (exact.binary, exact_text), (own.binary, own_text))
    if isinstance(gt, str):
        theirs = parse_verification(gt).valid
        if theirs is not None and theirs != truth.valid:
            reason += f"; PlanBench's reference answer says {'valid' if theirs else 'invalid'}"
    extraction = None
    if "extracted_llm_plan" in record:
        levels = tuple(record.get(k) for k in ("llm_correct_binary", "llm_correct_w_type", "llm_correct_w_expl"))
        extraction = (record.get("extracted_llm_plan") == exact.answer
                      and record.get("parsed_ground_truth_plan", exact.reference) == exact.reference
                      and (None in levels or levels == (exact.binary, exact.type, exact.explanation)))
        if not extraction:
            reason += (f"; PlanBench's file records {record.get('extracted_llm_plan')!r} against "
                       f"{record.get('parsed_ground_truth_plan')!r}, levels {levels}")
    return TaskVerdict(exact.binary, own.binary, reason, stated.pddl, [], extraction)


def _score_reuse(ctx: TaskContext) -> TaskVerdict:
    tr, problem = ctx.tr, ctx.problem
    statement = _last_statement(ctx.query)
    m = re.search(r"My goal is to have that (.*?)\.\s*\n", statement, re.DOTALL)
    if m is None:
        raise PlanprobeError("field 'query': no 'My goal is to have that …' in the last [STATEMENT]")
    stated = parse_state(m.group(1), tr)
    if stated.unparsed:
        raise PlanprobeError(f"field 'query': cannot read the stated goal: {stated.unparsed[0].text!r}")
    init = set(problem.init)
    goal = tuple(PDDLLiteral(a) for a in sorted(stated.atoms - init))
    return _plan_verdict(ctx, replace(problem, goal=goal))


def _score_replanning(ctx: TaskContext) -> TaskVerdict:
    tr, problem = ctx.tr, ctx.problem
    statement = _last_statement(ctx.query)
    stated = parse_plan(_between(statement, "[PLAN]", "[PLAN END]", "plan"), tr)
    m_step = re.search(r"at step (\d+) in the plan", statement)
    m_true = re.search(r"became true: (.*)", statement)
    m_false = re.search(r"became unexpectedly false: (.*)", statement) or re.search(r"became false: (.*)", statement)
    if m_step is None or m_true is None or m_false is None:
        raise PlanprobeError("field 'query': no unexpected event ('at step N', 'became true: …', "
                             "'became unexpectedly false: …') in the last [STATEMENT]")
    k = int(m_step.group(1))
    grounded = ground(problem)
    state = grounded.init
    for _, state in run(grounded, stated.pddl[:k]):
        pass
    atoms = set(grounded.decode(state))
    atoms |= parse_state(m_true.group(1), tr).atoms
    atoms -= parse_state(m_false.group(1), tr).atoms
    return _plan_verdict(ctx, replace(problem, init=tuple(sorted(atoms))))


def _full_state(problem: Problem, steps: list[str]) -> list[str]:
    """PlanBench's reference for t7 when the record has none: every fact of the
    resulting state, static ones included, in its notation (sorted)."""
    result = validate(ground(problem), steps)
    static = problem.domain.static_predicates
    atoms: set[Atom] = set(result.state_atoms) | {a for a in problem.init if a.predicate in static}
    return sorted(fact_string(a) for a in atoms)


def _score_execution(ctx: TaskContext) -> TaskVerdict:
    """t7: the facts stated against the resulting state, read both ways."""
    tr, problem, response, record = ctx.tr, ctx.problem, ctx.response, ctx.record
    statement = _last_statement(ctx.query)
    block = _between(statement, "[ACTION SEQUENCE]", "[ACTION SEQUENCE END]", "action sequence")
    seq = parse_plan(block, tr)
    if seq.unparsed:
        raise PlanprobeError(f"field 'query': cannot read the action sequence: {seq.unparsed[0].text!r}")
    own = score_state(resulting_state(problem, seq.pddl, tr), tr, response, "planprobe")
    simulated = _full_state(problem, seq.pddl)
    gt = record.get("ground_truth_plan")
    truth: list[str] | None = gt if isinstance(gt, list) and all(isinstance(x, str) for x in gt) else None
    exact = score_state_planbench(simulated if truth is None else truth, ctx.reader, response,
                                  and_split=ctx.rules == "planbench-code")
    missing = sorted(map(str, own.truth - own.stated.atoms))
    extra = sorted(map(str, own.stated.atoms - own.truth))
    own_text = f"planprobe's reader reads {len(own.stated.atoms)} fact(s)"
    own_text += ("; matches the resulting state" if own.own_correct
                 else f"; missing {' '.join(missing) or '-'}, extra {' '.join(extra) or '-'}")
    if own.stated.unparsed:
        own_text += "; unparsed: " + "; ".join(repr(u.text) for u in own.stated.unparsed)
    if exact.error is not None:
        exact_text = f"PlanBench's reader raises: {exact.error}"
    else:
        counted = sorted(exact.facts)
        ref = sorted(exact.reference)
        exact_text = f"PlanBench's reader reads {' '.join(exact.facts) or '(nothing)'}"
        if counted == ref:
            exact_text += "; equals its reference state"
        else:
            lacking = [f for f in ref if f not in counted]
            surplus = [f for f in counted if f not in ref or counted.count(f) > ref.count(f)]
            exact_text += (f"; its reference state has {' '.join(ref)} (missing {' '.join(lacking) or '-'}, "
                           f"extra or repeated {' '.join(dict.fromkeys(surplus)) or '-'})")
    reason = _lead(ctx.rules, (exact.correct, exact_text), (own.own_correct, own_text))
    plan = list(exact.facts) if ctx.rules != "planprobe" else sorted(map(str, own.stated.atoms))
    if truth is not None and sorted(truth) != simulated:
        reason += f"; PlanBench's recorded reference state differs from the simulated one ({' '.join(simulated)})"
    extraction = None
    recorded = record.get("extracted_llm_plan")
    if isinstance(recorded, list):
        extraction = recorded == list(exact.facts)
        if not extraction:
            reason += f"; PlanBench's file records the extraction {recorded!r}"
    return TaskVerdict(exact.correct, own.own_correct, reason, plan, [u.text for u in own.stated.unparsed], extraction)


SCORERS: dict[str, Callable[[TaskContext], TaskVerdict]] = {
    "t1": _score_plan, "t2": _score_optimal, "t3": _score_verification, "t4": _score_reuse,
    "t5": _score_plan, "t6": _score_replanning, "t7": _score_execution,
    "t8_1": _score_plan, "t8_2": _score_plan, "t8_3": _score_plan,
}
