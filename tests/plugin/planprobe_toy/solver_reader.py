"""The plug-in's reader for ``--model solver`` (entry-point group ``planprobe.solver_readers``): it
reads a ``lamps`` task from what the model is shown — the order in the task text, the tool that
switches a lamp on, and any argument that tool needs beyond the lamp, given by a sentence "The <argument>
to use is <value>." — and switches the lamps on in that order, or refuses when the tool is gone or
an argument it needs is not given. It imports only the solver's seam (``planprobe.solver.base``)."""

from __future__ import annotations

import re
from typing import Any

from planprobe.solver.base import ChatView, Decision, Step

_ORDER = re.compile(r"Switch on each lamp exactly once, in this order: ([a-z, ]+)\.")
_ON = re.compile(r"The (\w+) lamp is on\.")


def _switch_tool(view: ChatView) -> dict[str, Any] | None:
    """The tool that switches one lamp on: its description says so and it takes ``lamp``."""
    for tool in view.tools:
        props = (tool.get("parameters") or {}).get("properties") or {}
        if str(tool.get("description", "")).startswith("Switch on one lamp.") and "lamp" in props:
            return tool
    return None


class LampsReader:
    name = "lamps"

    def claims(self, view: ChatView) -> bool:
        return _ORDER.search(view.task) is not None and bool(view.tools)

    def decide(self, view: ChatView) -> Decision:
        m = _ORDER.search(view.task)
        assert m is not None  # claimed
        order = [lamp.strip() for lamp in m.group(1).split(",")]
        on = [lamp for seen in view.history if (hit := _ON.search(seen.result)) for lamp in [hit.group(1)]]
        tool = _switch_tool(view)
        if tool is None:
            return Decision(refuse="no tool offered switches a lamp on")
        arguments: dict[str, Any] = {}
        for key in (tool.get("parameters") or {}).get("required") or []:
            if key == "lamp":
                continue
            said = re.search(rf"\bThe {re.escape(key.replace('_', ' '))} to use is (\S+?)\.(?:\s|$)", view.task)
            if said is None:
                return Decision(refuse=f"{tool['name']} needs {key}, which the task does not give")
            arguments[key] = said.group(1)
        left = [lamp for lamp in order if lamp not in on]
        if not left:
            return Decision(answer="All the lamps are on.")
        return Decision(calls=(Step(str(tool["name"]), {"lamp": left[0], **arguments}),))


READER = LampsReader()
