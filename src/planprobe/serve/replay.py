"""``planprobe check``: traces recorded elsewhere, graded like a run.

Two formats are read, one conversation a line: planprobe's own ``Trace`` JSON, and the
OpenAI chat-messages format ``{"case_id": …, "messages": [...], "usage": {…}?}`` (assistant
``tool_calls`` with ``tool`` results). The recorded results are not trusted: every tool call
is replayed, in order, into a fresh environment of its case, whose log is the ground truth
the family judges. A call of a tool the case does not have is recorded as such (an
act_error for that case), never a crash. Anything unreadable is one ``FILE:LINE: field``
error before anything is graded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..environment import Environment
from ..errors import PlanprobeError
from ..schema import Case, Message, Trace, TraceStatus, Usage
from ..suites.io import describe_validation_error, parse_json_line
from .recording import as_message

OPENAI = "openai"
PLANPROBE = "planprobe"


@dataclass
class Recorded:
    """One readable line: the case it is for and what to replay."""

    case_id: str
    kind: str  # OPENAI or PLANPROBE
    line: int
    messages: list[dict[str, Any]] = field(default_factory=list)
    trace: Trace | None = None
    usage: Usage | None = None


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
        try:
            recorded_usage = Usage(model_calls=int(usage.get("model_calls", 0)),
                                   prompt_tokens=int(usage.get("prompt_tokens", 0)),
                                   completion_tokens=int(usage.get("completion_tokens", 0)))
        except (AttributeError, TypeError, ValueError):
            raise PlanprobeError(f"{where}: usage: expected an object of token counts") from None
    return Recorded(case_id, OPENAI, 0, messages=messages, usage=recorded_usage)


def read_traces(path: Path, cases: dict[str, Case]) -> list[Recorded]:
    """Every line of ``path``, checked; the first problem is raised naming FILE:LINE: field."""
    out: list[Recorded] = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path}:{n}"
            data = parse_json_line(line, where)
            if not isinstance(data, dict):
                raise PlanprobeError(f"{where}: expected a JSON object (a trace or a conversation)")
            if "tool_calls" in data and "messages" in data and "agent" in data:  # planprobe's trace
                try:
                    trace = Trace.model_validate(data)
                except ValidationError as exc:
                    raise PlanprobeError(f"{where}: {describe_validation_error(exc)}") from None
                rec = Recorded(trace.case_id, PLANPROBE, n, trace=trace)
            else:
                rec = _openai_line(data, where)
                rec.line = n
            if rec.case_id not in cases:
                raise PlanprobeError(f"{where}: case_id: no case {rec.case_id!r} in the suite")
            out.append(rec)
    if not out:
        raise PlanprobeError(f"{path}: no traces in the file")
    return out


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
        if rec.trace is not None:
            return replay_trace(rec.trace, env)
        return replay_messages(rec.messages, env, rec.usage)


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
