"""PDoctor's mock tools (seed §4.3, §4.4).

Each action has a tool that does nothing but record that it ran (the trace is
the seed's log file) and say so. In the extended mode a tool takes
``start_time`` and only then reveals the action's seeded duration; the
``request_restart`` tool grants a restart (Fig. 7a): later calls belong to a
new attempt, and only the last attempt is judged.
"""

from __future__ import annotations

from typing import Any

from ...environment import Environment, Limits
from ...schema import Case
from .prepared import prepare
from .render import capitalise
from .spec import RESTART_TOOL
from .vocabulary import format_hour

RESTART_GRANTED = (
    "Restart granted. Every executed task has been discarded; start over from the beginning. "
    "Each task keeps the duration it had."
)


PAPER_RESTART_GRANTED = "Permission granted. Start over."


def hours(d: int) -> str:
    return f"{d} hour" if d == 1 else f"{d} hours"


class ConstraintEnvironment(Environment):
    def __init__(self, case: Case, limits: Limits = Limits(), trial: int = 0, agent: str = ""):
        super().__init__(case, limits, trial, agent)
        self.prepared = prepare(case)

    def execute(self, name: str, args: dict[str, Any]) -> tuple[str, str | None]:
        prepared = self.prepared
        if prepared.extended and name == RESTART_TOOL:
            self.restart()
            return (PAPER_RESTART_GRANTED if prepared.paper else RESTART_GRANTED), None
        i = prepared.tool_index[name]
        title = capitalise(prepared.names[i])
        if not prepared.extended:
            return f"{title} has been done.", None
        start = int(args["start_time"])
        d = prepared.durations[i]
        if prepared.paper:  # the seed's tool (Fig. 7b) reveals the duration only
            return f"{title} takes {hours(d)}.", None
        return (
            f"{title} took {hours(d)}: it started at {format_hour(start)} and ended at {format_hour(start + d)}.",
            None,
        )
