"""Agent strategies and the ``--agent`` names that select them (see ``agents/registry.py``)."""

from __future__ import annotations

from typing import Any

from ..errors import PlanprobeError
from ..suites.registry import families
from .base import Agent
from .reference import FaultyAgent, OracleAgent, RandomAgent
from .registry import (
    AgentEntry,
    AgentRequest,
    agent_choices,
    agent_entries,
    agent_entry,
    build_agent,
    register_agent,
    unregister_agent,
)

__all__ = [
    "Agent", "AgentEntry", "AgentRequest", "FaultyAgent", "OracleAgent", "RandomAgent", "agent_choices",
    "agent_entries", "agent_entry", "make_agent", "known_faults", "model_agents", "register_agent",
    "unregister_agent", "MODEL_AGENTS",
]


def known_faults() -> list[str]:
    names: list[str] = []
    for family in families().values():
        names += [f for f in family.faults if f not in names]
    return names


def model_agents() -> tuple[str, ...]:
    """The names of the agents that need a model (tools, react, and plug-ins that say so)."""
    return tuple(name for name, entry in agent_entries().items() if entry.needs_model)


def __getattr__(name: str) -> Any:  # MODEL_AGENTS, as before the registry: derived now
    if name == "MODEL_AGENTS":
        return model_agents()
    raise AttributeError(name)


def make_agent(spec: str, seed: int = 0, model=None, params=None) -> Agent:
    """Build an agent from its command-line name: tools, react (with a model),
    python:<module>:<function>, oracle, random, faulty:<fault>, or a registered one. ``model``
    is one model for every role, or a role -> model map (``models.roles.RoleModels``)."""
    from ..models.roles import RoleModels

    entry = agent_entry(spec)
    models = RoleModels.of(model)
    if entry.needs_model and models is None:
        raise PlanprobeError(f"--agent {entry.name} needs a model: add --model local or --model openai:<model>")
    _, _, arg = spec.partition(":")
    return build_agent(entry, AgentRequest(spec=spec, arg=arg, seed=seed, models=models, params=params))
