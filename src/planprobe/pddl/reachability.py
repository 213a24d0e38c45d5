"""Which ground actions can ever apply: lifted, delete-relaxed reachability by joins.

Why not "enumerate every binding, then test": the number of bindings is the
product of the parameters' domains (Freecell's untyped ``sendtohome`` has six
parameters over ~70 objects), while the actions that can ever apply are few.
Instead, as in Fast Downward's translator (a Datalog exploration), an action is
found from its preconditions: each time an atom becomes reachable, every
precondition it matches binds some parameters, and the remaining positive
preconditions are *joined* against the atoms reached so far, through hash
indexes on their already-bound arguments. A binding is thus extended only by
values that make a precondition true, and equality and negative static
preconditions prune it as soon as their parameters are bound. Parameters that
occur in no positive precondition are enumerated from their type last.

The result is the same set the old enumerate-and-test grounder found — bindings
that respect types, equality and static preconditions and whose positive
preconditions are reachable when delete effects are ignored — returned in the
same canonical order (by schema, then by each argument's position in the object
list), so plans found over it do not depend on how it was computed.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from .budget import Budget
from .model import Action, Problem

__all__ = ["GroundingStats", "reachable_bindings"]

_CHECK, _EXTEND, _FREE = 0, 1, 2  # kinds of join steps


class GroundingStats:
    """What grounding cost: ``probes`` candidate values tried while extending
    bindings, ``bindings`` ground actions found, ``atoms`` atoms reached."""

    __slots__ = ("atoms", "bindings", "probes")

    def __init__(self) -> None:
        self.probes = self.bindings = self.atoms = 0

    def as_dict(self) -> dict[str, int]:
        return {"probes": self.probes, "bindings": self.bindings, "atoms": self.atoms}


class _Plan:
    """How to extend the binding of one schema once one precondition (the trigger) matched."""

    __slots__ = ("schema_index", "steps", "trigger", "trigger_checks")

    def __init__(self, schema_index: int, trigger, trigger_checks, steps):
        self.schema_index, self.trigger, self.trigger_checks, self.steps = schema_index, trigger, trigger_checks, steps


def _slots(args: tuple[str, ...], index: dict[str, int]) -> tuple:
    """An atom's arguments as parameter indexes (int) or constants (str)."""
    return tuple(index.get(x, x) for x in args)


def _vars(slots: tuple) -> set[int]:
    return {s for s in slots if s.__class__ is int}


class _Compiled:
    """One schema: its positive preconditions, checks, type domains and join plans."""

    def __init__(self, i: int, schema: Action, allowed: list[frozenset[str] | None], domains: list[list[str]],
                 static: frozenset[str]):
        index = {p.name: n for n, p in enumerate(schema.parameters)}
        self.index, self.schema, self.arity, self.allowed = i, schema, len(schema.parameters), allowed
        self.domains = domains  # each parameter's objects, in object-list order
        self.adds = tuple((a.predicate, _slots(a.args, index)) for a in schema.add_effects)
        self.positive: list[tuple[str, tuple[Any, ...]]] = []  # (pred, slots)
        self.checks: list[tuple[set[int], tuple[Any, ...]]] = []  # (vars, check): ("eq", a, b, positive) or ("nstatic", pred, slots)
        for lit in schema.precondition:
            slots = _slots(lit.atom.args, index)
            if lit.is_equality:
                self.checks.append((_vars(slots), ("eq", slots[0], slots[1], lit.positive)))
            elif lit.positive:
                self.positive.append((lit.atom.predicate, slots))
            elif lit.atom.predicate in static:
                self.checks.append((_vars(slots), ("nstatic", lit.atom.predicate, slots)))
            # a negative precondition on a changing predicate: ignored (delete relaxation over-approximates)
        self.static = static

    def plan(self, trigger: int | None) -> tuple[list, list]:
        """Join steps after ``trigger`` (an index into ``positive``; None: no trigger)
        and the checks decidable once the trigger is bound."""
        bound: set[int] = set()
        if trigger is not None:
            bound |= _vars(self.positive[trigger][1])
        pending_checks = list(self.checks)

        def due() -> list:
            nonlocal pending_checks
            now = [c for vs, c in pending_checks if vs <= bound]
            pending_checks = [(vs, c) for vs, c in pending_checks if not vs <= bound]
            return now

        trigger_checks = due()
        rest = [k for k in range(len(self.positive)) if k != trigger]
        steps: list[tuple[Any, ...]] = []  # (kind, ...) of six fields; see _CHECK, _EXTEND, _FREE
        while rest:
            # most bound arguments first; then a static predicate (its relation never grows); then file order
            def score(k: int, bound: set[int] = bound) -> tuple:
                pred, slots = self.positive[k]
                free = _vars(slots) - bound
                n_bound = sum(1 for s in slots if s.__class__ is not int or s in bound)
                return (not free, n_bound, pred in self.static, -k)

            k = max(rest, key=score)
            rest.remove(k)
            pred, slots = self.positive[k]
            free = _vars(slots) - bound
            if not free:
                steps.append((_CHECK, pred, slots, None, None, None))
            else:
                keypos = tuple(n for n, s in enumerate(slots) if s.__class__ is not int or s in bound)
                keyslots = tuple(slots[n] for n in keypos)
                newpos = tuple((n, s) for n, s in enumerate(slots) if n not in keypos)
                bound |= free
                steps.append((_EXTEND, pred, keyslots, keypos, newpos, None))
            steps[-1] = (*steps[-1][:5], due())
        for v in range(self.arity):
            if v not in bound:
                bound.add(v)
                steps.append((_FREE, v, None, None, None, due()))
        return trigger_checks, steps


