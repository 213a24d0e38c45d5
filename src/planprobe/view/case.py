"""One result as the case page shows it: the task with the clauses the verdict blames, the
trace as a timeline (each message, tool call, result and error with its role and step), the
verdict's evidence, the formal labels of ``planprobe label`` (E, PNR, budget PNR) on the
steps they name, PMC's sub-task graph, the modular agent's four sections, and the
re-rollouts of this result linked to it (and a re-rollout to its origin).

Reads stored JSON as plain data, one result by its primary key: fast on any run size.
Steps are numbered as the labels number them: step k is tool call k-1; step T+1 is the stop.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import PlanprobeError
from ..report.data import _highlights, clip
from ..report.subtask_graph import graph_layout
from ..runner.store import RunStore

LABELS_FILE = "labels.jsonl"  # written by ``planprobe label`` (cli/debug.py)


def read_labels(run_dir: Path, case_id: str, trial: int) -> dict[str, Any] | None:
    """The last formal labels of (case, trial) in RUN/labels.jsonl, if the run was labelled."""
    path = Path(run_dir) / LABELS_FILE
    if not path.is_file():
        return None
    found = None
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if case_id not in line:
                continue  # cheap pre-filter: a label line names its case
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict) and obj.get("case_id") == case_id and int(obj.get("trial", 0) or 0) == trial:
                found = obj
    return found


def _marks(labels: dict[str, Any] | None) -> dict[int, list[str]]:
    """step -> the labels placed on it."""
    out: dict[int, list[str]] = {}
    if not labels:
        return out
    points = [("E", (labels.get("critical") or {}).get("step")), ("PNR", (labels.get("pnr") or {}).get("step")),
              ("budget PNR", (labels.get("budget_pnr") or {}).get("step"))]
    for name, step in points:
        if isinstance(step, int):
            out.setdefault(step, []).append(name)
    return out


def _sections(trace: dict[str, Any]) -> list[dict[str, str]]:
    """The modular agent's memory / reflection / plan / action per assistant message."""
    if not str(trace.get("agent") or "").startswith("modular"):
        return []
    from ..debug.labels import module_texts
    from ..schema import Trace

    try:
        return module_texts(Trace.model_validate(trace))
    except ValueError:
        return []


