"""How PlanBench scores a reply, one function per kind of answer.

Why a module of its own: two places judge replies in PlanBench's format — the
``planbench`` case family (``suites/planbench``: planprobe's own prompts)
and the re-scoring of PlanBench's recorded responses
(``importers/planbench.py``). Both call these functions, so a reply gets
the same verdict in either place (tests check it on the same texts).

The rules are PlanBench's (its ``response_evaluation.py``), stated here:

* **Plans** (t1, t2, t4, t5, t6, t8): the reply's plan (``responses.parse_plan``)
  must solve the problem (the validator); for t2 it must also be exactly as long
  as an optimal plan. Lines that cannot be read are reported, not guessed.
* **Verification** (t3), three levels, each implying the one before:
  ``binary`` — the valid/invalid verdict is right; ``type`` — for an invalid
  plan, the answer names the right kind of failure (an unmet goal, or an
  action with an unmet precondition); ``explanation`` — it also names at least
  one truly unmet goal fact, or the failing action and at least one of its
  truly unmet preconditions. A correctly "valid" answer passes all three.
* **States** (t7): the facts the reply states must equal the state the action
  sequence leads to (visible predicates). PlanBench counts only the word
  "not" as a negation (``PLANBENCH_NEGATION``); planprobe's own reading
  (``NEGATION``: also "no longer", "n't", …) is computed alongside.

Two readings of a reply exist. The functions above read it with planprobe's
parser (``responses.py``) — the planbench family scores its cases so, with
PlanBench's negation rule as its ``planbench`` option. The ``*_planbench``
functions below read it with PlanBench's own code reproduced bug for bug
(``planbench_rules.py``) and compare as PlanBench does (t7: sorted lists of
PlanBench's fact strings against its reference state; t3: its parsed answer
against its parsed reference answer); ``import planbench-results`` uses them
under its default ``--rules planbench``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ...pddl.grounding import GroundProblem, ground
from ...pddl.model import Atom, Problem
from ...pddl.reply_parser import (
    NEGATION,
    PLANBENCH_NEGATION,
    ParsedPlan,
    ParsedState,
    parse_plan,
    parse_state,
    parse_verification,
)
from ...pddl.translation import Translator
from ...pddl.validator import Outcome, ValidationResult, validate
from .planbench_rules import (
    PlanBenchError,
    PlanBenchReader,
    PlanExtraction,
    verification_levels,
)

__all__ = [
    "UNMET_GOAL",
    "UNMET_PRECONDITION",
    "PlanBenchPlanScore",
    "PlanBenchStateScore",
    "PlanBenchVerificationScore",
    "PlanScore",
    "StateScore",
    "VerificationAnswer",
    "VerificationScore",
    "failure_kind",
    "parse_verification_answer",
    "resulting_state",
    "score_plan",
    "score_plan_planbench",
    "score_state",
    "score_state_planbench",
    "score_verification",
    "score_verification_planbench",
]

UNMET_GOAL = "unmet_goal"
UNMET_PRECONDITION = "unmet_precondition"
_STATEMENT = re.compile(r"\[statement\]", re.IGNORECASE)


def _ground(problem: Problem | GroundProblem) -> GroundProblem:
    return problem if isinstance(problem, GroundProblem) else ground(problem)


# ---------------------------------------------------------------------------
# plans
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class PlanScore:
    """A reply read as a plan and validated; ``optimal`` is the optimal length for t2."""

    parsed: ParsedPlan
    result: ValidationResult
    optimal: int | None = None

    @property
    def length(self) -> int:
        return len(self.parsed)

    @property
    def correct(self) -> bool:
        return self.result.valid and (self.optimal is None or self.length == self.optimal)

    @property
    def suboptimal(self) -> bool:
        """Valid, but longer than an optimal plan (t2)."""
        return self.result.valid and self.optimal is not None and self.length != self.optimal

    def unparsed(self) -> list[str]:
        """Each line that could not be read, with its line number and why."""
        return [f"line {u.line}: {u.text!r} ({u.reason})" for u in self.parsed.unparsed]

    def summary(self) -> str:
        """One line: what was read and what the validator says."""
        what = self.result.explain().split("\n")[0]
        if self.suboptimal:
            what = f"valid but {self.length} steps, optimal is {self.optimal}"
        steps = " ".join(self.parsed.pddl) or "(empty plan)"
        return f"read {self.length} step(s): {steps} → {what}"


def score_plan(problem: Problem | GroundProblem, tr: Translator, response: str,
               optimal: int | None = None) -> PlanScore:
    """Read the plan in ``response`` and validate it against ``problem``."""
    parsed = parse_plan(response, tr)
    return PlanScore(parsed, validate(_ground(problem), parsed.pddl), optimal)


# ---------------------------------------------------------------------------
# verification (t3)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class VerificationAnswer:
    """A plan-verification reply: the verdict (None when it gives none), the kind of
    failure it names, the failing action (PDDL) and the unmet facts it names."""

    valid: bool | None
    kind: str | None = None  # UNMET_GOAL | UNMET_PRECONDITION | None
    action: str | None = None
    atoms: frozenset[Atom] = frozenset()
    phrase: str = ""


def _after_colon(line: str) -> str:
    _head, sep, tail = line.partition(":")
    return tail.strip() if sep else ""


def parse_verification_answer(text: str, tr: Translator) -> VerificationAnswer:
    """PlanBench's reading of a verification reply (its ``parse_output``), made explicit:
    the verdict is the first "plan is valid/invalid"; a line that mentions an "unmet
    goal" names the goal facts after its colon or on the next non-empty line; a line
    that mentions an "unmet precondition" and an "action" is followed by the action,
    and the next line mentioning an unmet precondition by the facts."""
    cut = _STATEMENT.search(text)
    if cut is not None:
        text = text[:cut.start()]
    verdict = parse_verification(text)
    lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
    kind: str | None = None
    action: str | None = None
    atoms: frozenset[Atom] = frozenset()
    i = 0
    while i < len(lines):
        low = lines[i].lower()
        if "unmet goal" in low and "unmet precondition" not in low:
            kind = UNMET_GOAL
            facts = _after_colon(lines[i]) or (lines[i + 1] if i + 1 < len(lines) else "")
            atoms = parse_state(facts, tr).atoms
            break
        if "unmet precondition" in low and "unmet goal" not in low:
            kind = UNMET_PRECONDITION
            j = i + 1
            if j < len(lines):
                steps = parse_plan(lines[j], tr).steps
                action = str(steps[0]) if steps else None
            for k in range(j + 1, len(lines)):
                if "precondition" in lines[k].lower():
                    facts = _after_colon(lines[k]) or (lines[k + 1] if k + 1 < len(lines) else "")
                    atoms = parse_state(facts, tr).atoms
                    break
            break
        i += 1
    return VerificationAnswer(verdict.valid, kind, action, atoms, verdict.phrase)


def failure_kind(result: ValidationResult) -> str | None:
    """UNMET_PRECONDITION for an inexecutable plan, UNMET_GOAL for one that misses
    the goal, None for a valid one."""
    if result.outcome is Outcome.INEXECUTABLE:
        return UNMET_PRECONDITION
    if result.outcome is Outcome.GOAL_NOT_REACHED:
        return UNMET_GOAL
    return None


@dataclass(frozen=True)
class VerificationScore:
    answer: VerificationAnswer
    truth: ValidationResult
    binary: bool
    type: bool
    explanation: bool

    @property
    def levels(self) -> int:
        """How many of the three levels the answer passes (0–3)."""
        return int(self.binary) + int(self.type) + int(self.explanation)

    def passed(self, level: str) -> bool:
        """``level``: binary | type | explanation."""
        return {"binary": self.binary, "type": self.type, "explanation": self.explanation}[level]


def score_verification(truth: ValidationResult, tr: Translator, response: str) -> VerificationScore:
    """Score a verification reply against the validator's verdict on the stated plan."""
    answer = parse_verification_answer(response, tr)
    binary = answer.valid is not None and answer.valid == truth.valid
    if not binary:
        return VerificationScore(answer, truth, False, False, False)
    if truth.valid:
        return VerificationScore(answer, truth, True, True, True)
    kind = failure_kind(truth)
    type_ok = answer.kind == kind
    if not type_ok:
        return VerificationScore(answer, truth, True, False, False)
    if kind == UNMET_GOAL:
        unmet = {lit.atom for lit in truth.unmet_goals if lit.positive}
        expl = bool(answer.atoms & unmet)
    else:
        unmet = {lit.atom for lit in truth.unmet_preconditions if lit.positive and not lit.is_equality}
        expl = answer.action == truth.action and bool(answer.atoms & unmet)
    return VerificationScore(answer, truth, True, True, expl)


