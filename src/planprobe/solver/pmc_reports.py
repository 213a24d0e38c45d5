"""What the solver writes when it plays a PMC executor, and how its other roles read it back.

PMC's roles talk only through text: an executor's final reply is its report, the supervisor sees the
reports of a sub-task's direct dependencies, the deliverer sees every report. The executor prompt asks
for a report "in full detail … names, numbers, times, prices exactly as the tools gave them, and leave
nothing out"; the solver keeps that literally, as a careful model would, in a form it can read back:

    Report: every call I made, one JSON object a line (tool, arguments, result), then my answer.
    {"tool": "AccommodationSearch", "arguments": {"city": "Ververlo"}, "result": "…"}
    {"answer": "…"}

One JSON object a line, so a result holding any text (a table, a line that looks like a header) stays
inside its line. The supervisor's rewrite carries the facts of the dependencies' reports into the
sub-task under ``FACTS`` (the same lines), and an executor's view takes them as calls already made.
A report in another form (another model's prose) is not relied on: the roles that need its facts say
they are missing (under-specified), never guess.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .base import Observed, Step

REPORT = "Report: every call I made, one JSON object a line (tool, arguments, result), then my answer."
# an entry of a list of results: "- <id>: " (the supervisor's) or "- <id> (<description>): " (the
# deliverer's; a description may span lines, but no line of it starts with "- ")
_ENTRY = re.compile(r"(?:^|\n)- (\S+?)(?: \((?:(?!\n- ).)*?\))?: " + re.escape(REPORT) + "\n", re.DOTALL)
FACTS = "What the sub-tasks it depends on found, one JSON object a line (tool, arguments, result):"


@dataclass(frozen=True)
class Report:
    """A report read back: the calls with their results, and the answer (None: the report has none)."""

    calls: tuple[Observed, ...]
    answer: str | None


def write_report(calls: tuple[Observed, ...], answer: str) -> str:
    lines = [REPORT, *(fact_line(o) for o in calls), json.dumps({"answer": answer}, ensure_ascii=False)]
    return "\n".join(lines)


def fact_line(o: Observed) -> str:
    return json.dumps({"tool": o.step.tool, "arguments": o.step.arguments, "result": o.result}, ensure_ascii=False)


def _lines(text: str) -> tuple[list[Observed], str | None, int]:
    """The fact lines and the answer line at the start of ``text`` (reading stops at the first other
    line), and how many characters they take."""
    calls: list[Observed] = []
    answer = None
    at = 0
    for line in text.split("\n"):
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            break
        if not isinstance(item, dict):
            break
        if set(item) == {"answer"} and isinstance(item["answer"], str):
            answer = item["answer"]
            at += len(line) + 1
            break
        if not (isinstance(item.get("tool"), str) and isinstance(item.get("arguments"), dict)
                and isinstance(item.get("result"), str)):
            break
        calls.append(Observed(Step(item["tool"], item["arguments"]), item["result"]))
        at += len(line) + 1
    return calls, answer, min(at, len(text))


def read_report(text: str) -> Report | None:
    """The report ``text`` starts with, or None when it is not in the solver's form."""
    if not text.startswith(REPORT + "\n"):
        return None
    calls, answer, _ = _lines(text[len(REPORT) + 1:])
    return Report(tuple(calls), answer)


def reports_in(text: str) -> list[tuple[str, Report]]:
    """Every report in a role's list of results (``- <id> …: <report>``), with the id of its entry, in order."""
    out = []
    for m in _ENTRY.finditer(text):
        start = m.end() - len(REPORT) - 1
        report = read_report(text[start:])
        if report is not None:
            out.append((m.group(1), report))
    return out


def with_facts(description: str, facts: list[Observed]) -> str:
    """A sub-task's description with the facts its dependencies reported appended (the supervisor's rewrite)."""
    lines: list[str] = []
    for o in facts:
        line = fact_line(o)
        if line not in lines:
            lines.append(line)
    return "\n".join([description, "", FACTS, *lines]) if lines else description


def split_facts(task: str) -> tuple[str, tuple[Observed, ...]]:
    """A sub-task's text without its facts block, and the facts (calls already made, with their results)."""
    at = task.find("\n\n" + FACTS + "\n")
    if at < 0:
        return task, ()
    rest = task[at + len(FACTS) + 3:]
    calls, _, used = _lines(rest)
    tail = rest[used:]
    return task[:at] + ("\n" + tail.lstrip("\n") if tail.strip() else ""), tuple(calls)
