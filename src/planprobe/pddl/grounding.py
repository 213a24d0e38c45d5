"""Grounding: a problem's atoms as bits of an int, its actions as bit masks.

A state is a Python ``int`` whose bit *i* is set when atom *i* is true, so
"are the preconditions met" and "apply the effects" are a few integer
operations. Atoms are interned lazily (init and goal atoms first), so a
problem with many objects costs only what is used.

Two ways to get ground actions:

* ``GroundProblem.ground(name, args)`` — one action on demand, checked against
  the action's parameter types and cached. This is what the validator uses: a
  plan touches a handful of actions, grounding all of them would be waste.
* ``GroundProblem.actions()`` — all actions that can ever apply: bindings that
  respect types and equality, whose static preconditions hold and whose other
  positive preconditions are reachable from the initial state when delete
  effects are ignored, found by joins (``reachability``). This is what the
  planner uses.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence

from .budget import Budget
from .errors import PlanStepError
from .model import ROOT_TYPE, Action, Atom, PDDLLiteral, Problem
from .reachability import GroundingStats, reachable_bindings

__all__ = ["GroundAction", "GroundProblem", "State", "ground"]

State = int  # bit i set <=> atom i (GroundProblem.atoms[i]) is true


class GroundAction:
    """An action with all parameters bound.

    ``pre_pos``/``pre_neg``: atoms that must be true/false; ``add``/``delete``:
    effects (delete first, then add, as in PDDL); ``keep`` is ``~delete``;
    ``impossible`` is set when an equality precondition is false for these
    arguments (e.g. ``(not (= ?x ?y))`` with x = y). ``bits`` holds one bit per
    precondition of the schema, in order (0 for an equality), so ``unmet`` can
    name the false literals without keeping literal objects for every action.
    """

    __slots__ = ("_text", "add", "args", "bits", "delete", "impossible", "keep", "name", "pre_neg", "pre_pos",
                 "schema")

    def __init__(self, schema: Action, args: tuple[str, ...], bits: tuple[int, ...], pre_pos: int, pre_neg: int,
                 impossible: bool, add: int, delete: int):
        self.name, self.args, self.schema, self.bits = schema.name, args, schema, bits
        self.pre_pos, self.pre_neg, self.impossible = pre_pos, pre_neg, impossible
        self.add, self.delete, self.keep = add, delete, ~delete
        self._text = f"({' '.join((self.name, *args))})"

    def applicable(self, state: State) -> bool:
        return state & self.pre_pos == self.pre_pos and not state & self.pre_neg and not self.impossible

    def apply(self, state: State, ignore_deletes: bool = False) -> State:
        return state | self.add if ignore_deletes else (state & self.keep) | self.add

    @property
    def preconditions(self) -> tuple[PDDLLiteral, ...]:
        """The ground precondition literals, in the schema's order."""
        binding = {p.name: a for p, a in zip(self.schema.parameters, self.args)}
        return tuple(PDDLLiteral(Atom(lit.atom.predicate, tuple(binding.get(x, x) for x in lit.atom.args)), lit.positive)
                     for lit in self.schema.precondition)

    def unmet(self, state: State) -> tuple[PDDLLiteral, ...]:
        """The precondition literals false in ``state`` (violated equalities included)."""
        out = []
        for lit, bit in zip(self.preconditions, self.bits):
            holds = (lit.atom.args[0] == lit.atom.args[1]) if not bit else bool(state & bit)
            if holds != lit.positive:
                out.append(lit)
        return tuple(out)

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"GroundAction{self._text}"


class _Template:
    """An action schema compiled for fast instantiation: each atom as (predicate,
    slots) where a slot is a parameter index or a constant name."""

    __slots__ = ("adds", "dels", "pre")

    def __init__(self, schema: Action):
        index = {p.name: i for i, p in enumerate(schema.parameters)}

        def slots(atom: Atom) -> tuple:
            return tuple(index.get(x, x) for x in atom.args)

        self.pre = tuple((lit.atom.predicate, slots(lit.atom), lit.positive, lit.is_equality)
                         for lit in schema.precondition)
        self.adds = tuple((a.predicate, slots(a)) for a in schema.add_effects)
        self.dels = tuple((a.predicate, slots(a)) for a in schema.del_effects)