# ---------------------------------------------------------------------------
# states (t7)
# ---------------------------------------------------------------------------

def resulting_state(problem: Problem | GroundProblem, steps: Iterable[str], tr: Translator) -> frozenset[Atom]:
    """The visible facts after executing ``steps`` (an executable sequence) from the initial state."""
    result = validate(_ground(problem), list(steps))
    return frozenset(a for a in result.state_atoms if tr.visible(a))


@dataclass(frozen=True)
class StateScore:
    truth: frozenset[Atom]
    stated: ParsedState  # read with the chosen rules
    own: ParsedState  # read with planprobe's rules
    planbench: ParsedState  # read with PlanBench's rules
    rules: str = "planbench"

    @property
    def correct(self) -> bool:
        return self.stated.atoms == self.truth

    @property
    def own_correct(self) -> bool:
        return self.own.atoms == self.truth

    @property
    def planbench_correct(self) -> bool:
        return self.planbench.atoms == self.truth

    @property
    def missing(self) -> frozenset[Atom]:
        return self.truth - self.stated.atoms

    @property
    def extra(self) -> frozenset[Atom]:
        return self.stated.atoms - self.truth

    @property
    def overlap(self) -> float:
        """Jaccard similarity of stated and true facts (1.0 when equal)."""
        union = self.truth | self.stated.atoms
        return len(self.truth & self.stated.atoms) / len(union) if union else 1.0


