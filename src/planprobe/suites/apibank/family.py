"""The API-Bank families: scoring as API-Bank scores, plus PMC's whole-run metrics.

``apibank`` holds the cases where the agent must call APIs:

* ``api`` (levels 1-2) and ``step`` (level 3): the agent's **first** tool call is the
  prediction, as API-Bank takes one call per sample. It is correct when it names the
  expected API and, executed (levels 1-2: planprobe's implementations on the initial
  databases; level 3: the recorded calls), passes that API's own correctness rule
  against the recorded result (``checks``). Failures carry API-Bank's error
  category (``evaluator_by_json.py``): NO_API_CALL, API_NAME_MISMATCH,
  FAILED_PARSE_API_CALL, INVALID_INPUT_PARAMETER, MISS_INPUT_ARGUMENT, HAS_EXCEPTION,
  INPUT_MISMATCH, OUTPUT_MISMATCH, KEY_ERROR.
* ``run`` (level 3): the agent does the whole requirement. Every call is matched to
  the recorded calls (see ``run_metrics``); the case passes when every recorded call
  was made correctly (completeness 1) and no call was wrong: an agent that tries
  calls until one is accepted does not pass (``complete`` in the labels says whether
  every recorded call was made, wrong calls ignored).

``apibank-response`` holds the ``response`` cases: the agent's final answer scored by
ROUGE-L against the recorded reply (``rouge``); it passes at ``pass_rouge`` or more
(planprobe's threshold; API-Bank reports only the mean, which ``show`` prints).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ...environment import Environment, Limits
from ...errors import PlanprobeError
from ...schema import (
    Case,
    ErrorClass,
    Evidence,
    ToolCall,
    ToolCallError,
    Trace,
    TraceStatus,
    Verdict,
)
from ...tool_args import parse_arguments
from ..base import NoToolPlans, PlannedCall
from .catalog import CallRefused, catalog, convert_arguments, lists_as_text
from .checks import check
from .environment import ApiBankEnvironment, Level3Server, fresh_world
from .rouge import response_score
from .spec import FAMILY, KINDS, RESPONSE_FAMILY, SPEC_VERSION, call_text

CHECKER = "api-bank"
RESPONSE_ERROR = "response_mismatch"  # a reply below the ROUGE-L threshold (not an ErrorClass: no planning meaning)
CATEGORY_CLASS = {
    "NO_API_CALL": ErrorClass.ACTION_LOST.value,
    "API_NAME_MISMATCH": ErrorClass.ACT_ERROR.value, "FAILED_PARSE_API_CALL": ErrorClass.ACT_ERROR.value,
    "INVALID_INPUT_PARAMETER": ErrorClass.ACT_ERROR.value, "MISS_INPUT_ARGUMENT": ErrorClass.ACT_ERROR.value,
    "HAS_EXCEPTION": ErrorClass.PARAMETER_ERROR.value, "INPUT_MISMATCH": ErrorClass.PARAMETER_ERROR.value,
    "OUTPUT_MISMATCH": ErrorClass.PARAMETER_ERROR.value, "KEY_ERROR": ErrorClass.PARAMETER_ERROR.value,
}


def check_spec(case: Case) -> dict[str, Any]:
    spec = case.spec
    if spec.get("version") != SPEC_VERSION:
        raise PlanprobeError(f"case {case.id}: spec field 'version': expected {SPEC_VERSION}")
    level, kind = spec.get("level"), spec.get("kind")
    if level not in KINDS or kind not in KINDS[level]:
        raise PlanprobeError(f"case {case.id}: spec fields 'level'/'kind': {level!r}/{kind!r} is not an API-Bank case")
    gold = spec.get("gold")
    if not isinstance(gold, dict):
        raise PlanprobeError(f"case {case.id}: spec field 'gold' missing")
    if kind in ("api", "step") and not (isinstance(gold.get("api_name"), str) and isinstance(gold.get("result"), dict)):
        raise PlanprobeError(f"case {case.id}: spec field 'gold': needs api_name and result")
    if kind == "response" and not isinstance(gold.get("text"), str):
        raise PlanprobeError(f"case {case.id}: spec field 'gold.text' missing")
    if kind == "run" and not isinstance(gold.get("calls"), list):
        raise PlanprobeError(f"case {case.id}: spec field 'gold.calls' missing")
    if spec.get("reading", "corrected") not in ("corrected", "official"):
        raise PlanprobeError(f"case {case.id}: spec field 'reading': {spec['reading']!r} is not corrected or "
                             "official")
    if level in (1, 2) and not isinstance(spec.get("data_dir"), str):
        raise PlanprobeError(f"case {case.id}: spec field 'data_dir' missing")
    return spec


# -- judging one call ------------------------------------------------------------


@dataclass
class CallJudgement:
    correct: bool
    category: str  # "" when correct
    result: dict[str, Any] | None = None
    detail: str = ""


def _refused(call: ToolCall) -> str | None:
    """API-Bank's category for a call the environment refused, or None."""
    if call.error == ToolCallError.MALFORMED_ARGUMENTS.value:
        return "FAILED_PARSE_API_CALL"
    if call.error == ToolCallError.INVALID_ARGUMENTS.value:
        return "MISS_INPUT_ARGUMENT" if "missing" in call.result else "INVALID_INPUT_PARAMETER"
    if call.error == ToolCallError.UNKNOWN_TOOL.value:
        return "API_NAME_MISMATCH"
    return None