def timeline(trace: dict[str, Any], labels: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Messages in order with the tool calls they made (result, error); calls no message
    names (agents acting on the environment directly) sit after the last message of their step."""
    calls = list(trace.get("tool_calls") or [])
    by_id = {c.get("call_id"): c for c in calls if c.get("call_id")}
    marks = _marks(labels)
    shown: set[int] = set()
    sections = _sections(trace)
    items: list[dict[str, Any]] = []

    def call_item(c: dict[str, Any]) -> dict[str, Any]:
        index = int(c.get("index", 0))
        shown.add(index)
        return {"kind": "call", "index": index, "step_label": index + 1, "name": str(c.get("name", "")),
                "arguments": clip(c.get("arguments")), "result": clip(c.get("result")),
                "error": str(c.get("error") or ""), "role": str(c.get("agent") or ""), "step": c.get("step"),
                "episode": str(c.get("episode") or ""), "marks": marks.get(index + 1, [])}

    assistant = 0
    for m in trace.get("messages") or []:
        role = str(m.get("role", ""))
        if role == "tool" and m.get("tool_call_id") in by_id and by_id[m["tool_call_id"]].get("index") in shown:
            continue  # its result is shown on the call
        item = {"kind": "message", "role": role, "agent": str(m.get("agent") or ""), "step": m.get("step"),
                "content": clip(m.get("content")), "calls": [], "sections": None}
        if role == "assistant":
            if assistant < len(sections) and any(sections[assistant].values()):
                item["sections"] = sections[assistant]
            assistant += 1
        for tc in m.get("tool_calls") or []:
            call = by_id.get(tc.get("id")) if isinstance(tc, dict) else None
            if call is not None:
                item["calls"].append(call_item(call))
            elif isinstance(tc, dict):  # a call the environment never received
                fn = tc.get("function") or {}
                item["calls"].append({"kind": "call", "index": None, "step_label": None, "name": str(fn.get("name", "")),
                                      "arguments": clip(fn.get("arguments")), "result": "", "error": "",
                                      "role": "", "step": None, "episode": "", "marks": []})
        items.append(item)
    for c in calls:
        if int(c.get("index", 0)) in shown:
            continue
        item = call_item(c)
        step = c.get("step")
        at = len(items)
        if isinstance(step, int):
            for k in range(len(items) - 1, -1, -1):
                s = items[k].get("step")
                if isinstance(s, int) and s <= step:
                    at = k + 1
                    break
        items.insert(at, item)
    stop_step = len(calls) + 1
    items.append({"kind": "stop", "status": str(trace.get("status", "")), "final": clip(trace.get("final_answer")),
                  "errors": [f"{e.get('kind', '')}: {clip(e.get('message'), 500)}" for e in trace.get("errors") or []],
                  "step_label": stop_step, "marks": marks.get(stop_step, [])})
    return items


def task_pieces(task: str, spans: list[list[int]]) -> list[tuple[str, bool]]:
    """The task cut into (text, highlighted) pieces; overlapping spans merge."""
    merged: list[list[int]] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    out, at = [], 0
    for a, b in merged:
        if a > at:
            out.append((task[at:a], False))
        out.append((task[a:b], True))
        at = b
    if at < len(task):
        out.append((task[at:], False))
    return out


def case_page(run_dir: Path, case_id: str, trial: int, attempt: int | None = None) -> dict[str, Any]:
    """Everything the case page shows; ``attempt`` picks a stored re-rollout of the result instead."""
    store = RunStore(run_dir)
    try:
        raw_case = store.db.execute("SELECT json FROM cases WHERE case_id = ?", (case_id,)).fetchone()
        if raw_case is None:
            raise PlanprobeError(f"{run_dir}: no case {case_id!r} in this run")
        row = store.db.execute("SELECT trace, verdict FROM results WHERE case_id = ? AND trial = ?",
                               (case_id, trial)).fetchone()
        rerollouts = []
        if store.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rerollouts'").fetchone():
            rerollouts = store.db.execute(
                "SELECT attempt, steps, passed, primary_error, trace, verdict FROM rerollouts "
                "WHERE case_id = ? AND trial = ? ORDER BY attempt", (case_id, trial)).fetchall()
    finally:
        store.close()
    case = json.loads(raw_case[0])
    attempts = [{"attempt": a, "steps": s, "passed": bool(p), "error": e or ""} for a, s, p, e, _t, _v in rerollouts]
    if attempt is not None:
        pick = [r for r in rerollouts if r[0] == attempt]
        if not pick:
            raise PlanprobeError(f"{run_dir}: case {case_id!r} trial {trial} has no re-rollout {attempt}")
        row = (pick[0][4], pick[0][5])
    if row is None:
        return {"case": case, "pending": True, "attempts": attempts, "pieces": [(case.get("task") or "", False)]}
    trace, verdict = json.loads(row[0]), json.loads(row[1])
    labels = read_labels(run_dir, case_id, trial) if attempt is None else None
    origin = trace.get("origin") if isinstance(trace.get("origin"), dict) else None
    task = str(case.get("task") or "")
    return {
        "case": case, "pending": False, "trace": trace, "verdict": verdict, "attempts": attempts,
        "pieces": task_pieces(task, _highlights(case, verdict)),
        "timeline": timeline(trace, labels), "labels": labels, "origin": origin,
        "graph": graph_layout(trace),
        "episodes": [{"id": str(e.get("id", "")), "agent": str(e.get("agent", "")), "task": clip(e.get("task")),
                      "messages": [{"role": str(m.get("role", "")), "content": clip(m.get("content"))}
                                   for m in e.get("messages") or []],
                      "final": clip(e.get("final_answer"))} for e in trace.get("episodes") or []],
    }
