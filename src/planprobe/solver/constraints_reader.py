"""The solver's task reader for constraint cases (PDoctor's family, both styles, both modes).

From the chat view alone — the task text, the tool schemas and the calls made so far with their
results — it finds the tasks (the task list, or the tools whose description opens with the task's
name), reads the requirement (``constraints_text``), learns durations from tool results as a
model does, and plans the next call (``constraints_plan``):

* basic mode: the next task of an order that keeps every "before";
* extended mode: the next task and its start hour, planned with the durations seen so far (1
  hour for one not yet seen); when what this attempt executed can no longer be completed, it
  calls the restart tool; when even the durations it knows make the requirement impossible, it
  refuses;
* when every task has run: a final answer listing what ran.

It imports nothing of the family, the agents or the runner (``tests/solver``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .base import ChatView, Decision, Observed, Step
from .constraints_plan import (
    Bounds,
    order_completion,
    prefix_problem,
    schedule_completion,
)
from .constraints_text import read_requirement

MARKER = "Here is the requirement:"
_TASK_LIST = re.compile(r"^The tasks are: (.+)\.$", re.MULTILINE)
_DURATION = re.compile(r"\b(?:took|takes|lasted|lasts) (\d+) hours?\b")
START = "start_time"
GUESS = 2  # hours guessed for a task whose duration no result has shown yet ("one or more")


@dataclass(frozen=True)
class Setting:
    """What the view says about the case: the tasks (names and tools), the mode, the restart
    tool, and the requirement text."""

    names: tuple[str, ...]
    tools: tuple[str, ...]
    extended: bool
    restart: str | None
    requirement: str


def _schemas(view: ChatView) -> list[dict[str, Any]]:
    out = []
    for t in view.tools:
        f = t.get("function") if isinstance(t.get("function"), dict) else t
        if isinstance(f, dict) and isinstance(f.get("name"), str):
            out.append(f)
    return out


def _requirement(view: ChatView) -> str | None:
    for text in (view.task, view.system):
        if text and MARKER in text:
            return text.split(MARKER, 1)[1].strip()
    return None


def _title(description: str) -> str:
    """The first sentence of a tool's description: the task's name, capitalised."""
    return description.split(". ", 1)[0].strip().rstrip(".").strip()


def _listed(view: ChatView) -> list[str] | None:
    m = _TASK_LIST.search(view.task or "") or _TASK_LIST.search(view.system or "")
    if not m:
        return None
    parts = m.group(1).split(" and ")
    head = [p.strip() for p in " and ".join(parts[:-1]).split(", ")] if len(parts) > 1 else []
    return [p for p in head if p] + [parts[-1].strip()]


def setting(view: ChatView) -> Setting | str:
    """The case's setting read from the view, or what is missing."""
    requirement = _requirement(view)
    if requirement is None:
        return f'no "{MARKER}" in the task'
    schemas = _schemas(view)
    by_title = {_title(str(s.get("description") or "")).lower(): s for s in schemas}
    listed = _listed(view)
    if listed is not None:
        missing = [n for n in listed if n.lower() not in by_title]
        if missing:
            return f'no tool carries out the listed task "{missing[0]}"'
        chosen = [by_title[n.lower()] for n in listed]
        names = listed
    else:  # the seed's own tools: the description is the task's name
        chosen = [s for s in schemas if _title(str(s.get("description") or "")).lower()
                  == str(s["name"]).replace("_", " ").lower()]
        names = [_title(str(s.get("description") or "")) for s in chosen]
        names = [n[:1].lower() + n[1:] for n in names]
    if not chosen:
        return "no tool carries out a task"
    task_tools = {str(s["name"]) for s in chosen}
    restart = next((str(s["name"]) for s in schemas if str(s["name"]) not in task_tools
                    and "restart" in (str(s["name"]) + " " + str(s.get("description") or "")).lower()), None)
    props = [((s.get("parameters") or {}).get("properties") or {}) for s in chosen]
    extended = [START in p for p in props]
    if any(extended) != all(extended):
        return "some task tools take a start time and others do not"
    return Setting(tuple(names), tuple(str(s["name"]) for s in chosen), all(extended), restart, requirement)


def _granted(o: Observed) -> bool:
    text = o.result.lower()
    return not text.startswith("error") and ("granted" in text or "start over" in text)


def _start(o: Observed) -> int | None:
    value = o.step.arguments.get(START)
    try:
        return int(value) if value is not None and not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None


