"""What the planning protocols (``suites/protocols``) need that only this family knows.

* ``planning_tools``: the tools as an agent that plans without executing must see
  them. In the extended mode a tool reveals its duration only when it runs, so a
  plan made in advance could not be timed: here each description states the
  duration instead ("It takes 2 hours."), exactly the seeded one, and the restart
  tool is left out (nothing runs, so there is nothing to restart).
* ``extendable`` / ``prefix_evidence``: whether calls can still begin a valid plan
  (``prefix.py``), as a yes/no with a reason and as verdict evidence.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...schema import Case, Evidence, ToolSpec
from ..base import PlannedCall
from .environment import hours
from .prefix import prefix_problems
from .prepared import prepare

_REVEALED = "Returns how many hours the task took."


def planning_tools(case: Case) -> list[ToolSpec]:
    prepared = prepare(case)
    if not prepared.extended:
        return list(case.tools)
    out = []
    for tool in case.tools:
        i = prepared.tool_index.get(tool.name)
        if i is None:
            continue  # the restart tool: a plan made in advance has nothing to restart
        desc = tool.description.replace(_REVEALED, "").rstrip()
        out.append(tool.model_copy(update={"description": f"{desc} It takes {hours(prepared.durations[i])}."}))
    return out


def prefix_evidence(case: Case, calls: Sequence[PlannedCall]) -> list[Evidence]:
    return [Evidence(**p) for p in prefix_problems(prepare(case), calls)]


def extendable(case: Case, calls: Sequence[PlannedCall]) -> tuple[bool, str]:
    problems = prefix_problems(prepare(case), calls)
    if not problems:
        return True, "the calls can be completed into a valid plan"
    return False, " ".join(p["text"] for p in problems)
