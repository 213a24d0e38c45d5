"""The ``alphabetical`` agent: switches on every lamp it is offered in alphabetical order.

It reads only what any agent sees (the tools), so it passes exactly the cases whose
required order happens to be alphabetical: a floor for the ``lamps`` family.
"""

from __future__ import annotations

import json

from planprobe import AgentEntry, AgentRequest, Case, Environment


class AlphabeticalAgent:
    name = "alphabetical"

    async def __call__(self, case: Case, env: Environment) -> str | None:
        for tool in env.tools:
            lamps = tool.parameters.get("properties", {}).get("lamp", {}).get("enum", [])
            for lamp in sorted(lamps):
                env.step()
                env.call(tool.name, json.dumps({"lamp": lamp}))
        env.finish("All lamps are on.")
        return "All lamps are on."


def _build(request: AgentRequest) -> AlphabeticalAgent:
    return AlphabeticalAgent()


ALPHABETICAL = AgentEntry("alphabetical", _build, help="lamps in alphabetical order (test plug-in)")
