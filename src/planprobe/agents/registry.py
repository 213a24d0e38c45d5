"""Agents by their ``--agent`` name: the built-ins, those added with ``register_agent``,
and plug-ins from the entry-point group ``planprobe.agents``.

An entry says how to build the agent (``factory(AgentRequest) -> Agent``), whether it
needs a model, whether its name takes an argument (``faulty:<fault>``), and one line
of help; ``make_agent``, the CLI's checks and its ``--agent`` help are all derived
from the entries, so a new agent is one registration.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import PlanprobeError
from ..plugins import Registry, checked_entry
from .base import Agent

if TYPE_CHECKING:
    from ..models.base import ChatParams, Model
    from ..models.roles import RoleModels

GROUP = "planprobe.agents"


@dataclass(frozen=True)
class AgentRequest:
    """What an agent is built from. New fields get defaults, so factories keep working."""

    spec: str  # the full --agent value, e.g. "faulty:drop"
    arg: str  # the part after the first ':' ("" when none)
    seed: int = 0
    models: RoleModels | None = None  # role -> model (--model); always given to an entry that needs_model
    params: ChatParams | None = None

    def model_for(self, role: str) -> Model:
        """The model of one role (the default model when the role has none of its own); a
        clear error when --model gives none for it."""
        if self.models is None:
            raise PlanprobeError(f"--agent {self.spec} needs a model: add --model local or --model openai:<model>")
        return self.models.for_role(role, self.spec)

    @property
    def model(self) -> Model | None:
        """The default-role model, for agents with a single role (None without --model)."""
        from ..schema import DEFAULT_ROLE

        return self.models.get(DEFAULT_ROLE) if self.models is not None else None


AgentFactory = Callable[[AgentRequest], Agent]


@dataclass(frozen=True)
class AgentEntry:
    """One ``--agent`` name. ``argument`` is the placeholder shown in help for a name that
    takes one (``"<fault>"``), None for a name that takes none. An agent that ``needs_model``
    (or ``accepts_model``) receives ``--model`` as ``AgentRequest.models``, role by role."""

    name: str
    factory: AgentFactory
    needs_model: bool = False
    argument: str | None = None
    help: str = ""
    accepts_model: bool = False  # takes models when --model gives them, runs without (python: agents)
    roles: tuple[str, ...] | None = None  # the roles --model may name; None: any

    @property
    def usage(self) -> str:
        return f"{self.name}:{self.argument}" if self.argument else self.name


def _as_entry(name: str, obj: object) -> AgentEntry:
    return checked_entry("agent", name, obj, AgentEntry, "name", "its entry is named")


BUILTIN_AGENTS = {
    "tools": "planprobe.agents.builtin:TOOLS",
    "react": "planprobe.agents.builtin:REACT",
    "modular": "planprobe.agents.builtin:MODULAR",
    "pmc": "planprobe.agents.builtin:PMC",
    "python": "planprobe.agents.builtin:PYTHON",
    "langgraph": "planprobe.agents.builtin:LANGGRAPH",
    "oracle": "planprobe.agents.builtin:ORACLE",
    "random": "planprobe.agents.builtin:RANDOM",
    "faulty": "planprobe.agents.builtin:FAULTY",
    "shortcut": "planprobe.agents.builtin:SHORTCUT",
    "misread": "planprobe.agents.builtin:MISREAD",
}
_REGISTRY: Registry[AgentEntry] = Registry("agent", GROUP, BUILTIN_AGENTS, _as_entry)


def register_agent(name: str | AgentEntry, factory: AgentFactory | None = None, *,
                   needs_model: bool = False, argument: str | None = None, help: str = "",
                   accepts_model: bool = False, roles: tuple[str, ...] | None = None) -> Any:
    """Add an ``--agent`` name: ``register_agent(AgentEntry(...))``, ``register_agent("x", factory, …)``,
    or as a decorator of the factory, ``@register_agent("x", needs_model=True)``. The name
    must be new (built-ins always stay). Returns what it was given (the factory for a decorator)."""
    if isinstance(name, AgentEntry):
        return _REGISTRY.register(name.name, name)
    if factory is None:
        def decorate(fn: AgentFactory) -> AgentFactory:
            register_agent(name, fn, needs_model=needs_model, argument=argument, help=help,
                           accepts_model=accepts_model, roles=roles)
            return fn

        return decorate
    _REGISTRY.register(name, AgentEntry(name, factory, needs_model, argument, help, accepts_model, roles))
    return factory


def unregister_agent(name: str) -> None:
    """Remove a registered agent (tests, notebooks); built-ins always stay."""
    _REGISTRY.unregister(name)


def agent_entry(spec: str) -> AgentEntry:
    """The entry for an ``--agent`` value, checking that it takes an argument exactly
    when its entry says so."""
    name, sep, _arg = spec.partition(":")
    entry = _REGISTRY.get(name)
    if entry is None:
        raise PlanprobeError(f"unknown agent {spec!r}: choose {agent_choices()}")
    if entry.argument is None and sep:
        raise PlanprobeError(f"unknown agent {spec!r}: --agent {name} takes no ':' argument")
    return entry


def agent_entries() -> dict[str, AgentEntry]:
    """Every agent, built-ins first; loads installed plug-ins."""
    return _REGISTRY.all()


def agent_choices(separator: str = ", ", described: bool = False) -> str:
    """The names as the help and errors show them (with their help line when ``described``),
    importing no plug-in."""
    out = []
    for name in _REGISTRY.names():
        entry = _REGISTRY.peek(name)
        text = entry.usage if entry is not None else name
        out.append(f"{text} ({entry.help})" if described and entry is not None and entry.help else text)
    return separator.join(out)


def build_agent(entry: AgentEntry, request: AgentRequest) -> Agent:
    agent = entry.factory(request)
    call = getattr(agent, "__call__", None)  # noqa: B004 -- the bound method is inspected: is it async?
    if not isinstance(getattr(agent, "name", None), str) or call is None or not (
            inspect.iscoroutinefunction(call) or inspect.iscoroutinefunction(agent)):
        raise PlanprobeError(f"agent {entry.name!r}: its factory returned {type(agent).__name__}, not an Agent "
                             "(a 'name' string and 'async def __call__(case, env)')")
    return agent
