"""Agent strategies and the ``--agent`` names that select them."""

from __future__ import annotations

from ..errors import PlanprobeError
from ..suites.registry import families
from .base import Agent
from .reference import FaultyAgent, OracleAgent, RandomAgent

__all__ = ["Agent", "FaultyAgent", "OracleAgent", "RandomAgent", "make_agent", "known_faults"]


def known_faults() -> list[str]:
    names: list[str] = []
    for family in families().values():
        names += [f for f in family.faults if f not in names]
    return names


def make_agent(spec: str, seed: int = 0) -> Agent:
    """Build an agent from its command-line name: oracle, random, faulty:<fault>."""
    name, _, arg = spec.partition(":")
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
    raise PlanprobeError(f"unknown agent {spec!r}: choose oracle, random or faulty:<fault>")
