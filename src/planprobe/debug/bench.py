"""AgentDebug's trajectory format: writing planprobe's failed traces in it, reading it back.

AgentDebug's detector (``detector/fine_grained_analysis.py``) reads one JSON
object per trajectory: ``metadata`` (``task_id``, ``task``, ``success`` or
``won``, ``environment``) and ``messages`` (or the older ``chat_history``), a
list of ``{role, content}`` in which every ``assistant`` message is one step and
the ``user`` message after it is that step's observation. ``errorbench`` writes
one such object per line (JSONL) and adds:

* ``critical_error`` — the formal critical step in the field names of the
  detector's own output (``critical_step``, ``critical_module``, ``error_type``,
  ``evidence``), so a detector's answer and the truth compare field by field;
* ``labels`` — planprobe's full formal labels (``debug/labels.FormalLabels``).

A modular-agent trace already is this format (one prompt and one reply per
step). Other agents' traces are rewritten into it: one assistant message per
tool call, ``<action>tool: NAME parameters: ARGS</action>`` (with the agent's
own text of that turn as ``<plan>`` where it had any), the call's result as the
next user message, and ``<answer>…</answer>`` for the final answer. Step k is
then the k-th assistant message in both cases.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import PlanprobeError
from ..schema import Case, Trace
from ..suites.spec_reading import field_error
from .labels import FormalLabels

ROLES = ("system", "user", "assistant", "tool")


def _tools_text(case: Case) -> str:
    return "\n".join(f"- {t.name}: {t.description}" for t in case.tools)


def trajectory_messages(case: Case, trace: Trace) -> list[dict[str, str]]:
    if trace.agent.startswith("modular"):
        return [{"role": m.role, "content": m.content or ""} for m in trace.messages if m.role in ROLES]
    out: list[dict[str, str]] = []
    if case.system:
        out.append({"role": "system", "content": case.system})
    intro = f"Your task is: {case.task}"
    if case.tools:
        intro += "\nAvailable tools:\n" + _tools_text(case)
    out.append({"role": "user", "content": intro})
    said: dict[str, str] = {}  # call id -> the text the agent wrote in the turn that made the call
    for m in trace.messages:
        if m.role == "assistant" and m.tool_calls and (m.content or "").strip():
            for tc in m.tool_calls:
                if tc.get("id"):
                    said.setdefault(str(tc["id"]), (m.content or "").strip())
    for call in trace.tool_calls:
        plan = said.get(call.call_id or "", "")
        action = f"<action>tool: {call.name} parameters: {call.arguments}</action>"
        out.append({"role": "assistant", "content": (f"<plan>{plan}</plan>\n" if plan else "") + action})
        out.append({"role": "user", "content": f"Observation: {call.result}"})
    if trace.final_answer is not None:
        out.append({"role": "assistant", "content": f"<answer>{trace.final_answer}</answer>"})
    return out


def _messages(case: Case, trace: Trace) -> list[dict[str, str]]:
    """A holistic plan is written out step by step, as its labels count them."""
    from .views import WRAPPED, view_of

    if case.family in WRAPPED:
        view = view_of(case, trace)
        if view.unreadable is None:
            return trajectory_messages(view.case, view.trace)
        return [{"role": "user", "content": case.task}, {"role": "assistant", "content": trace.final_answer or ""}]
    return trajectory_messages(case, trace)


def bench_record(case: Case, trace: Trace, labels: FormalLabels, run: str = "") -> dict[str, Any]:
    crit = labels.critical
    return {
        "metadata": {
            "task_id": case.id, "task": case.task, "success": False, "won": False, "environment": case.family,
            "source": "planprobe", "run": run, "agent": trace.agent, "model": trace.model, "trial": trace.trial,
            "steps": labels.steps, "status": trace.status.value, "errors": labels.errors,
        },
        "messages": _messages(case, trace),
        "critical_error": None if crit is None else {
            "critical_step": crit.step, "critical_module": crit.module, "error_type": crit.type,
            "evidence": crit.evidence,
        },
        "labels": labels.model_dump(mode="json"),
    }


# -- reading ---------------------------------------------------------------------


def _records(path: Path) -> Iterator[tuple[int, Any]]:
    """(line, object): one per line of a .jsonl file; one object (or each item of a list) of a .json file."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise PlanprobeError(f"{path}: not UTF-8 text ({exc.reason})") from None
    if path.suffix.lower() == ".jsonl":
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                yield n, json.loads(line)
            except ValueError as exc:
                raise PlanprobeError(f"{path}:{n}: not valid JSON ({exc})") from None
        return
    decoder = json.JSONDecoder()
    start = len(text) - len(text.lstrip())
    if text[start:start + 1] != "[":
        try:
            obj, end = decoder.raw_decode(text, start)
        except ValueError as exc:
            raise PlanprobeError(f"{path}:{_line(text, getattr(exc, 'pos', 0))}: not valid JSON ({exc})") from None
        if text[end:].strip():
            raise PlanprobeError(f"{path}:{_line(text, end)}: extra data after the trajectory "
                                 "(one object per file, a list of objects, or .jsonl with one per line)")
        yield _line(text, start), obj
        return
    pos = start + 1
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text):
            raise PlanprobeError(f"{path}:{_line(text, pos)}: the list is not closed with ']'")
        if text[pos] == "]":
            return
        try:
            obj, end = decoder.raw_decode(text, pos)
        except ValueError as exc:
            raise PlanprobeError(f"{path}:{_line(text, getattr(exc, 'pos', pos))}: not valid JSON ({exc})") from None
        yield _line(text, pos), obj
        pos = end


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _check(where: str, obj: Any) -> dict[str, Any]:
    """One trajectory, validated; returns it normalised (``messages``, ``metadata``)."""
    if not isinstance(obj, dict):
        raise PlanprobeError(f"{where}: expected a JSON object with 'metadata' and 'messages'")
    key = "messages" if "messages" in obj else "chat_history" if "chat_history" in obj else None
    if key is None:
        raise PlanprobeError(f"{where}: field 'messages': missing (AgentDebug's trajectories have 'messages')")
    messages = obj[key]
    if not isinstance(messages, list) or not messages:
        raise PlanprobeError(f"{where}: field '{key}': expected a non-empty list of messages")
    clean = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            raise PlanprobeError(f"{where}: field '{key}.{i}': expected an object with 'role' and 'content'")
        if m.get("role") not in ROLES:
            raise PlanprobeError(f"{where}: field '{key}.{i}.role': expected one of {', '.join(ROLES)}, "
                                 f"got {m.get('role')!r}")
        if not isinstance(m.get("content"), str):
            raise PlanprobeError(f"{where}: field '{key}.{i}.content': expected text")
        clean.append({"role": m["role"], "content": m["content"]})
    steps = sum(1 for m in clean if m["role"] == "assistant")
    if steps == 0:
        raise PlanprobeError(f"{where}: field '{key}': no assistant message (each step is one assistant message)")
    meta = obj.get("metadata", {})
    if not isinstance(meta, dict):
        raise PlanprobeError(f"{where}: field 'metadata': expected an object")
    for k in ("task_id", "task", "environment"):
        if k in meta and not isinstance(meta[k], (str, int)):
            raise PlanprobeError(f"{where}: field 'metadata.{k}': expected text")
    crit = obj.get("critical_error")
    if crit is None and any(k in obj for k in ("critical_step", "critical_module", "error_type")):
        crit = {k: obj.get(k) for k in ("critical_step", "critical_module", "error_type", "evidence")}
    if crit is not None:
        crit = _check_critical(where, crit, steps)
    labels = obj.get("labels")
    if labels is not None:
        try:
            labels = FormalLabels.model_validate(labels).model_dump(mode="json")
        except ValidationError as exc:
            raise PlanprobeError(f"{where}: {field_error(exc, ('labels',))}") from None
    return {"metadata": meta, "messages": clean, "critical_error": crit, "labels": labels}


