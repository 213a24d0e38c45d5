"""``planprobe check``: traces recorded elsewhere, graded like a run.

Three formats are read: one conversation a line, planprobe's own ``Trace`` JSON or the
OpenAI chat-messages format ``{"case_id": …, "messages": [...], "usage": {…}?}`` (assistant
``tool_calls`` with ``tool`` results); and OpenTelemetry spans as OTLP/JSON
(``integrations/otel_runs.py``), each trace an agent run. The recorded results are not trusted: every tool call
is replayed, in order, into a fresh environment of its case, whose log is the ground truth
the family judges. A call of a tool the case does not have is recorded as such (an
act_error for that case), never a crash. Anything unreadable is one ``FILE:LINE: field``
error before anything is graded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..environment import Environment
from ..errors import PlanprobeError
from ..schema import Case, Message, Trace, TraceError, TraceStatus, Usage
from ..suites.io import describe_validation_error, numbered_lines, parse_json_line
from .recording import as_message

OPENAI = "openai"
PLANPROBE = "planprobe"
OTEL = "otel"
FORMATS = ("auto", PLANPROBE, OPENAI, OTEL)
USAGE_COUNTS = ("model_calls", "prompt_tokens", "completion_tokens")  # read from a conversation's usage


@dataclass
class Recorded:
    """One readable line: the case it is for and what to replay."""

    case_id: str
    kind: str  # OPENAI or PLANPROBE
    line: int
    messages: list[dict[str, Any]] = field(default_factory=list)
    trace: Trace | None = None
    usage: Usage | None = None
    meta: dict[str, Any] = field(default_factory=dict)  # joins the replayed trace's meta (e.g. the OTel trace id)
    status: TraceStatus = TraceStatus.COMPLETED  # how the recorded episode ended (OTel: planprobe.status)
    errors: list[TraceError] = field(default_factory=list)


def _openai_line(data: dict[str, Any], where: str) -> Recorded:
    case_id = data.get("case_id")
    if not isinstance(case_id, str) or not case_id:
        raise PlanprobeError(f"{where}: case_id: expected the id of a case of the suite (a string)")
    messages = data.get("messages")
    if not isinstance(messages, list):
        raise PlanprobeError(f"{where}: messages: expected a list of chat messages")
    for i, m in enumerate(messages):
        at = f"{where}: messages[{i}]"
        if not isinstance(m, dict):
            raise PlanprobeError(f"{at}: expected an object")
        if m.get("role") not in ("system", "developer", "user", "assistant", "tool"):
            raise PlanprobeError(f"{at}.role: expected system, developer, user, assistant or tool, got "
                                 f"{m.get('role')!r}")
        calls = m.get("tool_calls")
        if calls is None:
            continue
        if not isinstance(calls, list):
            raise PlanprobeError(f"{at}.tool_calls: expected a list")
        for j, tc in enumerate(calls):
            fn = tc.get("function") if isinstance(tc, dict) else None
            if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
                raise PlanprobeError(f"{at}.tool_calls[{j}].function.name: expected a string")
            if not isinstance(fn.get("arguments", ""), (str, dict)):
                raise PlanprobeError(f"{at}.tool_calls[{j}].function.arguments: expected a JSON string or an object")
    usage = data.get("usage")
    recorded_usage = None
    if usage is not None:
        if not isinstance(usage, dict):
            raise PlanprobeError(f"{where}: usage: expected an object of token counts")
        counts = {key: token_count(usage.get(key), f"{where}: usage.{key}") for key in USAGE_COUNTS}
        recorded_usage = Usage(**counts)
    return Recorded(case_id, OPENAI, 0, messages=messages, usage=recorded_usage)


def token_count(value: Any, where: str) -> int:
    """A recorded count (tokens, model calls): a whole number, 0 or more; absent (or null) is 0.
    A negative, fractional, boolean or text count is refused, naming ``where`` (file:line: field)."""
    if value is None:
        return 0
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if type(value) is not int or value < 0:
        raise PlanprobeError(f"{where}: expected a whole number of 0 or more, got {json.dumps(value)}")
    return value


def _check_trace_usage(data: dict[str, Any], where: str) -> None:
    """A planprobe trace's counts as written (pydantic would take -5, true or "5" as given)."""
    places: list[tuple[str, Any]] = [("usage", data.get("usage"))]
    episodes = data.get("episodes")
    if isinstance(episodes, list):
        places += [(f"episodes[{i}].usage", e.get("usage")) for i, e in enumerate(episodes) if isinstance(e, dict)]
    for name, usage in places:
        if not isinstance(usage, dict):
            continue  # absent, or the schema names the wrong type
        for key in ("model_calls", "cached_calls", *USAGE_COUNTS[1:]):
            token_count(usage.get(key), f"{where}: {name}.{key}")
        cost = usage.get("cost_usd")
        if cost is not None and (isinstance(cost, bool) or not isinstance(cost, (int, float)) or cost < 0):
            raise PlanprobeError(f"{where}: {name}.cost_usd: expected a cost of 0 or more, got {json.dumps(cost)}")


def _parse_line(line: str, where: str, lineno: int) -> Recorded:
    data = parse_json_line(line, where)
    if not isinstance(data, dict):
        raise PlanprobeError(f"{where}: expected a JSON object (a trace or a conversation)")
    if "tool_calls" in data and "messages" in data and "agent" in data:  # planprobe's trace
        _check_trace_usage(data, where)
        try:
            trace = Trace.model_validate(data)
        except ValidationError as exc:
            raise PlanprobeError(f"{where}: {describe_validation_error(exc)}") from None
        return Recorded(trace.case_id, PLANPROBE, lineno, trace=trace)
    rec = _openai_line(data, where)
    rec.line = lineno
    return rec


