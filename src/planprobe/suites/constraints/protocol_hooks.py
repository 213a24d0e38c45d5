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

import random
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
        out.append(_timed(tool, prepared.durations[i]))
    return out


def _timed(tool: ToolSpec, duration: int) -> ToolSpec:
    """The tool with its duration stated where the executing tool says it reveals one (at the
    end when it does not say so: the paper's tools)."""
    stated = f"It takes {hours(duration)}."
    desc = tool.description
    desc = desc.replace(_REVEALED, stated) if _REVEALED in desc else f"{desc.rstrip()} {stated}"
    return tool.model_copy(update={"description": desc})


def planning_tool(case: Case, tool: ToolSpec, does: str | None) -> ToolSpec | None:
    """A robustness variant's tool as a planning agent sees it (``PlansWrappedTools``): a tool
    that carries out a task (``does``: the case's tool, its own or a twin's name) states the
    task's duration; a distractor (``does`` None) states one too, drawn per case and tool from
    the case's range of durations, so no description tells it from a task's; the restart tool
    is left out, as in ``planning_tools``."""
    prepared = prepare(case)
    if not prepared.extended:
        return tool
    if does is None:
        rng = random.Random(f"planprobe/constraints/planning/{case.id}/{tool.name}")
        return _timed(tool, rng.randint(1, max(prepared.durations)))
    i = prepared.tool_index.get(does)
    if i is None:
        return None if does == prepared.restart_tool else tool
    return _timed(tool, prepared.durations[i])


def prefix_evidence(case: Case, calls: Sequence[PlannedCall]) -> list[Evidence]:
    return [Evidence(**p) for p in prefix_problems(prepare(case), calls)]


def extendable(case: Case, calls: Sequence[PlannedCall]) -> tuple[bool, str]:
    problems = prefix_problems(prepare(case), calls)
    if not problems:
        return True, "the calls can be completed into a valid plan"
    return False, " ".join(p["text"] for p in problems)
