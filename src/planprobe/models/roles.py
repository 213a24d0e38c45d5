"""Models by agent role: ``--model local`` for every role, or one per role.

A multi-agent planner gives each role its own model (``--model
manager=openai:gpt-4o,executor=local``); a single-model agent has one role,
``agent``. A bare spec in the list is the default for every role not named.
Each distinct spec is built once, so roles that share a model share its
instance (one embedded model loaded, one HTTP client).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from ..errors import PlanprobeError
from .base import Model

ANY_ROLE = "*"  # the key of the default model in a role map
_ROLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def parse_role_specs(text: str, option: str = "--model") -> dict[str, str]:
    """``local`` -> {"*": "local"}; ``manager=openai:x,executor=local`` -> one spec per role.
    A part without ``role=`` is the default; a role must start with a letter (so a model id
    like ``openai:qwen2.5:7b`` is never read as a role)."""
    specs: dict[str, str] = {}
    for part in text.split(","):
        part = part.strip()
        role, sep, spec = part.partition("=")
        if sep and _ROLE.match(role.strip()):
            role, spec = role.strip(), spec.strip()
        else:
            role, spec = ANY_ROLE, part
        if not spec:
            raise PlanprobeError(f"{option} {text!r}: an empty model in {part!r}; "
                                 "expected MODEL or ROLE=MODEL,ROLE=MODEL")
        if role in specs:
            what = "two default models" if role == ANY_ROLE else f"role {role!r} twice"
            raise PlanprobeError(f"{option} {text!r}: {what}; give each role one model")
        specs[role] = spec
    return specs


def role_spec_text(specs: Mapping[str, str]) -> str:
    """The canonical text of a role map (default first, then roles by name)."""
    parts = [specs[ANY_ROLE]] if ANY_ROLE in specs else []
    return ",".join(parts + [f"{r}={specs[r]}" for r in sorted(specs) if r != ANY_ROLE])


@dataclass(frozen=True)
class RoleModels:
    """Role -> model, with an optional default (``*``). ``name`` is what a run stores as its
    model: the model's own name when one model serves every role (as before roles existed),
    else ``default,role=name,…``."""

    models: Mapping[str, Model]

    @classmethod
    def of(cls, model: Model | RoleModels | Mapping[str, Model] | None) -> RoleModels | None:
        if model is None or isinstance(model, RoleModels):
            return model
        if isinstance(model, Mapping):
            return cls(dict(model))
        return cls({ANY_ROLE: model})

    @property
    def roles(self) -> list[str]:
        """The roles named explicitly (the default not included)."""
        return sorted(r for r in self.models if r != ANY_ROLE)

    def get(self, role: str) -> Model | None:
        return self.models.get(role, self.models.get(ANY_ROLE))

    def for_role(self, role: str, agent: str = "") -> Model:
        model = self.get(role)
        if model is None:
            given = ", ".join(self.roles) or "none"
            raise PlanprobeError(f"--model gives no model for role {role!r}{f' of --agent {agent}' if agent else ''} "
                                 f"(roles given: {given}); add {role}=MODEL or a default model")
        return model

    def check_roles(self, allowed: Iterable[str], agent: str) -> None:
        """Refuse roles the agent does not have (a typo would otherwise go unused)."""
        allowed = list(allowed)
        unknown = [r for r in self.roles if r not in allowed]
        if unknown:
            raise PlanprobeError(f"--model names role {unknown[0]!r}, which --agent {agent} does not have "
                                 f"(its roles: {', '.join(allowed)})")

    @property
    def name(self) -> str:
        names = {role: m.name for role, m in self.models.items()}
        if set(names) == {ANY_ROLE} or len(set(names.values())) == 1 and ANY_ROLE in names:
            return names[ANY_ROLE]
        return role_spec_text(names)

    def names(self) -> dict[str, str]:
        """role -> model name, for ``Trace.models`` (empty when one model serves every role)."""
        if set(self.models) == {ANY_ROLE}:
            return {}
        return {role: m.name for role, m in sorted(self.models.items())}

    async def aclose(self) -> None:
        closed: list[Model] = []
        for model in self.models.values():
            if not any(model is c for c in closed):
                closed.append(model)
                await model.aclose()


def build_role_models(text: str, build: Callable[[str], Model]) -> RoleModels:
    """Parse ``--model`` and build each distinct spec once (``build(spec)`` makes one model)."""
    specs = parse_role_specs(text)
    made: dict[str, Model] = {}
    for spec in specs.values():
        if spec not in made:
            made[spec] = build(spec)
    return RoleModels({role: made[spec] for role, spec in specs.items()})