def _check_critical(where: str, crit: Any, steps: int) -> dict[str, Any]:
    from .taxonomy import find, modules

    if not isinstance(crit, dict):
        raise PlanprobeError(f"{where}: field 'critical_error': expected an object")
    step = crit.get("critical_step")
    if isinstance(step, bool) or not isinstance(step, int) or not 1 <= step <= steps + 1:
        raise PlanprobeError(f"{where}: field 'critical_error.critical_step': expected a step from 1 to "
                             f"{steps + 1}, got {step!r}")
    module = crit.get("critical_module")
    if module not in modules():
        raise PlanprobeError(f"{where}: field 'critical_error.critical_module': expected one of "
                             f"{', '.join(modules())}, got {module!r}")
    if find(str(module), str(crit.get("error_type"))) is None:
        from .taxonomy import types_of

        raise PlanprobeError(f"{where}: field 'critical_error.error_type': {crit.get('error_type')!r} is not a "
                             f"{module} error (expected one of {', '.join(types_of(str(module)))})")
    evidence = crit.get("evidence")
    return {"critical_step": step, "critical_module": module, "error_type": crit["error_type"],
            "evidence": evidence if isinstance(evidence, str) else ""}


def read_trajectories(path: Path) -> Iterator[dict[str, Any]]:
    """Every trajectory in an AgentDebug file (.json: one or a list; .jsonl: one per line), checked."""
    for line, obj in _records(path):
        yield _check(f"{path}:{line}", obj)
