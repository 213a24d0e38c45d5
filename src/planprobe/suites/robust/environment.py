"""The variant's tools around the base family's environment.

Real tools run in the base environment (so the base oracle later judges exactly
what happened); the replacement and the composites run base tools under another
name; distractors answer like a real tool would, so nothing in the reply warns
the agent; the broken tool and the tool that needs missing information return
realistic errors and do nothing; ``refuse`` records the refusal.
"""

from __future__ import annotations

from typing import Any

from ...environment import Environment, Limits
from ...schema import Case
from ..base import ComposesTools, RunsComposites
from ..registry import get_family
from .spec import base_case, follow_on_args, spec_of

REFUSAL_RECORDED = "Your refusal has been recorded."


def not_found(param: str, args: dict[str, Any]) -> str:
    """What a service answers when the record a parameter names does not exist."""
    return f"Error 404: no record matches {param} {str(args.get(param, ''))[:60]!r}."


def distractor_reply(name: str) -> str:
    words = name.replace("_", " ")
    return f"{words[:1].upper()}{words[1:]} has been done."


class RobustEnvironment(Environment):
    def __init__(self, case: Case, limits: Limits = Limits(), trial: int = 0, agent: str = ""):
        super().__init__(case, limits, trial, agent)
        self.spec = spec_of(case)
        base = base_case(case)
        self.base_case = base
        self.base_env = get_family(base.family).environment(base, limits, trial, agent)
        self.distractors = set(self.spec.distractors)
        self.composites = {c.tool: c for c in self.spec.composites}
        self.variant_names = frozenset(t.name for t in case.tools)
        family = get_family(base.family)
        self.split: ComposesTools | None = family if isinstance(family, ComposesTools) else None

    def execute(self, name: str, args: dict[str, Any]) -> tuple[str, str | None]:
        spec = self.spec
        if name == spec.refuse_tool:
            return REFUSAL_RECORDED, None
        if name in self.distractors:
            return distractor_reply(name), None
        if spec.broken is not None and name == spec.broken.tool:
            return spec.broken.error, None
        unsolvable = spec.unsolvable
        if unsolvable is not None and name == unsolvable.missing_tool:
            return not_found(unsolvable.missing_param or "", args), None
        given = spec.given
        if given is not None and name == spec.alias_of(given.tool, self.variant_names):
            if str(args.get(given.param, "")).strip() != given.value:
                return not_found(given.param, args), None
            args = {k: v for k, v in args.items() if k != given.param}
        combo = self.composites.get(name)
        if combo is not None and self.split is not None:  # each half its own arguments, atomic
            a1, a2 = self.split.composite_args(self.base_case, combo.first, combo.second, args)
            if isinstance(self.base_env, RunsComposites):
                return self.base_env.execute_composite(name, combo.first, a1, combo.second, a2)
            first, _ = self._base(combo.first, a1)
            second, _ = self._base(combo.second, a2)
            return f"{first} {second}", None
        if combo is not None:
            first, _ = self._base(combo.first, args)
            second, _ = self._base(combo.second, follow_on_args(self.base_case, combo.first, args))
            return f"{first} {second}", None
        return self._base(spec.base_name(name), args)

    def _base(self, name: str, args: dict[str, Any]) -> tuple[str, str | None]:
        before = self.base_env.attempt
        result = self.base_env.execute(name, args)
        if self.base_env.attempt != before:  # the base granted a restart: mirror it in the judged trace
            self.restart()
        return result
