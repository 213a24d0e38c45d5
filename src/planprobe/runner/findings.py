"""What the solver model (``--model solver``, issue #27) found about a case, carried into the run.

The solver answers ``UNDERSPECIFIED: <what is missing>`` when the text it was shown does not
determine an answer. That is a finding about the family or the scaffold, not the model's failure,
so the run records it: ``trace.meta["solver"]`` when the episode ends, and the verdict's
``labels["solver"] = {"underspecified": [...]}`` when it is judged (``judge``); ``planprobe
show`` lists such cases. Only episodes whose model is the solver are read this way: another
model writing the marker is just text.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..schema import Case, Trace, Verdict
from ..solver.scaffolds import underspecified_in
from ..suites.registry import get_family

if TYPE_CHECKING:
    from .store import RunStore

SOLVER = "solver"
LABEL = "solver"


def note_solver_findings(trace: Trace) -> None:
    """Record in ``trace.meta`` what the solver said was under-specified (nothing for other models)."""
    if trace.model != SOLVER and SOLVER not in trace.models.values():
        return
    found = []
    # the episode's own messages, then each sub-episode's (a PMC supervisor or executor that found its
    # prompt short of what it needs says so in its own conversation)
    for m in [*trace.messages, *(m for e in trace.episodes for m in e.messages)]:
        if m.role == "assistant":
            what = underspecified_in(m.content)
            if what is not None and what not in found:
                found.append(what)
    if found:
        trace.meta[LABEL] = {"underspecified": found}


def judge(case: Case, trace: Trace) -> Verdict:
    """The family's verdict, with the solver's findings (if any) in its labels."""
    verdict = get_family(case.family).check(case, trace)
    found: Any = trace.meta.get(LABEL)
    if found:
        verdict = verdict.model_copy(update={"labels": {**verdict.labels, LABEL: found}})
    return verdict


def underspecified_rows(store: RunStore) -> list[tuple[str, int, list[str]]]:
    """(case id, trial, what was missing) for each result whose verdict carries a solver finding,
    in suite order."""
    out = []
    cur = store.db.execute("SELECT r.case_id, r.trial, r.verdict FROM results r JOIN cases c ON c.case_id = r.case_id "
                           "WHERE r.verdict LIKE '%underspecified%' ORDER BY c.ordinal, r.trial")
    for case_id, trial, verdict in cur:
        labels = json.loads(verdict).get("labels") or {}
        found = (labels.get(LABEL) or {}).get("underspecified")
        if found:
            out.append((case_id, int(trial), [str(x) for x in found]))
    return out


def underspecified_lines(rows: list[tuple[str, int, list[str]]], limit: int = 20) -> list[str]:
    """``show``'s lines: which cases the solver found under-specified, and what was missing."""
    if not rows:
        return []
    lines = [(f"solver: {len(rows)} result{'' if len(rows) == 1 else 's'} under-specified (the text shown did not "
             "determine an answer: a defect of the family or the scaffold):")]
    for case_id, trial, found in rows[:limit]:
        lines.append(f"  {case_id}" + (f" (trial {trial})" if trial else "") + f": {'; '.join(found)}")
    if len(rows) > limit:
        lines.append(f"  … and {len(rows) - limit} more ('planprobe show --json' lists them all)")
    return lines