def execute(spec: dict[str, Any], name: str, args: dict[str, Any], seed: str) -> dict[str, Any]:
    """The result API-Bank's evaluator would get for this call (a fresh world each time)."""
    if spec["level"] == 3:
        return Level3Server(spec).call(name, args)
    converted = convert_arguments(catalog()[name], json.loads(json.dumps(args)))
    return fresh_world(spec, seed).call(name, converted)


def definition(spec: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The API's declaration as the case's level knows it (None: not an API of the level)."""
    if spec["level"] == 3:
        found = (spec.get("apis") or {}).get(name)
        return found if isinstance(found, dict) else None
    return catalog().get(name)


def call_arguments(call: ToolCall) -> dict[str, Any] | None:
    return call.args if call.args is not None else parse_arguments(call.arguments)


def judge_call(spec: dict[str, Any], call: ToolCall, gold: dict[str, Any], seed: str,
               official: bool = False) -> CallJudgement:
    """One predicted call against one recorded call. ``official``: API-Bank's own reading,
    where list arguments reach the API as text (``lists_as_text``)."""
    if call.name != gold["api_name"]:
        return CallJudgement(False, "API_NAME_MISMATCH", detail=f"called {call.name}, expected {gold['api_name']}")
    args = call_arguments(call)
    if args is None:
        return CallJudgement(False, "FAILED_PARSE_API_CALL", detail="arguments are not a JSON object")
    if official:
        args = lists_as_text(definition(spec, call.name), args)
    if spec["level"] != 3 and call.name in catalog():
        try:  # API-Bank's order: an undeclared argument first, then a missing one
            convert_arguments(catalog()[call.name], json.loads(json.dumps(args)))
        except CallRefused as exc:
            return CallJudgement(False, exc.kind, detail=str(exc))
    refused = _refused(call)
    if refused:
        return CallJudgement(False, refused, detail=call.result[:200])
    try:
        result = execute(spec, call.name, args, seed)
    except CallRefused as exc:
        return CallJudgement(False, exc.kind, detail=str(exc))
    ok, category = check(gold["api_name"], result, gold["result"], spec["level"])
    return CallJudgement(ok, category, result, detail="" if ok else _mismatch(result, gold["result"]))


def has_list_arguments(spec: dict[str, Any], call: ToolCall) -> bool:
    """Whether the official reading sees this call differently (a list argument)."""
    args = call_arguments(call)
    return args is not None and lists_as_text(definition(spec, call.name), args) != args


def _mismatch(result: dict[str, Any], gold: dict[str, Any]) -> str:
    if result.get("exception"):
        return f"the call failed: {result['exception']}"[:300]
    return (f"got output {json.dumps(result.get('output'), ensure_ascii=False, default=str)[:120]} for input "
            f"{json.dumps(result.get('input'), ensure_ascii=False, default=str)[:120]}; recorded output "
            f"{json.dumps(gold.get('output'), ensure_ascii=False, default=str)[:120]}")


# -- whole runs (PMC) ----------------------------------------------------------------


@dataclass
class RunMetrics:
    """PMC's whole-run figures of one run (docs/api-bank.md defines them)."""

    predictions: int = 0  # tool calls the agent made, valid or not
    required: int = 0  # calls API-Bank recorded for the requirement
    unique_correct: int = 0  # recorded calls matched by a correct call (each at most once)
    repeats: int = 0  # correct calls whose every matching recorded call was already matched
    incorrect: int = 0
    matched: list[int] = field(default_factory=list)  # recorded call index per prediction (-1: none)

    @property
    def complete(self) -> bool:
        """Every recorded call was made correctly (wrong calls ignored)."""
        return self.unique_correct == self.required

    @property
    def passed(self) -> bool:
        """The pass rule: complete, and no call was wrong (trying calls until one works does not pass)."""
        return self.complete and self.incorrect == 0

    def to_json(self) -> dict[str, Any]:
        return {"predictions": self.predictions, "required": self.required, "unique_correct": self.unique_correct,
                "repeats": self.repeats, "incorrect": self.incorrect, "complete": self.complete,
                "correctness": round(self.unique_correct / self.predictions, 6) if self.predictions else 0.0,
                "completeness": round(self.unique_correct / self.required, 6) if self.required else 0.0}


def run_metrics(spec: dict[str, Any], calls: list[ToolCall], seed: str) -> RunMetrics:
    """Each call, in order, is matched to the first recorded call it is correct for
    (same API, API-Bank's level-3 rule) that no earlier call matched; a correct call
    with no such recorded call left is a repeat; any other call is incorrect."""
    gold_calls = spec["gold"]["calls"]
    m = RunMetrics(predictions=len(calls), required=len(gold_calls))
    used: set[int] = set()
    for call in calls:
        correct_for = [i for i, g in enumerate(gold_calls)
                       if g["api_name"] == call.name and judge_call(spec, call, g, seed).correct]
        fresh = [i for i in correct_for if i not in used]
        if fresh:
            used.add(fresh[0])
            m.unique_correct += 1
            m.matched.append(fresh[0])
        elif correct_for:
            m.repeats += 1
            m.matched.append(correct_for[0])
        else:
            m.incorrect += 1
            m.matched.append(-1)
    return m


# -- verdicts ------------------------------------------------------------------------


def _status_errors(trace: Trace) -> list[str]:
    if trace.status == TraceStatus.AGENT_ERROR:
        return [ErrorClass.AGENT_CRASH.value]
    if trace.status in (TraceStatus.TIMEOUT, TraceStatus.ITERATION_LIMIT, TraceStatus.CONTEXT_LIMIT):
        return [ErrorClass.TIMEOUT.value]
    return []


def _infra(case: Case, trace: Trace) -> Verdict:
    return Verdict(case_id=case.id, trial=trace.trial, passed=False, errors=[ErrorClass.INFRA.value], checker=CHECKER,
                   evidence=[Evidence(error=ErrorClass.INFRA.value, kind="infra", symbolic="infra",
                                      text="The model service failed; this is not a planning failure.")])


def _labels(spec: dict[str, Any], **extra: Any) -> dict[str, Any]:
    base = {"level": spec["level"], "kind": spec["kind"]}
    if spec["level"] == 3:
        base["sample"] = spec.get("sample")
    else:
        base["file"] = spec.get("source", {}).get("file")
    return {"api_bank": {**base, **extra}}


def check_call_case(case: Case, trace: Trace) -> Verdict:
    spec = case.spec
    gold = spec["gold"]
    if not trace.tool_calls:
        corrected = official = CallJudgement(False, "NO_API_CALL", detail="the agent made no API call")
    else:
        first = trace.tool_calls[0]
        corrected = judge_call(spec, first, gold, f"{case.id}/judge")
        official = corrected
        if has_list_arguments(spec, first):
            official = judge_call(spec, first, gold, f"{case.id}/judge", official=True)
    reading = spec.get("reading") or "corrected"
    judgement = official if reading == "official" else corrected
    labels = _labels(spec, api=gold["api_name"], correct=judgement.correct, category=judgement.category,
                     extra_calls=max(0, len(trace.tool_calls) - 1), reading=reading,
                     readings={"official": {"correct": official.correct, "category": official.category},
                               "corrected": {"correct": corrected.correct, "category": corrected.category}})
    if "gold_consistent" in spec:
        labels["api_bank"]["gold_consistent"] = bool(spec["gold_consistent"])
    if judgement.correct:
        return Verdict(case_id=case.id, trial=trace.trial, passed=True, checker=CHECKER, score=1.0, labels=labels)
    error = CATEGORY_CLASS[judgement.category]
    expected = call_text(gold["api_name"], (gold["result"] or {}).get("input"))
    evidence = Evidence(error=error, kind=judgement.category.lower(), symbolic=judgement.category,
                        text=f"{judgement.category}: {judgement.detail}; expected {expected}"[:600],
                        step=0 if trace.tool_calls else None)
    errors = _status_errors(trace) + [error]
    return Verdict(case_id=case.id, trial=trace.trial, passed=False, errors=_dedupe(errors), evidence=[evidence],
                   checker=CHECKER, score=0.0, labels=labels)


def check_run_case(case: Case, trace: Trace) -> Verdict:
    spec = case.spec
    m = run_metrics(spec, trace.tool_calls, f"{case.id}/judge")
    rouge = response_score(trace.final_answer or "", spec["gold"]["text"], 3)
    labels = _labels(spec, **m.to_json(), rouge_l=round(rouge, 6))
    if m.passed:
        return Verdict(case_id=case.id, trial=trace.trial, passed=True, checker=CHECKER, labels=labels,
                       score=m.to_json()["completeness"])
    evidence: list[Evidence] = []
    missing = [i for i in range(m.required) if i not in set(m.matched)]
    for i in missing:
        g = spec["gold"]["calls"][i]
        evidence.append(Evidence(error=ErrorClass.ACTION_LOST.value, kind="missing_call", symbolic=f"missing {i}",
                                 text=f"no correct call for recorded call {i + 1}: "
                                      f"{call_text(g['api_name'], (g['result'] or {}).get('input'))}"[:400]))
    for k, (call, idx) in enumerate(zip(trace.tool_calls, m.matched)):
        if idx < 0:
            evidence.append(Evidence(error=ErrorClass.PARAMETER_ERROR.value if not call.error
                                     else ErrorClass.ACT_ERROR.value, kind="incorrect_call", step=k,
                                     symbolic=f"incorrect {k}",
                                     text=f"call {k + 1} ({call.name}) matches no recorded call"[:400]))
    errors = _status_errors(trace) + [e.error for e in evidence]
    return Verdict(case_id=case.id, trial=trace.trial, passed=False, errors=_dedupe(errors), evidence=evidence,
                   checker=CHECKER, labels=labels, score=m.to_json()["completeness"])


def _dedupe(errors: list[str]) -> list[str]:
    from ...schema import sort_errors

    return sort_errors(errors)


# -- the families --------------------------------------------------------------------


def _gold_args(gold: dict[str, Any]) -> str:
    return json.dumps((gold.get("result") or {}).get("input") or {}, ensure_ascii=False, sort_keys=True)


class _ApiBankCases:
    """What the call/run family and the response family share: the spec check and the
    environment (API-Bank's APIs over its databases)."""

    def validate(self, case: Case) -> None:
        check_spec(case)

    def environment(self, case: Case, limits: Limits, trial: int = 0, agent: str = "") -> Environment:
        return ApiBankEnvironment(case, limits, trial, agent)


class ApiBankFamily(_ApiBankCases):
    name = FAMILY
    faults: ClassVar[dict[str, str]] = {"drop": ErrorClass.ACTION_LOST.value,
                                        "unknown-tool": ErrorClass.ACT_ERROR.value,
                                        "malformed-args": ErrorClass.ACT_ERROR.value}

    def check(self, case: Case, trace: Trace) -> Verdict:
        if trace.status == TraceStatus.INFRA_ERROR:
            return _infra(case, trace)
        if case.spec["kind"] == "run":
            return check_run_case(case, trace)
        return check_call_case(case, trace)

    def _gold_plan(self, case: Case) -> list[PlannedCall]:
        spec = case.spec
        golds = spec["gold"]["calls"] if spec["kind"] == "run" else [spec["gold"]]
        return [PlannedCall(g["api_name"], _gold_args(g)) for g in golds]

    def reference_plan(self, case: Case) -> list[PlannedCall]:
        return self._gold_plan(case)

    def random_plan(self, case: Case, rng: random.Random) -> list[PlannedCall]:
        plan = self._gold_plan(case)
        names = sorted({t.name for t in case.tools} | {c.name for c in plan})
        out = []
        for _ in range(rng.randint(1, max(1, len(plan)))):
            name = rng.choice(names)
            same = [c for c in plan if c.name == name]
            out.append(rng.choice(same) if same and rng.random() < 0.5 else PlannedCall(name, "{}"))
        return out

    def faulty_plan(self, case: Case, fault: str, rng: random.Random) -> list[PlannedCall] | None:
        plan = self._gold_plan(case)
        if not plan:
            return None
        i = rng.randrange(len(plan)) if case.spec["kind"] == "run" else 0
        if fault == "drop":
            return plan[:i] + plan[i + 1:] if case.spec["kind"] == "run" else []
        if fault == "unknown-tool":
            return plan[:i] + [PlannedCall("NoSuchApi", plan[i].arguments)] + plan[i + 1:]
        if fault == "malformed-args":
            return plan[:i] + [PlannedCall(plan[i].name, "{not json")] + plan[i + 1:]
        return None


UNRELATED_REPLY = "I am sorry, I cannot help with that."


class ApiBankResponseFamily(NoToolPlans, _ApiBankCases):
    name = RESPONSE_FAMILY
    # "unrelated": a reply that ignores the conversation (fails unless the recorded reply is that close)
    faults: ClassVar[dict[str, str]] = {"unrelated": RESPONSE_ERROR}

    def check(self, case: Case, trace: Trace) -> Verdict:
        if trace.status == TraceStatus.INFRA_ERROR:
            return _infra(case, trace)
        spec = case.spec
        score = response_score(trace.final_answer or "", spec["gold"]["text"], spec["level"])
        threshold = float(spec.get("pass_rouge", 0.5))
        labels = _labels(spec, rouge_l=score)
        if score >= threshold:
            return Verdict(case_id=case.id, trial=trace.trial, passed=True, checker=CHECKER, score=score,
                           labels=labels)
        ev = Evidence(error=RESPONSE_ERROR, kind="rouge_l", symbolic=f"rouge_l={score:.4f}<{threshold}",
                      text=f"The reply's ROUGE-L against the recorded reply is {score:.4f}, below {threshold}; "
                           f"recorded: {spec['gold']['text'][:300]}")
        return Verdict(case_id=case.id, trial=trace.trial, passed=False,
                       errors=_dedupe(_status_errors(trace) + [RESPONSE_ERROR]), evidence=[ev], checker=CHECKER,
                       score=score, labels=labels)

    def reference_answer(self, case: Case) -> str:
        return str(case.spec["gold"]["text"])

    def random_answer(self, case: Case, rng: random.Random) -> str:
        words = case.task.split()
        return " ".join(rng.choice(words) for _ in range(min(20, len(words)))) if words else "OK"

    def faulty_answer(self, case: Case, fault: str, rng: random.Random) -> str | None:
        if fault != "unrelated":
            return None
        spec = case.spec
        score = response_score(UNRELATED_REPLY, spec["gold"]["text"], spec["level"])
        passes = score >= float(spec.get("pass_rouge", 0.5))
        return None if passes else UNRELATED_REPLY


__all__ = ["ApiBankFamily", "ApiBankResponseFamily", "run_metrics", "judge_call"]