class GroundProblem:
    """A parsed problem prepared for fast simulation; build it once per problem
    (``ground(problem)`` caches it on the problem) and reuse it for every plan."""

    def __init__(self, problem: Problem):
        self.problem, self.domain = problem, problem.domain
        self.atoms: list[Atom] = []
        self._ids: dict[tuple[str, tuple[str, ...]], int] = {}  # Atom keys; a plain tuple finds them too
        self._lock = threading.Lock()
        self._types = {o.name: o.type for o in problem.all_objects}
        self._ground: dict[tuple[str, tuple[str, ...]], GroundAction] = {}
        self._all: tuple[GroundAction, ...] | None = None
        self.grounding_stats: GroundingStats | None = None  # set by actions(): what grounding cost
        self._schemas: dict[str, Action] = {a.name: a for a in self.domain.actions}
        self._templates: dict[str, _Template] = self.domain._index.setdefault("templates", {})
        self.step_cache: dict[str, GroundAction] = {}  # raw plan-step text → action (see simulator.ground_step)
        self.init: State = self.mask(problem.init)
        goal = tuple((lit, 0 if lit.is_equality else 1 << self.atom_id(lit.atom)) for lit in problem.goal)
        self.goal_conditions: tuple[tuple[PDDLLiteral, int], ...] = goal
        self.goal_pos = self.goal_neg = 0
        self.goal_impossible = False
        for lit, bit in goal:
            if not bit:
                self.goal_impossible |= (lit.atom.args[0] == lit.atom.args[1]) != lit.positive
            elif lit.positive:
                self.goal_pos |= bit
            else:
                self.goal_neg |= bit

    # -- atoms and states ----------------------------------------------------
    def atom_id(self, atom: Atom) -> int:
        i = self._ids.get(atom)
        if i is None:
            with self._lock:
                i = self._ids.get(atom)
                if i is None:
                    i = len(self.atoms)
                    self.atoms.append(atom)
                    self._ids[atom] = i
        return i

    def mask(self, atoms: Iterable[Atom]) -> State:
        """The state in which exactly ``atoms`` are true."""
        m = 0
        for a in atoms:
            m |= 1 << self.atom_id(a)
        return m

    def decode(self, state: State) -> frozenset[Atom]:
        """The true atoms of ``state``."""
        atoms, out, i = self.atoms, [], 0
        while state:
            if state & 1:
                out.append(atoms[i])
            state >>= 1
            i += 1
        return frozenset(out)

    def holds(self, state: State, literal: PDDLLiteral) -> bool:
        if literal.is_equality:
            return (literal.atom.args[0] == literal.atom.args[1]) == literal.positive
        return bool(state >> self.atom_id(literal.atom) & 1) == literal.positive

    def goal_reached(self, state: State) -> bool:
        return state & self.goal_pos == self.goal_pos and not state & self.goal_neg and not self.goal_impossible

    def unmet_goals(self, state: State) -> tuple[PDDLLiteral, ...]:
        out = []
        for lit, bit in self.goal_conditions:
            holds = (lit.atom.args[0] == lit.atom.args[1]) if not bit else bool(state & bit)
            if holds != lit.positive:
                out.append(lit)
        return tuple(out)

    def object_type(self, name: str) -> str | None:
        return self._types.get(name)

    # -- actions -------------------------------------------------------------
    def ground(self, name: str, args: Sequence[str], step: str | None = None) -> GroundAction:
        """The ground action ``(name args…)``; raises ``PlanStepError`` for an
        unknown action, a wrong number of arguments, an unknown object or an
        argument of the wrong type. Names are matched case-insensitively."""
        key = (name, tuple(args))
        ga = self._ground.get(key)
        if ga is not None:
            return ga
        name, args = name.lower(), tuple(a.lower() for a in args)
        ga = self._ground.get((name, args))
        if ga is None:
            ga = self._make(name, args, step if step is not None else f"({' '.join((name, *args))})")
            self._ground[(name, args)] = ga
        self._ground[key] = ga
        return ga

    def _make(self, name: str, args: tuple[str, ...], step: str) -> GroundAction:
        schema = self._schemas.get(name)
        if schema is None:
            known = ", ".join(a.name for a in self.domain.actions)
            raise PlanStepError("unknown_action", step, f"unknown action {name!r} (the domain has: {known})")
        params = schema.parameters
        if len(args) != len(params):
            n = len(params)
            raise PlanStepError("arity", step, f"{name!r} takes {n} argument{'' if n == 1 else 's'} "
                                               f"{schema.signature()}, got {len(args)}")
        types, is_subtype = self._types, self.domain.is_subtype
        for i, (arg, param) in enumerate(zip(args, params)):
            t = types.get(arg)
            if t is None:
                raise PlanStepError("unknown_object", step, f"unknown object {arg!r} "
                                                            f"(the problem has: {self._object_list()})")
            if param.type != ROOT_TYPE and not is_subtype(t, param.type):
                raise PlanStepError("type", step, f"argument {i + 1} of {name!r} ({param.name}) must be "
                                                  f"of type {param.type!r}, but {arg!r} is of type {t!r}")
        return self._instantiate(schema, args)

    def _instantiate(self, schema: Action, args: tuple[str, ...]) -> GroundAction:
        tmpl = self._templates.get(schema.name)
        if tmpl is None:  # compiled once per domain, shared by all its problems
            tmpl = self._templates[schema.name] = _Template(schema)
        ids, atom_id = self._ids, self.atom_id
        bits = []
        pre_pos = pre_neg = 0
        impossible = False
        for pred, slots, positive, is_eq in tmpl.pre:
            bound = tuple([args[x] if x.__class__ is int else x for x in slots])
            if is_eq:
                impossible |= (bound[0] == bound[1]) != positive
                bits.append(0)
                continue
            i = ids.get((pred, bound))  # a plain tuple finds the Atom key: same hash, equal
            bit = 1 << (atom_id(Atom(pred, bound)) if i is None else i)
            bits.append(bit)
            if positive:
                pre_pos |= bit
            else:
                pre_neg |= bit
        add = delete = 0
        for pred, slots in tmpl.adds:
            bound = tuple([args[x] if x.__class__ is int else x for x in slots])
            i = ids.get((pred, bound))
            add |= 1 << (atom_id(Atom(pred, bound)) if i is None else i)
        for pred, slots in tmpl.dels:
            bound = tuple([args[x] if x.__class__ is int else x for x in slots])
            i = ids.get((pred, bound))
            delete |= 1 << (atom_id(Atom(pred, bound)) if i is None else i)
        return GroundAction(schema, args, tuple(bits), pre_pos, pre_neg, impossible, add, delete)

    def _object_list(self) -> str:
        names = list(self._types)
        return ", ".join(names[:20]) + (", …" if len(names) > 20 else "")

    def actions(self, budget: Budget | None = None) -> tuple[GroundAction, ...]:
        """Every ground action that can apply in some reachable state (an
        over-approximation: delete-relaxed reachability from the initial state,
        found by joins — see ``reachability``). Computed once and cached;
        ``budget`` bounds the time the first call may take."""
        if self._all is None:
            stats = GroundingStats()
            bindings = reachable_bindings(self.problem, budget, stats)
            out = []
            for n, (schema, args) in enumerate(bindings):
                if budget is not None and n & 255 == 0:
                    budget.tick(256)
                ga = self._ground.get((schema.name, args))
                if ga is None:
                    ga = self._ground[(schema.name, args)] = self._instantiate(schema, args)
                out.append(ga)
            self.grounding_stats = stats
            self._all = tuple(out)
        return self._all


def ground(problem: Problem) -> GroundProblem:
    """The ``GroundProblem`` of ``problem``, built once and cached on it."""
    gp = problem._cache.get("ground")
    if gp is None:
        gp = problem._cache["ground"] = GroundProblem(problem)
    return gp
