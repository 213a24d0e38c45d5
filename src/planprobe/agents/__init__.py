"""Agent strategies and the ``--agent`` names that select them."""

from __future__ import annotations

from ..errors import PlanprobeError
from ..suites.registry import families
from .base import Agent
from .reference import FaultyAgent, OracleAgent, RandomAgent

__all__ = ["Agent", "FaultyAgent", "OracleAgent", "RandomAgent", "make_agent", "known_faults", "MODEL_AGENTS"]

MODEL_AGENTS = ("tools", "react", "modular")


def known_faults() -> list[str]:
    names: list[str] = []
    for family in families().values():
        names += [f for f in family.faults if f not in names]
    return names


def make_agent(spec: str, seed: int = 0, model=None, params=None) -> Agent:
    """Build an agent from its command-line name: tools, react (with a model),
    python:<module>:<function>, oracle, random, faulty:<fault>, shortcut:<cue>. ``model`` is one model for
    every role, or a role -> model map (``models.roles.RoleModels``)."""
    from ..models.roles import RoleModels

    name, _, arg = spec.partition(":")
    models = RoleModels.of(model)
    if name in MODEL_AGENTS and not arg:
        if models is None:
            raise PlanprobeError(f"--agent {name} needs a model: add --model local or --model openai:<model>")
        from ..models.base import ChatParams
        from ..schema import DEFAULT_ROLE

        models.check_roles([DEFAULT_ROLE], name)
        params = params or ChatParams(seed=seed)
        if name == "tools":
            from .tools_agent import ToolsAgent

            return ToolsAgent(models.for_role(DEFAULT_ROLE, name), params)
        if name == "modular":  # AgentDebug's memory / reflection / plan / action rollout
            from .modular import ModularAgent

            return ModularAgent(models.for_role(DEFAULT_ROLE, name), params)
        from .react import ReactAgent

        return ReactAgent(models.for_role(DEFAULT_ROLE, name), params)
    if name == "python":
        from .python_adapter import load_callable

        return load_callable(arg, models=models, params=params)
    if name == "oracle" and not arg:
        return OracleAgent()
    if name == "random" and not arg:
        return RandomAgent(seed)
    if name == "faulty":
        faults = known_faults()
        if arg not in faults:
            raise PlanprobeError(
                f"unknown fault {arg!r} in --agent {spec}: choose one of {', '.join(faults)}"
                if arg else f"--agent faulty needs a fault, e.g. faulty:drop (faults: {', '.join(faults)})"
            )
        return FaultyAgent(arg, seed)
    if name == "shortcut":
        from .shortcut import ShortcutAgent, cue_names

        if not arg:
            raise PlanprobeError(f"--agent shortcut needs a cue, e.g. shortcut:also (cues: {', '.join(cue_names())})")
        return ShortcutAgent(arg, seed)
    raise PlanprobeError(
        f"unknown agent {spec!r}: choose tools, react, modular, python:<module>:<function>, oracle, random, "
        "faulty:<fault> or shortcut:<cue>"
    )
