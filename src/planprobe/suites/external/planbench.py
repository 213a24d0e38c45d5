"""Re-score PlanBench's recorded responses with PlanBench's readers (reproduced
bug for bug) or planprobe's own, and planprobe's validator and planner.

Why: PlanBench (seed 004) publishes model responses with its own verdicts
(``llm_correct``; ``llm_correct_binary`` for plan verification). Reading the
same responses as PlanBench reads them (``pddl.planbench_rules``), checking them
with planprobe's validator and optimal planner and comparing verdicts — and the
extractions PlanBench recorded — is the conformance test of the PDDL family. It
lets a user re-score PlanBench runs (or their own model's responses in
PlanBench's format) without PlanBench's toolchain (Fast Downward, VAL, tarski),
with numbers comparable to PlanBench's, or with planprobe's stricter reader
(``rules="planprobe"``, ``pddl.reply_parser``).

Input: JSONL (optionally gzipped), one response per line with ``instance_id``,
``query``, ``llm_raw_response``, ``domain`` (PlanBench's config name:
``blocksworld``, ``blocksworld_3``, ``mystery_blocksworld``, ``logistics``, …),
``task`` (``t1``/``task_1_plan_generation``…; else taken from the file name)
and PlanBench's verdict fields. The PDDL comes from a PlanBench ``instances``
folder: ``DIR/<domain>/generated_domain.pddl`` and
``DIR/<domain>/generated_basic/instance-N.pddl`` (see ``LAYOUTS``).

What each task checks (PlanBench's semantics, from its ``response_evaluation.py``
and ``prompt_generation.py``):

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

import gzip
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ...errors import PlanprobeError
from ...pddl import (
    Domain,
    PDDLSyntaxError,
    Problem,
    load_domain,
    load_problem,
    solve,
    validate,
)
from ...pddl.grounding import ground
from ...pddl.model import Atom, PDDLLiteral
from ...pddl.reply_parser import parse_plan, parse_state, parse_verification
from ...pddl.simulator import run
from ...pddl.translation import (
    DomainTranslation,
    Translator,
    load_translation,
    translator,
)
from ..planbench.planbench_rules import PlanBenchReader, fact_string
from ..planbench.prompt_blocks import verification_message
from ..planbench.scoring import (
    resulting_state,
    score_plan,
    score_plan_planbench,
    score_state,
    score_state_planbench,
    score_verification,
    score_verification_planbench,
)

__all__ = [
    "LAYOUTS",
    "RULES",
    "TASKS",
    "ConformanceReport",
    "DomainLayout",
    "PlanBenchInstances",
    "Rescore",
    "read_results",
    "rescore_file",
    "rescore_record",
    "task_id",
]

RULES = ("planbench", "planbench-code", "planprobe")
TASKS = {
    "t1": "plan_generation", "t2": "plan_optimality", "t3": "plan_verification", "t4": "plan_reuse",
    "t5": "plan_generalization", "t6": "replanning", "t7": "plan_execution", "t8_1": "goal_shuffling",
    "t8_2": "full_to_partial", "t8_3": "partial_to_full",
}


@dataclass(frozen=True)
class DomainLayout:
    """Where a PlanBench config's PDDL lives under the instances folder, and its translation."""

    domain_file: str
    instances: str
    generalized: str
    translation: str


def _layout(folder: str, translation: str, basic: str = "generated_basic") -> DomainLayout:
    return DomainLayout(f"{folder}/generated_domain.pddl", f"{folder}/{basic}", f"{folder}/generated", translation)


LAYOUTS: dict[str, DomainLayout] = {
    "blocksworld": _layout("blocksworld", "blocksworld"),
    "blocksworld_3": _layout("blocksworld", "blocksworld", "generated_basic_3"),
    "mystery_blocksworld": _layout("blocksworld/mystery", "mystery_blocksworld"),
    "mystery_blocksworld_3": _layout("blocksworld/mystery", "mystery_blocksworld", "generated_basic_3"),
    "logistics": _layout("logistics", "logistics"),
    "obfuscated_deceptive_logistics": _layout("obfuscated_deceptive_logistics", "obfuscated_deceptive_logistics"),
    "obfuscated_randomized_logistics": _layout("obfuscated_randomized_logistics", "obfuscated_randomized_logistics"),
    "depots": _layout("depots", "depots"),
}