def read_traces(path: Path, cases: dict[str, Case], fmt: str = "auto") -> list[Recorded]:
    """Every line of ``path``, checked; the first problem is raised naming FILE:LINE: field.
    ``fmt``: one of FORMATS; ``auto`` reads OTLP/JSON when the file starts as one, else each
    line as planprobe's or OpenAI's format. Every case must have as many traces as the others
    (its trials): a missing trial is not the agent's failure, so an uneven file is refused
    rather than graded."""
    if fmt not in FORMATS:
        raise PlanprobeError(f"--format {fmt!r}: expected one of {', '.join(FORMATS)}")
    out: list[Recorded] = []
    if fmt == OTEL or fmt == "auto" and _looks_like_otlp(path):  # the OTel readers load only for OTel files
        from ..integrations.otel_runs import read_otel_traces

        out = read_otel_traces(path, cases)
    else:
        with open(path, "rb") as f:
            for n, line in numbered_lines(f, str(path)):
                if not line.strip():
                    continue
                where = f"{path}:{n}"
                rec = _parse_line(line, where, n)
                if fmt != "auto" and rec.kind != fmt:
                    raise PlanprobeError(f"{where}: expected a trace in the {fmt} format (--format {fmt}), got one "
                                         f"in the {rec.kind} format")
                if rec.case_id not in cases:
                    raise PlanprobeError(f"{where}: case_id: no case {rec.case_id!r} in the suite")
                out.append(rec)
    if not out:
        raise PlanprobeError(f"{path}: no traces in the file")
    _check_even_trials(path, out)
    return out


def _looks_like_otlp(path: Path) -> bool:
    from ..integrations.otlp_json import looks_like_otlp

    return looks_like_otlp(path)


def _check_even_trials(path: Path, recorded: list[Recorded]) -> None:
    """One trial per trace: each case needs the same number, or some trials would be missing."""
    by_case: dict[str, list[Recorded]] = {}
    for rec in recorded:
        by_case.setdefault(rec.case_id, []).append(rec)
    most = max(len(recs) for recs in by_case.values())
    short = next((recs for recs in by_case.values() if len(recs) < most), None)
    if short is None:
        return
    full = next(cid for cid, recs in by_case.items() if len(recs) == most)
    fewer = sum(1 for recs in by_case.values() if len(recs) < most)
    raise PlanprobeError(
        f"{path}:{short[-1].line}: case_id: case {short[0].case_id!r} has {len(short)} trace(s) (the last on this "
        f"line) where case {full!r} has {most}; each trace is one trial, so every case needs the same number "
        f"({fewer} case(s) have fewer): add the missing traces, or leave out the extra ones")


class ReplayAgent:
    """The run engine's agent for ``check``: replays the recorded trace of (case, trial)."""

    def __init__(self, recorded: list[Recorded]):
        self.name = "check"
        self._by_key: dict[tuple[str, int], Recorded] = {}
        counts: dict[str, int] = {}
        for rec in recorded:
            trial = counts.get(rec.case_id, 0)
            counts[rec.case_id] = trial + 1
            self._by_key[(rec.case_id, trial)] = rec
        self.trials = max(counts.values())

    async def __call__(self, case: Case, env: Environment) -> str | None:
        rec = self._by_key.get((case.id, env.trace.trial))
        if rec is None:
            raise PlanprobeError(f"no trace was recorded for trial {env.trace.trial} of this case")
        env.trace.meta["recorded_at_line"] = rec.line
        env.trace.meta.update(rec.meta)
        if rec.trace is not None:
            return replay_trace(rec.trace, env)
        answer = replay_messages(rec.messages, env, rec.usage)
        if rec.status != TraceStatus.COMPLETED:  # the episode ended on a limit there: judged so here too
            env.trace.status = rec.status
            env.trace.errors = list(rec.errors)
        return answer


def replay_trace(recorded: Trace, env: Environment) -> str | None:
    """planprobe's format: the calls run again in order (restarts where the attempt grows)."""
    for call in recorded.tool_calls:
        while env.attempt < call.attempt:
            env.restart()
        env.call(call.name, call.arguments, call.call_id)
    trace = env.trace
    trace.messages = list(recorded.messages)
    trace.episodes = list(recorded.episodes)
    trace.usage = recorded.usage
    trace.iterations = recorded.iterations
    trace.model = recorded.model
    trace.meta["recorded_agent"] = recorded.agent
    if recorded.status != TraceStatus.COMPLETED:  # the episode ended on a limit there: judged so here too
        trace.status = recorded.status
        trace.errors = list(recorded.errors)
    return recorded.final_answer


def replay_messages(messages: list[dict[str, Any]], env: Environment, usage: Usage | None) -> str | None:
    """The chat-messages format: each assistant tool call runs in order; the last assistant
    message without tool calls is the final answer."""
    answer: str | None = None
    for raw in messages:
        message: Message = as_message(raw)
        env.log(message)
        if message.role != "assistant":
            continue
        env.trace.iterations += 1
        if not message.tool_calls:
            answer = message.content
            continue
        answer = None
        for tc in message.tool_calls:
            fn = tc.get("function") or {}
            env.call(fn.get("name", ""), fn.get("arguments", ""), call_id=tc.get("id"))
    if usage is not None:
        env.add_usage(usage)
    return answer
