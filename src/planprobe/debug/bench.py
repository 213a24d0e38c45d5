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

Written so that AgentDebug's own reader (``parse_trajectory``) sees what the
labels judge: the task after "Your task is:" on one line (the reader keeps only
that line), the last step's observation even when the run ended at the limit,
and a critical step that is one of the trajectory's steps (a stop without an
answer is the last step, as AgentDebug's detector marks ``step_limit``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import PlanprobeError
from ..schema import Case, Trace
from ..suites.io import parse_json_line
from ..suites.spec_reading import field_error
from .labels import FormalLabels

ROLES = ("system", "user", "assistant", "tool")
TASK_INTRO = "Your task is: "
LINE_BREAK = " / "  # how a line break of the task is written on its one line


def one_line(task: str) -> str:
    """The task on one line: AgentDebug's reader keeps only the line after "Your task is:"."""
    return LINE_BREAK.join(line.strip() for line in task.splitlines() if line.strip())


def _tools_text(case: Case) -> str:
    return "\n".join(f"- {t.name}: {t.description}" for t in case.tools)


def _modular_messages(case: Case, trace: Trace) -> list[dict[str, str]]:
    """A modular trace as recorded, but for two things AgentDebug's reader would lose: the task is
    put on one line in each prompt, and a run that ended after a call (the limit) gets that call's
    observation as a last user message (no next prompt was rendered to show it)."""
    said, flat = f"{TASK_INTRO}{case.task}", f"{TASK_INTRO}{one_line(case.task)}"
    out = [{"role": m.role, "content": (m.content or "").replace(said, flat) if m.role == "user" else m.content or ""}
           for m in trace.messages if m.role in ROLES]
    replies = sum(1 for m in out if m["role"] == "assistant")
    calls = trace.tool_calls
    if out and out[-1]["role"] == "assistant" and trace.final_answer is None and calls and replies == len(calls):
        out.append({"role": "user", "content": f"Observation: {calls[-1].result}"})
    return out


def trajectory_messages(case: Case, trace: Trace) -> list[dict[str, str]]:
    if trace.agent.startswith("modular"):
        return _modular_messages(case, trace)
    out: list[dict[str, str]] = []
    if case.system:
        out.append({"role": "system", "content": case.system})
    intro = f"{TASK_INTRO}{one_line(case.task)}"
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
        return [{"role": "user", "content": f"{TASK_INTRO}{one_line(case.task)}"},
                {"role": "assistant", "content": trace.final_answer or ""}]
    return trajectory_messages(case, trace)


def trajectory_step(label_step: int, steps: int) -> int | None:
    """A label's step as a step of the trajectory: step T+1 of a run that stopped without an
    answer (limit, crash, service failure) has no message of its own, and AgentDebug attributes
    such an ending to the last step the trajectory has; a trajectory with no step has none."""
    return min(label_step, steps) if steps > 0 else None


def critical_error(labels: FormalLabels | None, steps: int) -> dict[str, Any] | None:
    """The formal critical step in AgentDebug's field names, on the trajectory's ``steps`` steps."""
    crit = labels.critical if labels is not None else None
    step = None if crit is None else trajectory_step(crit.step, steps)
    if crit is None or step is None:
        return None
    return {"critical_step": step, "critical_module": crit.module, "error_type": crit.type,
            "evidence": crit.evidence}


def step_count(messages: list[dict[str, str]]) -> int:
    return sum(1 for m in messages if m["role"] == "assistant")


def bench_record(case: Case, trace: Trace, labels: FormalLabels, run: str = "") -> dict[str, Any]:
    messages = _messages(case, trace)
    return {
        "metadata": {
            "task_id": case.id, "task": case.task, "success": False, "won": False, "environment": case.family,
            "source": "planprobe", "run": run, "agent": trace.agent, "model": trace.model, "trial": trace.trial,
            "steps": labels.steps, "status": trace.status.value, "errors": labels.errors,
        },
        "messages": messages,
        "critical_error": critical_error(labels, step_count(messages)),
        "labels": labels.model_dump(mode="json"),
    }


# -- reading ---------------------------------------------------------------------