def score_state(truth: frozenset[Atom], tr: Translator, response: str, rules: str = "planbench") -> StateScore:
    """Score a resulting-state reply. ``rules``: "planbench" (only "not" negates a
    fact) or "planprobe" (also "no longer", "n't", …) decides ``correct``."""
    own = parse_state(response, tr, NEGATION)
    compat = parse_state(response, tr, PLANBENCH_NEGATION)
    return StateScore(truth, compat if rules == "planbench" else own, own, compat, rules)


# ---------------------------------------------------------------------------
# PlanBench's own reading, bug for bug (planbench_rules.py)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class PlanBenchPlanScore:
    """A reply read by PlanBench's ``text_to_plan`` and validated (VAL's part is
    planprobe's validator); ``result`` is None when PlanBench's reader raises,
    which PlanBench scores as incorrect."""

    extraction: PlanExtraction
    result: ValidationResult | None
    optimal: int | None = None

    @property
    def length(self) -> int:
        return len(self.extraction.steps)

    @property
    def correct(self) -> bool:
        if self.result is None or not self.result.valid:
            return False
        return self.optimal is None or self.length == self.optimal

    def summary(self) -> str:
        if self.result is None:
            return f"PlanBench's reader raises: {self.extraction.error}"
        what = self.result.explain().split("\n")[0]
        if self.result.valid and self.optimal is not None and self.length != self.optimal:
            what = f"valid but {self.length} steps, optimal is {self.optimal}"
        return f"read {self.length} step(s): {' '.join(self.extraction.steps) or '(empty plan)'} → {what}"


def score_plan_planbench(problem: Problem | GroundProblem, reader: PlanBenchReader, response: str,
                         optimal: int | None = None) -> PlanBenchPlanScore:
    """PlanBench's verdict on a plan reply (t1, t2 with ``optimal``, t4–t6, t8)."""
    extraction = reader.text_to_plan(response)
    if extraction.error is not None:
        return PlanBenchPlanScore(extraction, None, optimal)
    return PlanBenchPlanScore(extraction, validate(_ground(problem), list(extraction.steps)), optimal)


@dataclass(frozen=True)
class PlanBenchStateScore:
    """A t7 reply read by PlanBench's ``text_to_state``: ``facts`` in its notation
    (``on_a_b``, duplicates kept), compared as a sorted list with ``reference``."""

    facts: tuple[str, ...]
    reference: tuple[str, ...]
    error: str | None = None

    @property
    def correct(self) -> bool:
        return self.error is None and sorted(self.facts) == sorted(self.reference)


def score_state_planbench(reference: Iterable[str], reader: PlanBenchReader, response: str,
                          and_split: bool = True) -> PlanBenchStateScore:
    """PlanBench's verdict on a resulting-state reply; ``reference``: PlanBench's
    ground truth (every fact of the state, static ones included, as ``fact_string``);
    ``and_split``: see ``PlanBenchReader.text_to_state``."""
    ref = tuple(reference)
    try:
        return PlanBenchStateScore(tuple(reader.text_to_state(response, and_split)), ref)
    except PlanBenchError as exc:
        return PlanBenchStateScore((), ref, str(exc))


@dataclass(frozen=True)
class PlanBenchVerificationScore:
    """A t3 reply parsed by PlanBench's ``parse_output`` against its parsed reference
    answer; ``error`` when PlanBench's evaluation would crash (no verdict: the levels are False)."""

    answer: dict
    reference: dict
    binary: bool
    type: bool
    explanation: bool
    error: str | None = None


def score_verification_planbench(reader: PlanBenchReader, response: str,
                                 reference_answer: str) -> PlanBenchVerificationScore:
    """PlanBench's three t3 levels; ``reference_answer``: its reference text
    (``layout.verification_message`` rebuilds it)."""
    answer: dict = {}
    reference: dict = {}
    try:
        answer = reader.parse_output(response)
        reference = reader.parse_output(reference_answer)
        binary, type_, explanation = verification_levels(answer, reference)
    except PlanBenchError as exc:
        return PlanBenchVerificationScore(answer, reference, False, False, False, str(exc))
    return PlanBenchVerificationScore(answer, reference, binary, type_, explanation)
