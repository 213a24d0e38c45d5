"""Formal labels for a failed trace: what AgentDebug's annotators judged by hand,
decided here by the case's oracle.

Steps are numbered as AgentDebug numbers them: step k is the agent's k-th action,
i.e. tool call ``k-1`` of the trace (one assistant message per step in the
AgentDebug format, ``debug/bench.py``); step ``T+1`` is where the agent stopped
(its final answer, or the limit that stopped it).

* ``critical`` — *E*, the earliest step with a formally detectable error: the
  first call after which the run can no longer pass (binary search over prefixes
  with the family's exact prefix check), else the stop (a claim of completion
  while the task is unfinished, or the limit that ended the run).
* ``pnr`` — the point of no return: the first step whose action turns a state
  from which the task can still be completed into one from which it cannot.
  Binary search over the accepted calls, O(log T) oracle calls (``oracle_calls``).
  Exact for constraint cases (solver); sound for PDDL (a dead end is proven, an
  undecided search counts as alive and ``how`` says ``sound``).
* ``budget_pnr`` — the first step t of the whole trace after which the run cannot
  end within its iteration limit even played perfectly: the iterations spent up to
  t, plus h*(s_t) further calls at the run's own pace, plus its answer, exceed the
  limit (``debug/budget.py``; h* by the optimal planner, or the count of tasks
  left; a dead attempt is a restart and a whole plan away where restarts are
  granted, infinitely far where not). The interesting one for reversible domains
  (Blocksworld, Logistics), which have no dead ends.
* ``correction`` — a minimum set of steps whose removal, plus continuing at the
  end (step T+1 in the set: always, for a run that was cut off), makes the run
  pass within its iteration limit; searched exactly up to ``MAX_CORRECTION``
  steps. ``None`` when there is none, with the reason in ``correction_note``.
* ``labels`` — every module-level label found (``how`` says exact or heuristic).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..schema import (
    Case,
    ErrorClass,
    ToolCall,
    ToolCallError,
    Trace,
    TraceStatus,
    Verdict,
)
from ..suites.registry import restart_tool_of
from .budget import Budget
from .replay import (
    KIND_TYPE,
    LABELLED_FAMILIES,
    UNPARSED_NAMES,
    PDDLReplay,
    _first_true,
    replay_for,
)
from .taxonomy import error_type

LABELS_VERSION = 2  # 2: budget PNR and corrections in iterations, within the limit
MAX_CORRECTION = 3


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StepLabel(_Model):
    step: int  # 1-based; T+1 is where the agent stopped
    module: str
    type: str
    how: str  # exact | heuristic | llm
    evidence: str = ""


class PointLabel(_Model):
    step: int | None = None  # None: there is none
    how: str = "exact"  # exact | sound
    oracle_calls: int = 0
    note: str = ""


class FormalLabels(_Model):
    version: int = LABELS_VERSION
    case_id: str
    trial: int = 0
    family: str
    agent: str = ""
    steps: int  # T, the number of calls
    step_limit: int | None = None
    errors: list[str] = Field(default_factory=list)  # the verdict's error classes
    critical: StepLabel | None = None  # E
    pnr: PointLabel = Field(default_factory=PointLabel)
    budget_pnr: PointLabel | None = None
    correction: list[int] | None = None
    correction_note: str = ""  # why there is no correction (None)
    labels: list[StepLabel] = Field(default_factory=list)


_OWN_STEP = re.compile(r"^Step \d+: ")
_STATUS_TYPE = {
    TraceStatus.ITERATION_LIMIT: ("system", "step_limit", "the run reached its iteration limit"),
    TraceStatus.TIMEOUT: ("system", "llm_limit", "the run ran out of time"),
    TraceStatus.CONTEXT_LIMIT: ("system", "llm_limit", "the conversation outgrew the model's context window"),
    TraceStatus.INFRA_ERROR: ("system", "llm_limit", "the model service failed past all retries"),
    # AgentDebug's environment_error is a bug of the environment; the agent's own crash is none of
    # its system types, so it is "others" (docs/debugging.md, Deviations)
    TraceStatus.AGENT_ERROR: ("others", "others", "the agent's own code raised (not the environment)"),
}


def labellable(case: Case) -> bool:
    from .views import labellable_family

    return labellable_family(case)


def _label(step: int, module: str, name: str, evidence: str, how: str | None = None) -> StepLabel:
    t = error_type(module, name)  # KeyError for a type outside the taxonomy: a bug here
    return StepLabel(step=step, module=module, type=name, how=how or t.how.value, evidence=evidence)


def _problem_label(step: int, call: ToolCall | None, problem: dict) -> StepLabel:
    kind = problem.get("kind", "")
    if call is not None and call.error == ToolCallError.TOOL_FAILURE.value:
        kind = "tool_failure"
    if kind == "unknown_tool" and call is not None and call.name in UNPARSED_NAMES:
        kind = "malformed_arguments"  # the reply had no usable action: a format error
    module, name = KIND_TYPE.get(kind, ("others", "others"))
    text = _OWN_STEP.sub("", str(problem.get("text", kind)), count=1)  # the oracle counts calls from 0
    return _label(step, module, name, text, how="exact")


def label_trace(case: Case, trace: Trace, verdict: Verdict, step_limit: int | None = None) -> FormalLabels:
    """The formal labels of one failed trace of a labellable family (a holistic plan is
    labelled through the calls it writes down: ``debug/views.py``)."""
    from .views import view_of

    if case.family not in LABELLED_FAMILIES:
        view = view_of(case, trace)
        if view.unreadable is not None:
            return FormalLabels(case_id=case.id, trial=trace.trial, family=case.family, agent=trace.agent, steps=0,
                                errors=list(verdict.errors), correction=None,
                                critical=_label(1, "action", "format_error", f"no plan: {view.unreadable}"),
                                labels=[_label(1, "action", "format_error", f"no plan: {view.unreadable}")])
        out = label_trace(view.case, view.trace, verdict, None)  # a plan written at once has no step budget
        return out.model_copy(update={"case_id": case.id, "family": case.family})
    replay = replay_for(case)
    if replay is None:
        raise ValueError(f"family {case.family!r} has no formal labels")
    all_calls = trace.tool_calls
    calls = trace.judged_calls(restart_tool_of(case))  # the last attempt: the one judged
    offset = len(all_calls) - len(calls)
    t_total = len(all_calls)
    stop = t_total + 1
    out = FormalLabels(case_id=case.id, trial=trace.trial, family=case.family, agent=trace.agent,
                       steps=t_total, step_limit=step_limit, errors=list(verdict.errors))

    # E: the first call after which the run cannot pass
    found = replay.earliest(calls)
    if found is not None:
        k, problem = found
        out.critical = _problem_label(offset + k + 1, calls[k], problem)
    elif trace.status in _STATUS_TYPE:
        module, name, why = _STATUS_TYPE[trace.status]
        out.critical = _label(stop, module, name, why)
    elif not replay.complete(calls):
        out.critical = _label(stop, "reflection", "progress_misjudge",
                              "the agent stopped (claiming it was done) while the task was unfinished", how="exact")

    # PNR over the calls the environment carried out
    accepted = [c for c in calls if c.error is None]
    before = replay.calls
    j = _first_true(len(accepted), lambda n: bool(replay.dead(accepted[:n])))
    undecided = getattr(replay, "undecided", False)
    out.pnr = PointLabel(step=None if j is None else accepted[j - 1].index + 1,
                         how="sound" if undecided else "exact", oracle_calls=replay.calls - before,
                         note="" if j is not None else "no step makes the task impossible to complete")

    budget = Budget.of(trace, step_limit)
    if step_limit is not None:
        out.budget_pnr = _budget_pnr(replay, all_calls, budget)
    out.correction, limited = _correction(replay, calls, offset, stop, budget)
    if out.correction is None:
        out.correction_note = _no_correction(replay, calls, offset, stop, budget, limited)
    out.labels = _all_labels(case, trace, replay, calls, offset, out)
    return out


def _budget_pnr(replay, all_calls: Sequence[ToolCall], budget: Budget) -> PointLabel:
    """The first step t of the whole trace after which the run cannot end within the limit,
    in iterations (``Budget.over_after``); the quantity never decreases, so a binary search."""
    before = replay.calls

    def over(t: int) -> bool:  # t calls of the trace done
        more = replay.distance([c for c in all_calls[:t] if c.error is None])  # a rejected call changes nothing
        return budget.over_after(t - 1, more)

    t = _first_true(len(all_calls), over)
    return PointLabel(step=t, how="exact", oracle_calls=replay.calls - before,
                      note="" if t is not None else f"the run could still end within {budget.limit} iterations")


def minimum_correction(replay, calls: Sequence[ToolCall], offset: int, stop: int, budget: Budget | None = None,
                       max_size: int = MAX_CORRECTION) -> list[int] | None:
    """The fewest steps to remove, plus step T+1 (continuing at the end: played on perfectly,
    then the answer), so that the run passes within its iteration limit; exact up to
    ``max_size``. A run that was cut off must continue (T+1 is in every correction of it).
    ``calls`` are the judged attempt's, the first of them call ``offset`` of the trace.

    A removal that fixes an error must come at or before the earliest error of what is
    kept (an untouched failing prefix still fails), which bounds the branching; when the
    kept calls are right but need more iterations than the limit leaves, any kept call
    may be removed to free one (each removal frees at most one iteration)."""
    return _correction(replay, calls, offset, stop, budget, max_size)[0]


def _correction(replay, calls: Sequence[ToolCall], offset: int, stop: int, budget: Budget | None,
                max_size: int = MAX_CORRECTION) -> tuple[list[int] | None, bool]:
    """``minimum_correction`` and whether the limit turned a continuation down (without the
    limit the search would have gone the same way otherwise)."""
    finished = budget is None or budget.finished
    limited = False
    memo: dict[tuple[tuple[int, ...], int], list[int] | None] = {}

    def removed_of(kept: list[int]) -> list[int]:
        keep = set(kept)
        return [offset + i for i in range(len(calls)) if i not in keep]

    def fits(kept: list[int], more: int) -> bool:
        return budget is None or budget.fits(removed_of(kept), more)

    def search(kept: list[int], size: int) -> list[int] | None:
        key = (tuple(kept), size)
        if key not in memo:
            memo[key] = _search(kept, size)
        return memo[key]

    def _search(kept: list[int], size: int) -> list[int] | None:
        nonlocal limited
        sub = [calls[i] for i in kept]
        found = replay.earliest(sub, explain=False)
        if found is None:
            if finished and replay.complete(sub):
                return []
            if size == 0:
                return None
            more = replay.distance(sub)
            unlimited = budget is None or budget.limit is None
            if more is None and unlimited:
                return [stop]  # h* undecided, but there is no limit to fit it in
            if more is not None and not math.isinf(more) and fits(kept, int(more)):
                return [stop]
            if budget is None or budget.limit is None:
                return None
            limited = True
            if not finished and (size < 2 or budget.needed(removed_of(kept), 0) - budget.limit > size - 1):
                return None  # it must continue (one step), and each further removal frees at most one iteration
            branch = range(len(kept))  # a finished run may also pass by removals alone
        else:
            if size == 0:
                return None
            branch = range(found[0] + 1)
        for pos in branch:
            rest = search(kept[:pos] + kept[pos + 1:], size - 1)
            if rest is not None:
                return [offset + kept[pos] + 1] + rest
        return None

    idx = list(range(len(calls)))
    for size in range(max_size + 1):
        got = search(idx, size)
        if got is not None:
            return sorted(got), limited
    return None, limited


def _no_correction(replay, calls: Sequence[ToolCall], offset: int, stop: int, budget: Budget, limited: bool) -> str:
    """Why no correction was found: the limit (one exists without it), or none is small enough."""
    if limited and budget.limit is not None:
        free = minimum_correction(replay, calls, offset, stop, replace(budget, limit=None))
        if free is not None:
            kept = [c for i, c in enumerate(calls) if offset + i + 1 not in free]
            more = replay.distance(kept) if stop in free else 0
            removed = [s - 1 for s in free if s != stop]
            need = budget.needed(removed, int(more or 0))
            what = " and ".join(part for part in (
                f"removing step{'s' if len(removed) > 1 else ''} {', '.join(str(k + 1) for k in removed)}"
                if removed else "", f"continuing at the end (step {stop})" if stop in free else "") if part)
            return f"{what} would make the run pass, but it would need {need} iterations, over its limit of {budget.limit}"
    return f"no set of at most {MAX_CORRECTION} steps (removals, or continuing at the end) makes the run pass"


# -- module-level labels --------------------------------------------------------

_TAG = {m: re.compile(rf"<{m}>(.*?)(?:</{m}>|$)", re.DOTALL | re.IGNORECASE) for m in ("memory", "reflection", "plan", "action")}
_DONE = re.compile(r"\b(task (?:goal )?(?:is|has been) (?:fully )?(?:complete|completed|done|achieved)|"
                   r"(?:i|we) (?:have )?(?:completed|finished|achieved) (?:the|all|every) (?:task|goal|tasks)|"
                   r"goal (?:is|has been) (?:reached|achieved|met))\b", re.IGNORECASE)
_NEGATED = re.compile(r"\b(not|never|no|yet to|isn't|hasn't|haven't)\b", re.IGNORECASE)
_SUCCESS = re.compile(r"\b(was|is) (?:successful|successfully|a success)\b|\bsucceeded\b", re.IGNORECASE)
_STEP_REF = re.compile(r"\bstep\s+(\d+)\b[^.\n]*", re.IGNORECASE)


def module_texts(trace: Trace) -> list[dict[str, str]]:
    """Per step, the modular agent's memory/reflection/plan/action texts (empty for
    other agents): one assistant message per step."""
    if not trace.agent.startswith("modular"):
        return []
    out = []
    for m in trace.messages:
        if m.role != "assistant":
            continue
        text = m.content or ""
        found = {k: p.search(text) for k, p in _TAG.items()}
        out.append({k: (m.group(1).strip() if m else "") for k, m in found.items()})
    return out


def _claims_done(text: str) -> bool:
    for m in _DONE.finditer(text):
        window = text[max(0, m.start() - 25):m.start()]
        if not _NEGATED.search(window) and not _NEGATED.search(m.group(0)):
            return True
    return False


def _all_labels(case: Case, trace: Trace, replay, calls: Sequence[ToolCall], offset: int,
                out: FormalLabels) -> list[StepLabel]:
    labels: list[StepLabel] = []
    if out.critical is not None:
        labels.append(out.critical)
    if isinstance(replay, PDDLReplay):  # a step that changes nothing or returns to an earlier state wastes steps
        states, _, applied = replay.replay(calls)
        seen = {states[0]: 0}
        for k in range(1, len(states)):
            if applied[k - 1] and states[k] == states[k - 1]:
                labels.append(_label(offset + k, "planning", "inefficient_plan",
                                     "the action was carried out and changed nothing"))
            elif states[k] != states[k - 1] and states[k] in seen:
                labels.append(_label(offset + k, "planning", "inefficient_plan",
                                     f"the world is back in the state it was in after step {offset + seen[states[k]]}"))
            seen.setdefault(states[k], k)
    texts = module_texts(trace)
    tool_names = {t.name for t in case.tools}
    all_calls = trace.tool_calls
    for s, parts in enumerate(texts, start=1):
        call = all_calls[s - 1] if s - 1 < len(all_calls) else None
        prev = all_calls[s - 2] if 2 <= s <= len(all_calls) + 1 else None
        # plan names tools, the action calls none of them
        named = {n for n in tool_names if re.search(rf"\b{re.escape(n)}\b", parts["plan"])}
        if call is not None and named and call.name not in named:
            labels.append(_label(s, "action", "misalignment",
                                 f"the plan names {', '.join(sorted(named))} but the action calls {call.name}"))
        if prev is not None and _rejected(prev) and _SUCCESS.search(parts["reflection"]) \
                and not _NEGATED.search(parts["reflection"][:200]):
            labels.append(_label(s, "reflection", "outcome_misinterpretation",
                                 f"step {s - 1} was rejected ({prev.result[:80]}) but the reflection calls it a success"))
        if _claims_done(parts["reflection"]):
            done_calls = [c for c in calls if c.index < s - 1]
            if not replay.complete(done_calls):
                labels.append(_label(s, "reflection", "progress_misjudge",
                                     "the reflection says the task is complete; the oracle says it is not",
                                     how="heuristic"))
        for m in _STEP_REF.finditer(parts["memory"]):
            ref = int(m.group(1))
            if 1 <= ref < s and ref - 1 < len(all_calls):
                said = {n for n in tool_names if re.search(rf"\b{re.escape(n)}\b", m.group(0))}
                if said and all_calls[ref - 1].name not in said:
                    labels.append(_label(s, "memory", "hallucination",
                                         f"memory says step {ref} did {', '.join(sorted(said))}; "
                                         f"it called {all_calls[ref - 1].name}"))
                    break
    labels.sort(key=lambda x: (x.step, x.module, x.type))
    unique: list[StepLabel] = []
    for x in labels:
        if not unique or (x.step, x.module, x.type) != (unique[-1].step, unique[-1].module, unique[-1].type):
            unique.append(x)
    return unique


def _rejected(call: ToolCall) -> bool:
    return call.error is not None or call.result.startswith("Not done")


def as_json(labels: FormalLabels) -> dict[str, Any]:
    return labels.model_dump(mode="json")


__all__ = ["FormalLabels", "PointLabel", "StepLabel", "label_trace", "labellable", "minimum_correction",
           "LABELLED_FAMILIES", "ErrorClass"]