def _records(path: Path) -> Iterator[tuple[int, Any]]:
    """(line, object): one per line of a .jsonl file; one object (or each item of a list) of a .json file.
    A UTF-8 byte-order mark is skipped; a file with no trajectory at all is an error."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PlanprobeError(f"{path}: not UTF-8 text ({exc.reason})") from None
    found = 0
    for line, obj in (_jsonl(path, text) if path.suffix.lower() == ".jsonl" else _json(path, text)):
        found += 1
        yield line, obj
    if not found:
        raise PlanprobeError(f"{path}: no trajectory in the file ({'it is empty' if not text.strip() else 'an empty list'})")


def _jsonl(path: Path, text: str) -> Iterator[tuple[int, Any]]:
    for n, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield n, parse_json_line(line, f"{path}:{n}")


def _json(path: Path, text: str) -> Iterator[tuple[int, Any]]:
    decoder = json.JSONDecoder()
    start = len(text) - len(text.lstrip())
    if not text.strip():
        return
    if text[start:start + 1] != "[":
        obj, end = _decode(decoder, path, text, start)
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
        obj, end = _decode(decoder, path, text, pos)
        yield _line(text, pos), obj
        pos = end


def _decode(decoder: json.JSONDecoder, path: Path, text: str, pos: int) -> tuple[Any, int]:
    try:
        return decoder.raw_decode(text, pos)
    except ValueError as exc:
        raise PlanprobeError(f"{path}:{_line(text, getattr(exc, 'pos', pos))}: not valid JSON ({exc})") from None
    except RecursionError:
        raise PlanprobeError(f"{path}:{_line(text, pos)}: JSON nested too deeply to read") from None


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
    steps = step_count(clean)  # 0 is a trajectory too (AgentDebug reads it): it has no step to name
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
            parsed = FormalLabels.model_validate(labels)
        except ValidationError as exc:
            raise PlanprobeError(f"{where}: {field_error(exc, ('labels',))}") from None
        _check_labels(where, parsed, crit, steps)
        labels = parsed.model_dump(mode="json")
    return {"metadata": meta, "messages": clean, "critical_error": crit, "labels": labels}


def _check_critical(where: str, crit: Any, steps: int) -> dict[str, Any]:
    from .taxonomy import find, modules

    if not isinstance(crit, dict):
        raise PlanprobeError(f"{where}: field 'critical_error': expected an object")
    step = crit.get("critical_step")
    if steps == 0:
        raise PlanprobeError(f"{where}: field 'critical_error': the trajectory has no step (no assistant message) "
                             "for it to name; write null")
    if isinstance(step, bool) or not isinstance(step, int) or not 1 <= step <= steps:
        raise PlanprobeError(f"{where}: field 'critical_error.critical_step': expected one of the trajectory's "
                             f"steps, 1 to {steps} (one per assistant message), got {step!r}")
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


def _check_labels(where: str, labels: FormalLabels, crit: dict[str, Any] | None, steps: int) -> None:
    """Numbers a schema cannot bound, and the agreement of ``critical_error`` with ``labels.critical``
    (the one is the other on the trajectory's steps: ``critical_error``)."""
    t = labels.steps
    if t < 0:
        raise PlanprobeError(f"{where}: field 'labels.steps': expected the number of calls (0 or more), got {t}")
    if labels.step_limit is not None and labels.step_limit < 1:
        raise PlanprobeError(f"{where}: field 'labels.step_limit': expected 1 or more, got {labels.step_limit}")
    points = [("labels.critical.step", labels.critical.step if labels.critical else None),
              ("labels.pnr.step", labels.pnr.step),
              ("labels.budget_pnr.step", labels.budget_pnr.step if labels.budget_pnr else None)]
    points += [(f"labels.labels.{i}.step", x.step) for i, x in enumerate(labels.labels)]
    points += [(f"labels.correction.{i}", s) for i, s in enumerate(labels.correction or [])]
    for name, step in points:
        if step is not None and not 1 <= step <= t + 1:
            raise PlanprobeError(f"{where}: field '{name}': expected a step from 1 to {t + 1} "
                                 f"(labels.steps + 1), got {step}")
    want = critical_error(labels, steps)
    if crit is None or want is None:
        if crit is not None:
            raise PlanprobeError(f"{where}: field 'critical_error': given, but labels.critical is null")
        return
    for key in ("critical_step", "critical_module", "error_type"):
        if crit[key] != want[key]:
            raise PlanprobeError(f"{where}: field 'critical_error.{key}': {crit[key]!r} contradicts labels.critical "
                                 f"({want[key]!r} on this trajectory's {steps} steps)")


def read_trajectories(path: Path) -> Iterator[dict[str, Any]]:
    """Every trajectory in an AgentDebug file (.json: one or a list; .jsonl: one per line), checked."""
    for line, obj in _records(path):
        where = f"{path}:{line}"
        try:
            yield _check(where, obj)
        except RecursionError:
            raise PlanprobeError(f"{where}: the trajectory is nested too deeply to read") from None
