"""Turning an ``--agent``/``--model`` choice into an agent and its models.

Library rules, not CLI ones: which agents need or take a model and which roles they
have is each agent's registry entry's say (agents/registry.py); every option is
checked before a model is loaded, so a typo costs no loading time. Used by ``run``,
``sweep``, ``dissect`` and anything else that builds an agent from names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import PlanprobeError


def prepare_agent(agent_name: str | None, model_spec: str | None, model_options: Any, params: Any, seed: int,
                  check_first: Callable[[], object] = lambda: None) -> tuple[str, Any, Any]:
    """The agent (and its models, if it takes any) for --agent/--model, checking the
    options before ``check_first`` (e.g. reading a suite) and before loading a model.
    ``--model`` is one model for every role or ROLE=MODEL,… (models/roles.py). Whether an
    agent needs or takes models, and which roles it has, is its registry entry's say
    (agents/registry.py). The models come back as one ``RoleModels``."""
    from ..models.roles import parse_role_specs
    from . import agent_entries, agent_entry, make_agent

    agent_name = agent_name or ("tools" if model_spec else "oracle")
    entry = agent_entry(agent_name)  # an unknown name fails here, first
    if model_spec and not (entry.needs_model or entry.accepts_model):
        entries = agent_entries().values()
        names = [e.usage.split("<")[0] if e.argument else e.name for e in entries if e.needs_model]
        others = [e.usage.split("<")[0] if e.argument else e.name for e in entries
                  if e.accepts_model and not e.needs_model]
        listed = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
        also = f" (and {', '.join(others)} agents)" if others else ""
        raise PlanprobeError(f"--model is used by the {listed} agents{also}, not by --agent {agent_name}")
    if entry.needs_model and not model_spec:
        raise PlanprobeError(f"--agent {agent_name} needs a model: add --model local or --model openai:<model>")
    if model_spec:  # a malformed role list, a role the agent lacks or an unknown kind is refused before loading
        from ..models import model_entry

        specs = parse_role_specs(model_spec)
        extra = sorted(set(specs) - {"*"} - set(entry.roles)) if entry.roles is not None else []
        if extra:
            roles = entry.roles or ()
            have = (f"its one role is {roles[0]!r}: give one model" if len(roles) == 1
                    else f"its roles: {', '.join(roles)}")
            raise PlanprobeError(f"--model names role {extra[0]!r}, which --agent {agent_name} does not have ({have})")
        for spec in specs.values():
            model_entry(spec)
    agent = None if model_spec else make_agent(agent_name, seed)  # check the name before anything else
    check_first()
    models = None
    if model_spec:
        from ..models import make_model
        from ..models.roles import build_role_models

        def build(spec: str) -> Any:
            try:
                return make_model(spec, model_options)  # loading a local model takes a moment: after the checks
            except ValueError as exc:  # llama.cpp refuses a file that is not a GGUF model with a ValueError
                path = getattr(model_options, "model_path", None)
                raise PlanprobeError(f"cannot load the model{f' {path}' if path else ''}: "
                                     f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None

        models = build_role_models(model_spec, build)
        try:
            agent = make_agent(agent_name, seed, model=models, params=params)
        except BaseException:
            import asyncio as _asyncio

            _asyncio.run(models.aclose())
            raise
    return agent_name, agent, models


def uses_local(model_spec: str | None) -> bool:
    """Whether any role runs on the embedded model (--model local, or ROLE=local)."""
    from ..models.roles import parse_role_specs

    return bool(model_spec) and "local" in parse_role_specs(model_spec or "").values()