def task_id(value: str) -> str:
    """``t1``, ``1``, ``task_1_plan_generation``, ``task_8_2_full_to_partial`` → ``t1`` / ``t8_2``."""
    text = str(value).strip().lower()
    m = re.fullmatch(r"(?:t|task_?)?(\d)(?:_(\d))?(?:_[a-z_]+)?(?:\.jsonl(?:\.gz)?)?", text)
    if m is not None:
        key = f"t{m.group(1)}" + (f"_{m.group(2)}" if m.group(2) else "")
        if key in TASKS:
            return key
    for key, name in TASKS.items():
        if name in text:
            return key
    raise PlanprobeError(f"task {value!r}: expected one of {', '.join(TASKS)} (or PlanBench's task names)")


class PlanBenchInstances:
    """PlanBench's PDDL under one folder: problems parsed once, optimal lengths planned once."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        if not self.root.is_dir():
            raise PlanprobeError(f"{self.root}: no such folder (expected PlanBench's 'instances' folder)")
        self._domains: dict[str, Domain] = {}
        self._problems: dict[tuple[str, int, bool], Problem] = {}
        self._optimal: dict[tuple[str, int, bool], int] = {}

    def layout(self, domain: str) -> DomainLayout:
        layout = LAYOUTS.get(domain)
        if layout is None:
            raise PlanprobeError(f"domain {domain!r}: not a PlanBench config planprobe knows "
                                 f"({', '.join(LAYOUTS)})")
        return layout

    def translation(self, domain: str) -> DomainTranslation:
        return load_translation(self.layout(domain).translation)

    def problem(self, domain: str, instance_id: int, generalized: bool = False) -> Problem:
        key = (domain, instance_id, generalized)
        if key not in self._problems:
            layout = self.layout(domain)
            folder = layout.generalized if generalized else layout.instances
            domain_path = self.root / layout.domain_file
            path = self.root / folder / f"instance-{instance_id}.pddl"
            for p in (domain_path, path):
                if not p.is_file():
                    raise PlanprobeError(f"{p}: instance file not found (expected PlanBench's layout "
                                         f"DIR/<domain>/generated_basic/instance-N.pddl under {self.root})")
            if layout.domain_file not in self._domains:
                self._domains[layout.domain_file] = load_domain(domain_path)
            self._problems[key] = load_problem(path, self._domains[layout.domain_file])
        return self._problems[key]

    def optimal_length(self, domain: str, instance_id: int, generalized: bool = False) -> int:
        key = (domain, instance_id, generalized)
        if key not in self._optimal:
            self._optimal[key] = solve(self.problem(domain, instance_id, generalized)).cost
        return self._optimal[key]


@dataclass
class Rescore:
    """planprobe's verdict on one recorded response, next to PlanBench's."""

    instance_id: Any
    task: str
    planbench: bool | None
    planprobe: bool
    reason: str
    plan: list[str] | None = None
    unparsed: list[str] = field(default_factory=list)
    own: bool | None = None  # the verdict under planprobe's own reading rules
    exact: bool | None = None  # the verdict under PlanBench's rules (its reader, bug for bug)
    # PlanBench's recorded extraction (extracted_llm_plan; t3 also the parsed reference answer and
    # the three levels) equals what PlanBench's reader gives here; None: the record has none
    extraction: bool | None = None

    @property
    def agree(self) -> bool:
        return self.planbench is None or self.planbench == self.planprobe

    def to_dict(self) -> dict[str, Any]:
        return {"instance_id": self.instance_id, "planbench": self.planbench, "planprobe": self.planprobe,
                "reason": self.reason}


@dataclass
class ConformanceReport:
    file: str
    task: str
    domain: str
    results: list[Rescore]
    rules: str = "planbench"

    @property
    def instances(self) -> int:
        return len(self.results)

    @property
    def compared(self) -> int:
        return sum(r.planbench is not None for r in self.results)

    @property
    def agree(self) -> int:
        return sum(r.planbench is not None and r.agree for r in self.results)

    @property
    def disagreements(self) -> list[Rescore]:
        return [r for r in self.results if not r.agree]

    @property
    def agreement(self) -> float:
        return self.agree / self.compared if self.compared else 1.0

    @property
    def extraction_compared(self) -> int:
        """Records with a recorded extraction to compare with PlanBench's reader."""
        return sum(r.extraction is not None for r in self.results)

    @property
    def extraction_agree(self) -> int:
        return sum(bool(r.extraction) for r in self.results)

    @property
    def extraction_differs(self) -> list[Rescore]:
        return [r for r in self.results if r.extraction is False]

    def to_json(self) -> dict[str, Any]:
        return {
            "instances": self.instances, "agree": self.agree,
            "disagreements": [r.to_dict() for r in self.disagreements],
            "file": self.file, "task": self.task, "domain": self.domain, "rules": self.rules,
            "compared": self.compared,
            "planprobe_correct": sum(r.planprobe for r in self.results),
            "planbench_correct": sum(bool(r.planbench) for r in self.results),
            "extraction_compared": self.extraction_compared, "extraction_agree": self.extraction_agree,
            "extraction_differs": [r.instance_id for r in self.extraction_differs],
        }


