"""The lifted PDDL model: what a domain and a problem *say*, independent of grounding.

Everything is immutable (NamedTuples and frozen dataclasses) so parsed domains
can be shared between threads, cases and cached ground problems. Names are
lower-cased at parse time because PDDL is case-insensitive; ``str()`` of every
piece prints valid PDDL.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

ROOT_TYPE = "object"
EQUALITY = "="
_EITHER = "(either "


def either_type(members: tuple[str, ...]) -> str:
    """The type of a parameter that accepts any of ``members``: PDDL's ``(either a b)``,
    kept as that text so ``str()`` of a parameter prints valid PDDL. One member is that type."""
    members = tuple(dict.fromkeys(members))
    return members[0] if len(members) == 1 else f"{_EITHER}{' '.join(members)})"


def type_members(type_name: str) -> tuple[str, ...]:
    """The member types of an ``(either …)`` type; a plain type is its only member."""
    if type_name.startswith(_EITHER):
        return tuple(type_name[len(_EITHER):-1].split())
    return (type_name,)


class Atom(NamedTuple):
    """``(predicate arg…)``; in an action schema an argument may be a ``?variable``."""

    predicate: str
    args: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"({' '.join((self.predicate, *self.args))})"

    def __repr__(self) -> str:
        return self.__str__()


class PDDLLiteral(NamedTuple):
    """An atom or its negation. Equality is an atom whose predicate is ``=``."""

    atom: Atom
    positive: bool = True

    @property
    def is_equality(self) -> bool:
        return self.atom.predicate == EQUALITY

    def negate(self) -> PDDLLiteral:
        return PDDLLiteral(self.atom, not self.positive)

    def __str__(self) -> str:
        return str(self.atom) if self.positive else f"(not {self.atom})"

    def __repr__(self) -> str:
        return self.__str__()


class TypedName(NamedTuple):
    """A parameter, object, constant or type with its (parent) type."""

    name: str
    type: str = ROOT_TYPE

    def __str__(self) -> str:
        return f"{self.name} - {self.type}"


class Predicate(NamedTuple):
    name: str
    parameters: tuple[TypedName, ...] = ()

    @property
    def arity(self) -> int:
        return len(self.parameters)

    def __str__(self) -> str:
        params = " ".join(f"{p.name} - {p.type}" for p in self.parameters)
        return f"({self.name}{' ' if params else ''}{params})"


@dataclass(frozen=True)
class Action:
    """A STRIPS action schema: a conjunction of literals (with ``=``) as
    precondition; add and delete effects."""

    name: str
    parameters: tuple[TypedName, ...]
    precondition: tuple[PDDLLiteral, ...]
    add_effects: tuple[Atom, ...]
    del_effects: tuple[Atom, ...]

    @property
    def arity(self) -> int:
        return len(self.parameters)

    def signature(self) -> str:
        """``(stack ?ob ?underob)`` — for messages."""
        return f"({' '.join((self.name, *(p.name for p in self.parameters)))})"


@dataclass(frozen=True)
class Domain:
    name: str
    requirements: tuple[str, ...]
    types: tuple[TypedName, ...]  # (type, parent type); ``object`` is implicit
    constants: tuple[TypedName, ...]
    predicates: tuple[Predicate, ...]
    actions: tuple[Action, ...]
    filename: str = field(default="domain.pddl", compare=False)
    _index: dict = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        parents = {t.name: t.type for t in self.types}
        self._index.update(
            actions={a.name: a for a in self.actions},
            predicates={p.name: p for p in self.predicates},
            constants={c.name: c.type for c in self.constants},
            parents=parents,
            ancestors={t: _ancestors(t, parents) for t in (*parents, ROOT_TYPE)},
        )

    def action(self, name: str) -> Action | None:
        return self._index["actions"].get(name.lower())

    def predicate(self, name: str) -> Predicate | None:
        return self._index["predicates"].get(name.lower())

    def constant_type(self, name: str) -> str | None:
        return self._index["constants"].get(name.lower())

    def has_type(self, name: str) -> bool:
        return all(t in self._index["ancestors"] for t in type_members(name))

    def ancestors(self, type_name: str) -> frozenset[str]:
        """The type itself and every type above it (always includes ``object``)."""
        return self._index["ancestors"][type_name]

    def is_subtype(self, type_name: str, of: str) -> bool:
        """Is every object of ``type_name`` an ``of``? ``of`` may be an ``(either …)`` type."""
        above = self._index["ancestors"].get(type_name, ())
        if of.startswith(_EITHER):
            return any(t in above for t in type_members(of))
        return of in above

    @property
    def static_predicates(self) -> frozenset[str]:
        """Predicates no action changes: their truth is fixed by the problem's init."""
        if "static" not in self._index:
            changed = {a.predicate for act in self.actions for a in (*act.add_effects, *act.del_effects)}
            self._index["static"] = frozenset(p.name for p in self.predicates if p.name not in changed)
        return self._index["static"]


@dataclass(frozen=True)
class Problem:
    name: str
    domain: Domain
    objects: tuple[TypedName, ...]  # the problem's own objects (the domain's constants are extra)
    init: tuple[Atom, ...]
    goal: tuple[PDDLLiteral, ...]
    filename: str = field(default="problem.pddl", compare=False)
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    @property
    def all_objects(self) -> tuple[TypedName, ...]:
        """Domain constants first, then the problem's objects."""
        if "all" not in self._cache:
            seen = {o.name for o in self.domain.constants}
            self._cache["all"] = (*self.domain.constants, *(o for o in self.objects if o.name not in seen))
        return self._cache["all"]

    def object_type(self, name: str) -> str | None:
        if "types" not in self._cache:
            self._cache["types"] = {o.name: o.type for o in self.all_objects}
        return self._cache["types"].get(name.lower())


def _ancestors(type_name: str, parents: dict[str, str]) -> frozenset[str]:
    seen = [type_name]
    while seen[-1] in parents and parents[seen[-1]] not in seen:
        seen.append(parents[seen[-1]])
    return frozenset((*seen, ROOT_TYPE))
