"""Obfuscation of any PDDL domain and problem: the same problem under other names.

Why (seed 004, "Obfuscation of domains"): names like ``pick-up`` or ``truck``
let a model lean on common sense instead of the domain model. For a planner
the obfuscated problem is the same problem; for a model it is a test of
whether it plans from the stated rules. Two styles:

* ``mystery`` — deceptive real words (PlanBench's Mystery Blocksworld and
  ``obfuscated_deceptive_logistics``). For the two standard domains the
  mapping is PlanBench's own (``pick-up`` → ``attack``, ``on`` → ``craves``,
  ``load-truck`` → ``clip``, …); any other name draws a seeded word from
  ``obfuscation_words.txt``.
* ``random`` — random alphanumeric strings (PlanBench's
  ``obfuscated_randomized_logistics``): 16 characters for predicates, actions,
  types and the domain, 6 for objects.

Renamed: the domain, its types, predicates, actions and constants, the
problem's objects, and action/predicate parameters (to ``?x1``, ``?x2``…, since
``?truck`` would give the game away). Objects are named in the style
(``objects="style"``: words or random strings), ``o0``, ``o1``… in a seeded
order (``"neutral"``, PlanBench's choice for Logistics), or kept (``"keep"``,
PlanBench's Mystery Blocksworld).

The renaming is a bijection per kind of name, returned with the result, so a
plan for the obfuscated problem translates back (``Renaming.restore_plan``) to
a plan for the original with the same validity — tested on many problems.
Deterministic: the same seed gives the same names.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from ..errors import PlanprobeError
from .model import (
    EQUALITY,
    ROOT_TYPE,
    Action,
    Atom,
    Domain,
    PDDLLiteral,
    Predicate,
    Problem,
    TypedName,
)
from .simulator import parse_step

__all__ = [
    "OBJECT_NAMING",
    "STYLES",
    "Obfuscation",
    "Renaming",
    "obfuscate",
    "obfuscate_domain",
    "obfuscate_problem",
    "words",
]

STYLES = ("mystery", "random")
OBJECT_NAMING = ("style", "neutral", "keep")
_ALNUM = string.ascii_lowercase + string.digits
_RESERVED = frozenset({"and", "not", "or", "either", "object", "define", "domain", "problem", "forall", "exists",
                       "when", "imply", "increase", "decrease", "total-cost"})
_UNMAPPED = "~"  # marks a plan token outside the vocabulary being translated (see Renaming.translate_step)

# PlanBench's deceptive vocabularies (instances/blocksworld/mystery, obfuscated_deceptive_logistics)
_PLANBENCH_MYSTERY = (
    ({"pick-up", "put-down", "stack", "unstack"}, {"clear", "ontable", "handempty", "holding", "on"}, {
        "domain": "mystery-4ops",
        "actions": {"pick-up": "attack", "put-down": "succumb", "stack": "overcome", "unstack": "feast"},
        "predicates": {"clear": "province", "ontable": "planet", "handempty": "harmony", "holding": "pain",
                       "on": "craves"},
    }),
    ({"load-truck", "load-airplane", "unload-truck", "unload-airplane", "drive-truck", "fly-airplane"},
     {"obj", "truck", "location", "airplane", "city", "airport", "at", "in", "in-city"}, {
        "domain": "obfuscated_deceptive_logistics",
        "actions": {"load-truck": "clip", "load-airplane": "sip", "unload-truck": "tightfisted",
                    "unload-airplane": "paltry", "drive-truck": "wretched", "fly-airplane": "memory"},
        "predicates": {"obj": "hand", "truck": "sneeze", "location": "texture", "airplane": "cats",
                       "city": "stupendous", "airport": "spring", "at": "next", "in": "vase",
                       "in-city": "collect"},
    }),
)


@lru_cache(maxsize=1)
def words() -> tuple[str, ...]:
    """The embedded word list for deceptive names."""
    text = resources.files(__package__).joinpath("obfuscation_words.txt").read_text(encoding="utf-8")
    return tuple(w.strip() for w in text.splitlines() if w.strip() and not w.startswith("#"))


@dataclass(frozen=True)
class Renaming:
    """Original name → obfuscated name, per kind of name (each a bijection)."""

    style: str
    domain: tuple[str, str]
    actions: dict[str, str]
    predicates: dict[str, str]
    types: dict[str, str] = field(default_factory=dict)
    objects: dict[str, str] = field(default_factory=dict)  # the domain's constants and the problem's objects

    def inverse(self) -> Renaming:
        inv = lambda m: {v: k for k, v in m.items()}
        return Renaming(self.style, (self.domain[1], self.domain[0]), inv(self.actions), inv(self.predicates),
                        inv(self.types), inv(self.objects))

    def translate_step(self, step: str) -> str:
        """``(pick-up a)`` in the original vocabulary → ``(attack a)``. A name the
        renaming does not know is kept, but marked with ``~`` when it happens to be
        a name of the other vocabulary, so an invalid step cannot become valid."""
        name, args = parse_step(step)
        targets_a, targets_o = self._targets()
        new_name = self.actions.get(name) or (name + _UNMAPPED if name in targets_a else name)
        new_args = [self.objects.get(a) or (a + _UNMAPPED if a in targets_o else a) for a in args]
        return f"({' '.join((new_name, *new_args))})"

    def obfuscate_plan(self, steps) -> list[str]:
        """A plan for the original problem → the same plan for the obfuscated one."""
        return [self.translate_step(s) for s in steps]

    def restore_plan(self, steps) -> list[str]:
        """A plan for the obfuscated problem → the same plan for the original one."""
        inverse = self._cache("inverse", self.inverse)
        return [inverse.translate_step(s) for s in steps]

    def restore_atom(self, atom: Atom) -> Atom:
        inverse = self._cache("inverse", self.inverse)
        return Atom(inverse.predicates.get(atom.predicate, atom.predicate),
                    tuple(inverse.objects.get(a, a) for a in atom.args))

    def to_json(self) -> dict[str, Any]:
        return {"style": self.style, "domain": list(self.domain), "actions": self.actions,
                "predicates": self.predicates, "types": self.types, "objects": self.objects}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Renaming:
        return cls(str(data["style"]), (data["domain"][0], data["domain"][1]), dict(data["actions"]),
                   dict(data["predicates"]), dict(data.get("types", {})), dict(data.get("objects", {})))

    def _targets(self) -> tuple[frozenset[str], frozenset[str]]:
        return self._cache("targets", lambda: (frozenset(self.actions.values()), frozenset(self.objects.values())))

    def _cache(self, key: str, build):
        store = self.__dict__.setdefault("_memo", {})
        if key not in store:
            store[key] = build()
        return store[key]


@dataclass(frozen=True)
class Obfuscation:
    """An obfuscated problem (its ``domain`` is the obfuscated domain) and how it was renamed."""

    problem: Problem
    renaming: Renaming

    @property
    def domain(self) -> Domain:
        return self.problem.domain


class _Namer:
    """Draws fresh names in a style, never twice and never a name in ``taken``.

    Words are drawn at random from the list (a few tries, then a numbered word:
    ``lantern2``), so naming k objects costs O(k), not a shuffle of the list."""

    def __init__(self, style: str, rng: random.Random, taken: set[str]):
        self.style, self.rng, self.taken = style, rng, set(taken) | _RESERVED
        self._round = 1

    def take(self, name: str) -> str:
        self.taken.add(name)
        return name

    def fresh(self, length: int = 16) -> str:
        rng = self.rng
        if self.style == "random":
            while True:
                name = rng.choice(string.ascii_lowercase) + "".join(rng.choice(_ALNUM) for _ in range(length - 1))
                if name not in self.taken:
                    return self.take(name)
        pool = words()
        while True:
            for _ in range(24):
                word = pool[rng.randrange(len(pool))]
                name = word if self._round == 1 else f"{word}{self._round}"
                if name not in self.taken:
                    return self.take(name)
            self._round += 1  # the list is (nearly) used up: numbered words from now on


def _check_style(style: str) -> None:
    if style not in STYLES:
        raise PlanprobeError(f"obfuscation style {style!r}: expected one of {', '.join(STYLES)}")


def _known_mapping(domain: Domain) -> dict | None:
    actions = {a.name for a in domain.actions}
    predicates = {p.name for p in domain.predicates}
    for a, p, mapping in _PLANBENCH_MYSTERY:
        if actions == a and predicates == p and not domain.types and not domain.constants:
            return mapping
    return None


def _domain_names(domain: Domain) -> set[str]:
    names = {domain.name, *(a.name for a in domain.actions), *(p.name for p in domain.predicates),
             *(t.name for t in domain.types), *(c.name for c in domain.constants)}
    return names | {part for n in list(names) for part in n.split("-")}


def obfuscate_domain(domain: Domain, style: str = "mystery", seed: int | str = 0) -> tuple[Domain, Renaming]:
    """The domain under new names, and the renaming (without objects; constants included)."""
    _check_style(style)
    rng = random.Random(f"planprobe/obfuscate/domain/{style}/{seed}")
    known = _known_mapping(domain) if style == "mystery" else None
    fixed: set[str] = set()
    if known:
        fixed = {known["domain"], *known["actions"].values(), *known["predicates"].values()}
    namer = _Namer(style, rng, _domain_names(domain) | fixed)
    if known:
        new_domain_name = namer.take(known["domain"])
        actions = {a.name: namer.take(known["actions"][a.name]) for a in domain.actions}
        predicates = {p.name: namer.take(known["predicates"][p.name]) for p in domain.predicates}
    else:
        new_domain_name = ("mystery-" if style == "mystery" else "") + namer.fresh()
        predicates = {p.name: namer.fresh() for p in domain.predicates}
        actions = {a.name: namer.fresh() for a in domain.actions}
    types = {t.name: namer.fresh() for t in domain.types if t.name != ROOT_TYPE}
    constants = {c.name: namer.fresh(6) for c in domain.constants}
    renaming = Renaming(style, (domain.name, new_domain_name), actions, predicates, types, constants)
    return _rename_domain(domain, renaming), renaming


def _rename_domain(domain: Domain, r: Renaming) -> Domain:
    def ty(t: str) -> str:
        return r.types.get(t, t)

    def lit(x: PDDLLiteral, variables: dict[str, str]) -> PDDLLiteral:
        return PDDLLiteral(atom(x.atom, variables), x.positive)

    def atom(a: Atom, variables: dict[str, str]) -> Atom:
        pred = a.predicate if a.predicate == EQUALITY else r.predicates[a.predicate]
        return Atom(pred, tuple(variables.get(x) or r.objects.get(x, x) for x in a.args))

    def action(a: Action) -> Action:
        variables = {p.name: f"?x{i}" for i, p in enumerate(a.parameters, 1)}
        return Action(
            name=r.actions[a.name],
            parameters=tuple(TypedName(variables[p.name], ty(p.type)) for p in a.parameters),
            precondition=tuple(lit(x, variables) for x in a.precondition),
            add_effects=tuple(atom(x, variables) for x in a.add_effects),
            del_effects=tuple(atom(x, variables) for x in a.del_effects),
        )

    return Domain(
        name=r.domain[1],
        requirements=domain.requirements,
        types=tuple(TypedName(r.types[t.name], ty(t.type)) for t in domain.types),
        constants=tuple(TypedName(r.objects[c.name], ty(c.type)) for c in domain.constants),
        predicates=tuple(Predicate(r.predicates[p.name], tuple(TypedName(f"?x{i}", ty(q.type))
                                                                for i, q in enumerate(p.parameters, 1)))
                         for p in domain.predicates),
        actions=tuple(action(a) for a in domain.actions),
        filename=f"{r.domain[1]}.pddl",
    )


def obfuscate_problem(problem: Problem, domain: Domain, renaming: Renaming, objects: str = "style",
                      seed: int | str = 0) -> Obfuscation:
    """``problem`` (for the original domain) restated for the obfuscated ``domain``
    that ``obfuscate_domain`` returned with ``renaming``; objects named per ``objects``
    (style | neutral | keep). The returned renaming adds the objects."""
    if objects not in OBJECT_NAMING:
        raise PlanprobeError(f"object naming {objects!r}: expected one of {', '.join(OBJECT_NAMING)}")
    if problem.domain.name != renaming.domain[0]:
        raise PlanprobeError(f"problem {problem.name!r} is for domain {problem.domain.name!r}, but the renaming "
                             f"is for {renaming.domain[0]!r}")
    rng = random.Random(f"planprobe/obfuscate/objects/{renaming.style}/{objects}/{seed}")
    own = [o for o in problem.objects if o.name not in renaming.objects]
    if objects == "keep":
        names = {o.name: o.name for o in own}
    elif objects == "neutral":
        order = list(range(len(own)))
        rng.shuffle(order)
        names = {o.name: f"o{k}" for o, k in zip(own, order)}
    else:
        taken = (_domain_names(problem.domain) | set(renaming.actions.values()) | set(renaming.predicates.values())
                 | set(renaming.types.values()) | set(renaming.objects.values()) | {renaming.domain[1]})
        namer = _Namer(renaming.style, rng, taken)
        names = {o.name: namer.fresh(6) for o in own}
    full = Renaming(renaming.style, renaming.domain, renaming.actions, renaming.predicates, renaming.types,
                    {**renaming.objects, **names})
    def ty(t: str) -> str:
        return full.types.get(t, t)
    ren = lambda a: Atom(full.predicates[a.predicate] if a.predicate != EQUALITY else EQUALITY,
                         tuple(full.objects.get(x, x) for x in a.args))
    new_objects = [TypedName(names[o.name], ty(o.type)) for o in own]
    if objects == "neutral":  # list them by new name, so the listing does not group them by kind
        new_objects.sort(key=lambda o: int(o.name[1:]))
    obf = Problem(
        name=f"instance-{_digest(problem)}",
        domain=domain,
        objects=tuple(new_objects),
        init=tuple(ren(a) for a in problem.init),
        goal=tuple(PDDLLiteral(ren(x.atom), x.positive) for x in problem.goal),
        filename=problem.filename,
    )
    return Obfuscation(obf, full)


def _digest(problem: Problem) -> str:
    """A short stable id for a problem (its name may give the domain away)."""
    import hashlib

    text = "|".join((problem.name, *(str(a) for a in problem.init), *(str(g) for g in problem.goal)))
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def obfuscate(problem: Problem, style: str = "mystery", seed: int | str = 0, objects: str = "style") -> Obfuscation:
    """Obfuscate a problem and its domain together (for many problems of one
    domain, call ``obfuscate_domain`` once and ``obfuscate_problem`` for each)."""
    domain, renaming = obfuscate_domain(problem.domain, style, seed)
    return obfuscate_problem(problem, domain, renaming, objects, seed)
