"""Template-based natural-language translation of PDDL states, goals, actions and plans.

Why templates: PlanBench (seed 004, §4) renders every predicate and action
with a fixed sentence and builds states and plans by concatenation, and
parses model text back with the same vocabulary. The vocabulary is a
translation config (``translation_config``: its JSON format, the built-in
configs, the generic one); this module binds a config to one problem and
renders with it. The config names are re-exported here, so
``planprobe.pddl.translation`` stays the one import for NL translation.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..errors import PlanprobeError
from .grounding import GroundAction
from .model import Atom, Problem
from .simulator import parse_step
from .translation_config import (
    FORMAT_VERSION,
    DomainTranslation,
    Template,
    TranslationConfigError,
    builtin_translations,
    describe_domain,
    generic_translation,
    join_items,
    load_translation,
    parse_translation,
    translation_for,
)

__all__ = [
    "FORMAT_VERSION",
    "DomainTranslation",
    "Template",
    "TranslationConfigError",
    "Translator",
    "atom_sort_key",
    "builtin_translations",
    "describe_domain",
    "generic_translation",
    "join_items",
    "load_translation",
    "parse_translation",
    "translation_for",
    "translator",
]


def atom_sort_key(atom: Atom) -> str:
    """PlanBench's order for facts in a statement: ``predicate arg…`` as text."""
    return f"{atom.predicate} {' '.join(atom.args)}"


class Translator:
    """A config bound to one problem: its objects' names are fixed, so atoms,
    actions and plans render (and, in ``responses``, parse back) unambiguously."""

    def __init__(self, config: DomainTranslation, problem: Problem):
        config.check(problem.domain)
        self.config, self.problem, self.domain = config, problem, problem.domain
        self.names: dict[str, str] = {}
        seen: dict[str, str] = {}
        for obj in problem.all_objects:
            text = config.object_name(obj.name)
            other = seen.get(text.lower())
            if other is not None:
                raise TranslationConfigError(
                    config.source, "objects",
                    f"objects {other!r} and {obj.name!r} of problem {problem.name!r} are both called {text!r}; "
                    "names must be unique so text can be read back")
            seen[text.lower()] = obj.name
            self.names[obj.name] = text
        self._cache: dict[str, Any] = {}

    def object_name(self, name: str) -> str:
        return self.names.get(name, self.config.object_name(name))

    def visible(self, atom: Atom) -> bool:
        """False for hidden predicates (they are never rendered nor parsed)."""
        return atom.predicate not in self.config.hidden_predicates

    def atom(self, atom: Atom) -> str:
        """``(on a b)`` → ``the red block is on top of the blue block``."""
        t = self.config.predicates.get(atom.predicate)
        if t is None:
            raise PlanprobeError(f"predicate {atom.predicate!r} has no template in {self.config.source}")
        return t.render([self.object_name(a) for a in atom.args])

    def atoms(self, atoms: Iterable[Atom], sort: bool = True) -> str:
        """Facts as one phrase (``a, b and c``), hidden predicates left out; sorted
        the way PlanBench sorts them unless ``sort`` is false (keep the given order)."""
        items = [a for a in atoms if self.visible(a)]
        if sort:
            items = sorted(items, key=atom_sort_key)
        return join_items([self.atom(a) for a in items])

    def init(self) -> str:
        return self.atoms(self.problem.init)

    def goal(self) -> str:
        """The goal's facts (negative goals are said with "it is not the case that")."""
        pos = sorted((lit.atom for lit in self.problem.goal if lit.positive and not lit.is_equality),
                     key=atom_sort_key)
        items = [self.atom(a) for a in pos if self.visible(a)]
        items += [f"it is not the case that {self.atom(lit.atom)}" for lit in self.problem.goal
                  if not lit.positive and not lit.is_equality and self.visible(lit.atom)]
        return join_items(items)

    def action(self, step: str | GroundAction | Sequence[str]) -> str:
        """``(unstack a b)`` (or a ``GroundAction`` / ``("unstack", "a", "b")``) → its sentence."""
        if isinstance(step, GroundAction):
            name, args = step.name, step.args
        elif isinstance(step, str):
            name, args = parse_step(step)
        else:
            name, *rest = step
            name, args = name.lower(), tuple(a.lower() for a in rest)
        t = self.config.actions.get(name)
        schema = self.domain.action(name)
        if t is None or schema is None:
            raise PlanprobeError(f"action {name!r} is not an action of PDDL domain {self.domain.name!r}")
        if len(args) != schema.arity:
            raise PlanprobeError(f"action {name!r} takes {schema.arity} argument{'' if schema.arity == 1 else 's'}, "
                                 f"got {len(args)}")
        return t.render([self.object_name(a) for a in args])

    def plan(self, steps: Iterable[str | GroundAction | Sequence[str]]) -> list[str]:
        """One sentence per step."""
        return [self.action(s) for s in steps]


def translator(problem: Problem, config: DomainTranslation | str | Path | None = None) -> Translator:
    """A ``Translator`` for ``problem``: with ``config`` a loaded config, a built-in
    name or a JSON path; without, the built-in config for the problem's domain, or
    ``generic_translation`` when there is none."""
    if config is None:
        try:
            cfg = translation_for(problem.domain)
        except PlanprobeError:
            cfg = problem._cache.get("generic_translation") or generic_translation(problem.domain)
            problem._cache["generic_translation"] = cfg
    elif isinstance(config, DomainTranslation):
        cfg = config
    else:
        cfg = load_translation(config)
    cache = problem._cache.setdefault("translators", {})
    key = id(cfg)
    tr = cache.get(key)
    if tr is None or tr.config is not cfg:
        tr = cache[key] = Translator(cfg, problem)
    return tr