def attempt_runs(s: Setting, history: Sequence[Observed]) -> tuple[list[tuple[int, int, int]], dict[int, int]]:
    """The tasks run in the current attempt, in order ((task, start, duration); basic mode: start
    and duration 0), and every duration a tool result has revealed so far."""
    index = {t: k for k, t in enumerate(s.tools)}
    runs: list[tuple[int, int, int]] = []
    durations: dict[int, int] = {}
    for o in history:
        if s.restart is not None and o.step.tool == s.restart:
            if _granted(o):
                runs = []
            continue
        k = index.get(o.step.tool)
        if k is None or o.result.lower().startswith("error"):
            continue
        if not s.extended:
            runs.append((k, 0, 0))
            continue
        m = _DURATION.search(o.result)
        start = _start(o)
        if m is None or start is None:
            continue
        durations[k] = int(m.group(1))
        runs.append((k, start, durations[k]))
    return runs, durations


def _hour(h: int) -> str:
    return f"{h:02d}:00"


class ConstraintReader:
    """The ``TaskReader`` for constraint cases."""

    name = "constraints"

    def claims(self, view: ChatView) -> bool:
        return isinstance(setting(view), Setting)

    def decide(self, view: ChatView) -> Decision:
        s = setting(view)
        if not isinstance(s, Setting):
            return Decision(underspecified=s)
        reading = read_requirement(s.requirement, s.names)
        if reading.problem:
            return Decision(underspecified=reading.problem)
        bounds = Bounds.of(len(s.names), reading.atoms)
        runs, durations = attempt_runs(s, view.history)
        return self._timed(s, bounds, runs, durations) if s.extended else self._basic(s, bounds, runs)

    def _basic(self, s: Setting, bounds: Bounds, runs: list[tuple[int, int, int]]) -> Decision:
        if order_completion(bounds, []) is None:
            return Decision(refuse="The requirement cannot be met: its order constraints form a cycle.")
        done = list(dict.fromkeys(k for k, _, _ in runs))
        rest = order_completion(bounds, done)
        if rest is None:  # what ran already broke an order; the remaining tasks still run once
            rest = [k for k in range(len(s.names)) if k not in done]
        if rest:
            return Decision(calls=(Step(s.tools[rest[0]], {}),))
        return Decision(answer="All tasks have been executed, in this order: "
                        + "; ".join(f"{i + 1}. {s.names[k]}" for i, k in enumerate(done)) + ".")

    def _timed(self, s: Setting, bounds: Bounds, runs: list[tuple[int, int, int]],
               durations: dict[int, int]) -> Decision:
        n = len(s.names)
        known = [durations.get(k, 1) for k in range(n)]
        if schedule_completion(bounds, known, [], 0) is None:
            what = "with the durations the tools revealed" if durations else "by any schedule"
            return Decision(refuse=f"The requirement cannot be met {what}.")
        problem = prefix_problem(bounds, runs)
        done = [k for k, _, _ in runs]
        now = runs[-1][1] + runs[-1][2] if runs else 0
        plan = None if problem else self._robust_completion(bounds, durations, done, now)
        if plan is None:
            if s.restart is None:
                return Decision(refuse="The requirement can no longer be met and no restart is offered.")
            return Decision(calls=(Step(s.restart, {}),))
        if plan:
            k, start = plan[0]
            return Decision(calls=(Step(s.tools[k], {START: start}),))
        return Decision(answer="All tasks have been executed: " + "; ".join(
            f"{s.names[k]} from {_hour(a)} to {_hour(a + d)}" for k, a, d in runs) + ".")


    def _robust_completion(self, bounds: Bounds, durations: dict[int, int], done: list[int],
                           now: int) -> list[tuple[int, int]] | None:
        """A completion that still works if every task not yet seen is as long as the longest
        seen so far (at least ``GUESS``), else a little shorter, ... down to 1 hour: the least a
        task takes, the only guess whose failure proves that a restart is needed. Guessing long
        first picks orders that survive longer tasks: fewer restarts (benchmarks/solver_constraints.py)."""
        n = len(bounds.preds)
        for guess in range(max(max(durations.values(), default=1), GUESS), 0, -1):
            plan = schedule_completion(bounds, [durations.get(k, guess) for k in range(n)], done, now)
            if plan is not None:
                return plan
        return None


READER = ConstraintReader()