# ---------------------------------------------------------------------------
# reading the files
# ---------------------------------------------------------------------------

def read_results(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) for each non-blank line of a JSONL(.gz) file."""
    path = Path(path)
    if not path.is_file():
        raise PlanprobeError(f"{path}: no such file")
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise PlanprobeError(f"{path}:{lineno}: not valid JSON: {exc.msg} (column {exc.colno})") from None
                if not isinstance(record, dict):
                    raise PlanprobeError(f"{path}:{lineno}: expected a JSON object per line")
                yield lineno, record
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise PlanprobeError(f"{path}: cannot read: {exc}") from None


def rescore_file(path: str | Path, instances: str | Path | PlanBenchInstances, rules: str = "planbench",
                 on_result: Callable[[Rescore], None] | None = None) -> ConformanceReport:
    """Re-score every response of a PlanBench results file (see the module docstring).
    ``rules``: ``"planbench"`` reads replies with PlanBench's own readers, bug for
    bug (``pddl.planbench_rules``: "X is no longer clear" states that X is clear,
    "both the X block and the Y block are on the table" one fact, …), as they
    read PlanBench's published results (t7 answers split at commas only);
    ``"planbench-code"`` as LLMs-Planning's code reads them today (t7 answers
    also split at " and "); ``"planprobe"`` with planprobe's own, more careful
    reader (``pddl.reply_parser``). PlanBench's and planprobe's verdicts are both
    computed; the other one is named in ``reason`` when it differs."""
    if rules not in RULES:
        raise PlanprobeError(f"rules {rules!r}: expected one of {', '.join(RULES)}")
    pb = instances if isinstance(instances, PlanBenchInstances) else PlanBenchInstances(instances)
    results: list[Rescore] = []
    task = domain = ""
    for lineno, record in read_results(path):
        where = f"{path}:{lineno}"
        for key in ("instance_id", "domain"):
            if key not in record:
                raise PlanprobeError(f"{where}: missing field {key!r}")
        rtask = task_id(record["task"]) if record.get("task") else task_id(Path(path).name)
        try:
            r = rescore_record(record, pb, rtask, rules)
        except PDDLSyntaxError:
            raise
        except PlanprobeError as exc:
            raise PlanprobeError(f"{where}: {exc}") from None
        task, domain = rtask, str(record["domain"])
        results.append(r)
        if on_result is not None:
            on_result(r)
    return ConformanceReport(str(path), task, domain, results, rules)


# ---------------------------------------------------------------------------
# one record
# ---------------------------------------------------------------------------

def rescore_record(record: dict[str, Any], pb: PlanBenchInstances, task: str | None = None,
                   rules: str = "planbench") -> Rescore:
    """planprobe's verdict on one PlanBench result record (``task``: taken from the
    record when not given; ``rules``: see ``rescore_file``)."""
    if rules not in RULES:
        raise PlanprobeError(f"rules {rules!r}: expected one of {', '.join(RULES)}")
    task = task_id(task or record.get("task", ""))
    domain = str(record["domain"])
    try:
        iid = int(record["instance_id"])
    except (TypeError, ValueError):
        raise PlanprobeError(f"instance_id {record['instance_id']!r}: expected a number") from None
    response = record.get("llm_raw_response") or ""
    if not isinstance(response, str):
        raise PlanprobeError("field 'llm_raw_response': expected a string")
    verdict_key = "llm_correct_binary" if task == "t3" else "llm_correct"
    planbench = record.get(verdict_key)
    problem = pb.problem(domain, iid, generalized=task == "t5")
    ctx = _Context(problem=problem, config=pb.translation(domain), response=response,
                   query=str(record.get("query") or ""), record=record, pb=pb, domain=domain, instance_id=iid,
                   rules=rules, reader=PlanBenchReader.for_config(domain, problem.domain))
    v = _SCORERS[task](ctx)
    verdict = v.own if rules == "planprobe" else v.exact
    reason = v.reason
    if not response:
        reason += ("; the recorded response is empty: PlanBench skips such a record (its verdict, if any, "
                   "is from an earlier run)")
    return Rescore(iid, task, None if planbench is None else bool(planbench), verdict, reason, v.plan,
                   v.unparsed, v.own, v.exact, v.extraction)


@dataclass(frozen=True)
class _Context:
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
class _Verdict:
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


def _plan_verdict(ctx: _Context, problem: Problem, optimal: int | None = None) -> _Verdict:
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
    if ctx.rules != "planprobe":
        reason, plan = exact_text, list(exact.extraction.steps)
        if own.correct != exact.correct:
            reason += f"; under planprobe's rules {_yes(own.correct)}: {own_text}"
    else:
        reason, plan = own_text, own.parsed.pddl
        if own.correct != exact.correct:
            reason += f"; under PlanBench's rules {_yes(exact.correct)}: {exact_text}"
        elif exact.extraction.steps != tuple(own.parsed.pddl):
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
    return _Verdict(exact.correct, own.correct, reason, plan, unparsed, extraction)


def _score_plan(ctx: _Context) -> _Verdict:
    """t1, t5 (on the generalization instances) and t8: the plan solves the instance."""
    return _plan_verdict(ctx, ctx.problem)


def _score_optimal(ctx: _Context) -> _Verdict:
    return _plan_verdict(ctx, ctx.problem, ctx.pb.optimal_length(ctx.domain, ctx.instance_id))


def _score_verification(ctx: _Context) -> _Verdict:
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
    if ctx.rules != "planprobe":
        reason = exact_text
        if own.binary != exact.binary:
            reason += f"; under planprobe's rules {_yes(own.binary)}: {own_text}"
    else:
        reason = own_text
        if own.binary != exact.binary:
            reason += f"; under PlanBench's rules {_yes(exact.binary)}: {exact_text}"
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
    return _Verdict(exact.binary, own.binary, reason, stated.pddl, [], extraction)


def _score_reuse(ctx: _Context) -> _Verdict:
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


def _score_replanning(ctx: _Context) -> _Verdict:
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


def _score_execution(ctx: _Context) -> _Verdict:
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
    if ctx.rules != "planprobe":
        reason, plan = exact_text, list(exact.facts)
        if own.own_correct != exact.correct:
            reason += f"; under planprobe's rules {_yes(own.own_correct)}: {own_text}"
    else:
        reason, plan = own_text, sorted(map(str, own.stated.atoms))
        if own.own_correct != exact.correct:
            reason += f"; under PlanBench's rules {_yes(exact.correct)}: {exact_text}"
    if truth is not None and sorted(truth) != simulated:
        reason += f"; PlanBench's recorded reference state differs from the simulated one ({' '.join(simulated)})"
    extraction = None
    recorded = record.get("extracted_llm_plan")
    if isinstance(recorded, list):
        extraction = recorded == list(exact.facts)
        if not extraction:
            reason += f"; PlanBench's file records the extraction {recorded!r}"
    return _Verdict(exact.correct, own.own_correct, reason, plan, [u.text for u in own.stated.unparsed], extraction)


_SCORERS: dict[str, Callable[[_Context], _Verdict]] = {
    "t1": _score_plan, "t2": _score_optimal, "t3": _score_verification, "t4": _score_reuse,
    "t5": _score_plan, "t6": _score_replanning, "t7": _score_execution,
    "t8_1": _score_plan, "t8_2": _score_plan, "t8_3": _score_plan,
}