def reachable_bindings(problem: Problem, budget: Budget | None = None,
                       stats: GroundingStats | None = None) -> list[tuple[Action, tuple[str, ...]]]:
    """Every ``(schema, args)`` whose action can apply in some state reachable
    when delete effects are ignored, in canonical order. Checks ``budget``."""
    budget = budget if budget is not None else Budget(None)
    stats = stats if stats is not None else GroundingStats()
    domain = problem.domain
    objects = [o.name for o in problem.all_objects]
    position = {name: n for n, name in enumerate(objects)}
    obj_type = {o.name: o.type for o in problem.all_objects}
    static = domain.static_predicates
    init = {(a.predicate, a.args) for a in problem.init}

    type_domains: dict[str, tuple[frozenset[str] | None, list[str]]] = {}

    def of_type(t: str) -> tuple[frozenset[str] | None, list[str]]:
        if t not in type_domains:
            members = [o for o in objects if domain.is_subtype(obj_type[o], t)]
            type_domains[t] = (None if len(members) == len(objects) else frozenset(members), members)
        return type_domains[t]

    compiled = [_Compiled(i, s, [of_type(p.type)[0] for p in s.parameters], [of_type(p.type)[1] for p in s.parameters],
                          static)
                for i, s in enumerate(domain.actions)]

    reached: set[tuple[str, tuple[str, ...]]] = set()
    indexes: dict[str, list[tuple[tuple[int, ...], dict]]] = {}
    index_of: dict[tuple[str, tuple[int, ...]], dict] = {}

    def index(pred: str, keypos: tuple[int, ...]) -> dict:
        key = (pred, keypos)
        if key not in index_of:
            index_of[key] = {}
            indexes.setdefault(pred, []).append((keypos, index_of[key]))
        return index_of[key]

    triggers: dict[str, list[_Plan]] = {}
    free_plans: list[_Plan] = []
    for c in compiled:
        if not c.positive:
            checks, steps = c.plan(None)
            free_plans.append(_Plan(c.index, None, checks, steps))
            continue
        for k, (pred, slots) in enumerate(c.positive):
            checks, steps = c.plan(k)
            steps = [(kind, pred_, keyslots, keypos, newpos, chk) if kind != _EXTEND
                     else (kind, index(pred_, keypos), keyslots, keypos, newpos, chk)
                     for kind, pred_, keyslots, keypos, newpos, chk in steps]
            triggers.setdefault(pred, []).append(_Plan(c.index, slots, checks, steps))

    found: set[tuple[int, tuple[str, ...]]] = set()
    queue: deque[tuple[str, tuple[str, ...]]] = deque()
    queued: set[tuple[str, tuple[str, ...]]] = set()
    work = [0]  # probes since the last budget tick

    def spend() -> None:
        budget.tick(work[0])
        stats.probes += work[0]
        work[0] = 0

    def holds(check, binding: list) -> bool:
        if check[0] == "eq":
            _, a, b, positive = check
            va = binding[a] if a.__class__ is int else a
            vb = binding[b] if b.__class__ is int else b
            return (va == vb) == positive
        _, pred, slots = check
        return (pred, tuple(binding[s] if s.__class__ is int else s for s in slots)) not in init

    def emit(c: _Compiled, binding: list) -> None:
        args = tuple(binding)
        key = (c.index, args)
        if key in found:
            return
        found.add(key)
        for pred, slots in c.adds:
            atom = (pred, tuple(args[s] if s.__class__ is int else s for s in slots))
            if atom not in reached and atom not in queued:
                queued.add(atom)
                queue.append(atom)

    def join(c: _Compiled, steps: list, i: int, binding: list) -> None:
        if i == len(steps):
            emit(c, binding)
            return
        kind, a, keyslots, _keypos, newpos, checks = steps[i]
        if kind == _CHECK:
            work[0] += 1
            if (a, tuple(binding[s] if s.__class__ is int else s for s in keyslots)) in reached \
                    and all(holds(ch, binding) for ch in checks):
                join(c, steps, i + 1, binding)
            return
        if kind == _FREE:
            if work[0] > 4096:
                spend()
            for obj in c.domains[a]:
                work[0] += 1
                binding[a] = obj
                if all(holds(ch, binding) for ch in checks):
                    join(c, steps, i + 1, binding)
            binding[a] = None
            return
        key = tuple(binding[s] if s.__class__ is int else s for s in keyslots)
        candidates = a.get(key)
        if not candidates:
            return
        if work[0] > 4096:
            spend()
        allowed = c.allowed
        for args in candidates:
            work[0] += 1
            assigned = []
            ok = True
            for n, v in newpos:
                value = args[n]
                cur = binding[v]
                if cur is None:
                    dom = allowed[v]
                    if dom is not None and value not in dom:
                        ok = False
                        break
                    binding[v] = value
                    assigned.append(v)
                elif cur != value:
                    ok = False
                    break
            if ok and all(holds(ch, binding) for ch in checks):
                join(c, steps, i + 1, binding)
            for v in assigned:
                binding[v] = None

    def start(plan: _Plan, args: tuple[str, ...] | None) -> None:
        c = compiled[plan.schema_index]
        binding: list = [None] * c.arity
        if args is not None:
            for s, value in zip(plan.trigger, args):
                if s.__class__ is int:
                    cur = binding[s]
                    if cur is None:
                        dom = c.allowed[s]
                        if dom is not None and value not in dom:
                            return
                        binding[s] = value
                    elif cur != value:
                        return
                elif s != value:
                    return
        if all(holds(ch, binding) for ch in plan.trigger_checks):
            join(c, plan.steps, 0, binding)

    for atom in sorted(init, key=lambda a: (a[0], [position.get(x, -1) for x in a[1]])):
        queued.add(atom)
        queue.append(atom)
    for plan in free_plans:
        start(plan, None)
    budget.stage = "grounding"
    while queue:
        atom = queue.popleft()
        reached.add(atom)
        pred, args = atom
        for keypos, idx in indexes.get(pred, ()):
            idx.setdefault(tuple(args[n] for n in keypos), []).append(args)
        for plan in triggers.get(pred, ()):
            work[0] += 1
            start(plan, args)
        if work[0] > 4096:
            spend()
    stats.probes += work[0]
    stats.atoms = len(reached)
    stats.bindings = len(found)
    schemas = domain.actions
    ordered = sorted(found, key=lambda k: (k[0], [position[x] for x in k[1]]))
    return [(schemas[i], args) for i, args in ordered]

