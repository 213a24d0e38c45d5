"""A PDDL parser for STRIPS domains and problems.

Supported: ``:requirements``, ``:types`` (``- parent``), ``:constants``,
``:predicates``, empty ``:functions``, ``:action`` with ``:parameters``,
``:precondition`` (``and``, ``not``, ``=``) and ``:effect`` (``and``, ``not``);
problems with ``:domain``, typed ``:objects``, ``:init`` and a ``:goal`` that is a
conjunction of literals. Empty sections such as ``(:types)`` are accepted (the
obfuscated PlanBench files have them; unified-planning rejects them). Predicate
and action parameters may have ``(either t1 t2 …)`` types (IPC's Zenotravel).
As in Fast Downward's reader, ``?`` always starts a new token (``(aircraft?a)``).

Why a parser of our own: files are untrusted input, every error must name
``file:line:column`` and what was expected, and parsing must be fast enough to
load thousands of instances in a test. Anything outside STRIPS (``or``,
``forall``, ``when``, numeric fluents…) is rejected with a precise message
rather than silently misread. The text is read into positioned S-expressions by
``sexpr``; this module interprets them as PDDL.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from .errors import PDDLSyntaxError
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
    either_type,
    type_members,
)
from .sexpr import Node, SList, Source, Sym, describe

__all__ = ["PDDLSyntaxError", "load", "load_domain", "load_problem", "parse_domain", "parse_problem"]

_NAME = re.compile(r"[a-z0-9_][a-z0-9_\-.@]*$")  # a name after lower-casing (keywords and variables stripped)
_UNSUPPORTED = {
    "or": "disjunctive conditions", "imply": "implications", "exists": "existential conditions",
    "forall": "universal quantifiers", "when": "conditional effects", "increase": "numeric effects",
    "decrease": "numeric effects", "assign": "numeric effects", "scale-up": "numeric effects",
    "scale-down": "numeric effects",
}


class _Parser:
    def __init__(self, text: str, filename: str):
        self.src = Source(text, filename)

    # -- generic helpers ---------------------------------------------------
    def error(self, node: Node | int, message: str) -> PDDLSyntaxError:
        pos = node if isinstance(node, int) else node.pos
        return self.src.error(pos, message)

    def sym(self, node: Node | None, what: str, parent: SList | None = None) -> Sym:
        if not isinstance(node, Sym):
            where = node if node is not None else (parent.end if parent is not None else 0)
            raise self.error(where, f"expected {what}, got {describe(node)}")
        return node

    def name(self, node: Node | None, what: str, parent: SList | None = None) -> Sym:
        sym = self.sym(node, what, parent)
        if not _NAME.match(sym.text):
            raise self.error(sym, f"expected {what}, got {sym.text!r}")
        return sym

    def variable(self, node: Node | None, parent: SList) -> Sym:
        sym = self.sym(node, "a variable like '?x'", parent)
        if not sym.text.startswith("?") or not _NAME.match(sym.text[1:]):
            raise self.error(sym, f"expected a variable like '?x', got {sym.text!r}")
        return sym

    def slist(self, node: Node | None, what: str, parent: SList) -> SList:
        if not isinstance(node, SList):
            raise self.error(node if node is not None else parent.end, f"expected {what}, got {describe(node)}")
        return node

    def typed_list(self, items: list[Node], parent: SList, what: str, variables: bool) -> Iterator[tuple[Sym, Sym]]:
        """``a b - t c`` → (a, t), (b, t), (c, object); positions kept for errors.
        Parameters (``variables``) may have an ``(either t1 t2 …)`` type, read as the
        Sym ``(either t1 t2 …)``; objects, constants and types may not."""
        pending: list[Sym] = []
        i = 0
        while i < len(items):
            node = items[i]
            if isinstance(node, Sym) and node.text == "-":
                if not pending:
                    raise self.error(node, f"expected {what} before '-'")
                if i + 1 >= len(items):
                    raise self.error(parent.end, "expected a type after '-', got ')'")
                type_node = items[i + 1]
                if isinstance(type_node, SList) and type_node and isinstance(type_node[0], Sym) \
                        and type_node[0].text == "either":
                    if not variables:
                        raise self.error(type_node, "'either' types are supported for predicate and action parameters "
                                                    "only: declare a common parent type")
                    type_sym = self.either(type_node)
                else:
                    type_sym = self.name(type_node, "a type name", parent)
                for p in pending:
                    yield p, type_sym
                pending = []
                i += 2
                continue
            pending.append(self.variable(node, parent) if variables else self.name(node, what, parent))
            i += 1
        for p in pending:
            yield p, Sym(ROOT_TYPE, p.pos)

    def either(self, node: SList) -> Sym:
        """``(either t1 t2 …)`` → the Sym ``(either t1 t2 …)`` (one member: that type)."""
        members = [self.name(m, "a type name", node).text for m in node[1:]]
        if not members:
            raise self.error(node, "expected at least one type in '(either …)'")
        return Sym(either_type(tuple(members)), node.pos)

    def header(self, top: SList, kind: str) -> Sym:
        """Checks ``(define (kind NAME) …`` and returns NAME."""
        if not top or not isinstance(top[0], Sym) or top[0].text != "define":
            raise self.error(top[0] if top else top, f"expected 'define', got {describe(top[0] if top else None)}")
        head = self.slist(top[1] if len(top) > 1 else None, f"'({kind} NAME)'", top)
        if not head or not isinstance(head[0], Sym) or head[0].text != kind:
            other = "problem" if kind == "domain" else "domain"
            found = describe(head[0] if head else None)
            hint = f" (this looks like a {other} file)" if head and isinstance(head[0], Sym) and \
                head[0].text == other else ""
            raise self.error(head[0] if head else head, f"expected '{kind}', got {found}{hint}")
        name = self.name(head[1] if len(head) > 1 else None, f"a {kind} name", head)
        if len(head) > 2:
            raise self.error(head[2], f"expected ')' after the {kind} name, got {describe(head[2])}")
        return name

    def sections(self, top: SList, known: tuple[str, ...], repeatable: tuple[str, ...] = ()) -> Iterator[tuple[str, SList]]:
        seen: set[str] = set()
        for node in top[2:]:
            sec = self.slist(node, "a section like '(:" + known[0] + " …)'", top)
            key = self.sym(sec[0] if sec else None, "a section keyword", sec)
            if key.text not in known:
                if key.text in (":functions",) and len(sec) > 1:
                    raise self.error(sec[1], "numeric fluents (:functions) are not supported: planprobe handles "
                                             "STRIPS with types, negative preconditions and equality")
                if key.text == ":functions":
                    continue  # an empty (:functions) section, as the Tarski writer emits
                if key.text in (":durative-action", ":derived", ":metric", ":constraints", ":timed-initial-literals"):
                    raise self.error(key, f"{key.text} is not supported: planprobe handles STRIPS with types, "
                                          "negative preconditions and equality")
                expected = ", ".join(f"'{k}'" for k in known[:-1]) + f" or '{known[-1]}'"
                raise self.error(key, f"expected {expected}, got {key.text!r}")
            if key.text in seen and key.text not in repeatable:
                raise self.error(key, f"duplicate {key.text} section")
            seen.add(key.text)
            yield key.text, sec

    # -- conditions --------------------------------------------------------
    def literals(self, node: Node, ctx: _Scope, effect: bool) -> list[tuple[PDDLLiteral, SList]]:
        """Flattens ``(and …)`` / ``(not …)`` / atoms into literals (iteratively:
        files are untrusted, and deep nesting must not exhaust the stack)."""
        out: list[tuple[PDDLLiteral, SList]] = []
        todo: list[Node] = [node]
        while todo:
            item = todo.pop()
            lst = self.slist(item, f"{'an effect' if effect else 'a condition'} like '(and …)', '(not …)' or "
                                   "'(predicate …)'", ctx.parent)
            if not lst:
                continue  # () — no precondition / no effect
            head = self.sym(lst[0], "a predicate name, 'and' or 'not'", lst)
            if head.text == "and":
                todo.extend(reversed(lst[1:]))
            else:
                out.append(self._literal(lst, head, ctx, effect))
        return out

    def _literal(self, lst: SList, head: Sym, ctx: _Scope, effect: bool) -> tuple[PDDLLiteral, SList]:
        if head.text == "not":
            if len(lst) != 2:
                raise self.error(lst, f"expected exactly one atom inside 'not', got {len(lst) - 1} items")
            inner = self.slist(lst[1], "an atom inside 'not'", lst)
            if inner and isinstance(inner[0], Sym) and inner[0].text in ("and", "not", *_UNSUPPORTED) \
                    and inner[0].text not in ctx.predicates:
                raise self.error(inner, f"expected an atom inside 'not', got {describe(inner)}: only literals "
                                        "are supported (STRIPS with negative preconditions)")
            return PDDLLiteral(self.atom(inner, ctx, effect), False), inner
        return PDDLLiteral(self.atom(lst, ctx, effect), True), lst

    def atom(self, lst: SList, ctx: _Scope, effect: bool) -> Atom:
        head = self.sym(lst[0] if lst else None, "a predicate name", lst)
        if head.text in _UNSUPPORTED and head.text not in ctx.predicates:
            raise self.error(head, f"{_UNSUPPORTED[head.text]} ('{head.text}') are not supported: planprobe handles "
                                   "STRIPS with types, negative preconditions and equality")
        args = tuple(ctx.term(self, node, lst) for node in lst[1:])
        if head.text == EQUALITY:
            if effect:
                raise self.error(head, "'=' cannot be an effect")
            if len(args) != 2:
                raise self.error(lst, f"'=' takes 2 arguments, got {len(args)}")
            return Atom(EQUALITY, args)
        pred = ctx.predicates.get(head.text)
        if pred is None:
            raise self.error(head, f"unknown predicate {head.text!r}{_known(ctx.predicates)}")
        if len(args) != pred.arity:
            raise self.error(lst, f"predicate {head.text!r} takes {pred.arity} argument"
                                  f"{'' if pred.arity == 1 else 's'}, got {len(args)}")
        ctx.check_types(self, pred, args, lst)
        return Atom(head.text, args)


class _Scope:
    """What names mean where a condition is read: an action's parameters, the
    domain's constants or the problem's objects."""

    def __init__(self, parent: SList, predicates: dict[str, Predicate], objects: dict[str, str],
                 variables: dict[str, str] | None, ancestors, where: str):
        self.parent, self.predicates, self.objects, self.variables = parent, predicates, objects, variables
        self.ancestors, self.where = ancestors, where

    def term(self, p: _Parser, node: Node, lst: SList) -> str:
        sym = p.sym(node, "an argument (a variable or an object)", lst)
        if sym.text.startswith("?"):
            if self.variables is None:
                raise p.error(sym, f"unexpected variable {sym.text!r} in {self.where}: only objects are allowed here")
            if sym.text not in self.variables:
                raise p.error(sym, f"unknown variable {sym.text!r} in {self.where}{_known(self.variables, 'parameters')}")
            return sym.text
        p.name(sym, "an object name", lst)
        if sym.text not in self.objects:
            kind = "constant" if self.variables is not None else "object"
            hint = " (declare it in :constants)" if self.variables is not None else " (declare it in :objects)"
            raise p.error(sym, f"unknown {kind} {sym.text!r} in {self.where}{hint}")
        return sym.text

    def check_types(self, p: _Parser, pred: Predicate, args: tuple[str, ...], lst: SList) -> None:
        if self.variables is not None:
            return  # action bodies: typing of parameters is checked when grounding
        for i, (arg, param) in enumerate(zip(args, pred.parameters)):
            if self.ancestors(self.objects[arg]).isdisjoint(type_members(param.type)):
                raise p.error(lst[i + 1], f"argument {i + 1} of {pred.name!r} must be of type {param.type!r}, "
                                          f"but {arg!r} is of type {self.objects[arg]!r}")


def _check_type(p: _Parser, t: Sym, known_types: set[str]) -> None:
    """A parameter's type (each member of an ``(either …)``) must be declared."""
    for member in type_members(t.text):
        if member not in known_types:
            raise p.error(t, f"unknown type {member!r}{_known(known_types, 'types')}")


def _known(names, what: str = "known") -> str:
    names = sorted(names)
    if not names:
        return ""
    shown = ", ".join(names[:12]) + (", …" if len(names) > 12 else "")
    return f" ({what}: {shown})"


# ---------------------------------------------------------------------------
# domains
# ---------------------------------------------------------------------------


def parse_domain(text: str, filename: str = "domain.pddl") -> Domain:
    """Parse a domain; raises ``PDDLSyntaxError`` naming ``filename:line:column``."""
    p = _Parser(text, filename)
    top = p.src.read()
    name = p.header(top, "domain")
    requirements: list[str] = []
    types: dict[str, str] = {}
    type_pos: dict[str, Sym] = {}
    constants: dict[str, str] = {}
    constant_syms: list[tuple[Sym, Sym]] = []
    predicates: dict[str, Predicate] = {}
    actions: dict[str, Action] = {}
    order = (":requirements", ":types", ":constants", ":predicates", ":action")
    action_nodes: list[SList] = []
    predicate_types: list[Sym] = []
    for key, sec in p.sections(top, order, repeatable=(":action",)):
        if key == ":requirements":
            for node in sec[1:]:
                req = p.sym(node, "a requirement like ':strips'", sec)
                if not req.text.startswith(":"):
                    raise p.error(req, f"expected a requirement like ':strips', got {req.text!r}")
                requirements.append(req.text)
        elif key == ":types":
            for t, parent in p.typed_list(sec[1:], sec, "a type name", variables=False):
                if t.text == ROOT_TYPE:
                    continue
                if t.text in types and types[t.text] != parent.text:
                    raise p.error(t, f"type {t.text!r} declared twice with different parents")
                types[t.text], type_pos[t.text] = parent.text, parent
        elif key == ":constants":
            constant_syms.extend(p.typed_list(sec[1:], sec, "a constant name", variables=False))
        elif key == ":predicates":
            for node in sec[1:]:
                lst = p.slist(node, "a predicate like '(on ?x ?y)'", sec)
                head = p.name(lst[0] if lst else None, "a predicate name", lst)
                if head.text in predicates:
                    raise p.error(head, f"predicate {head.text!r} declared twice")
                typed = list(p.typed_list(lst[1:], lst, "a variable", variables=True))
                predicate_types.extend(t for _, t in typed)
                predicates[head.text] = Predicate(head.text, tuple(TypedName(v.text, t.text) for v, t in typed))
        else:
            action_nodes.append(sec)
    # types: every parent must be declared (or 'object'), no cycles
    for type_name, parent_name in types.items():
        if parent_name != ROOT_TYPE and parent_name not in types:
            raise p.error(type_pos[type_name], f"unknown type {parent_name!r} (declare it in :types)")
    for type_name, first_parent in types.items():
        seen, cur = {type_name}, first_parent
        while cur in types:
            if cur in seen:
                raise p.error(type_pos[type_name], f"type {type_name!r} is its own ancestor")
            seen.add(cur)
            cur = types[cur]
    known_types = set(types) | {ROOT_TYPE}
    for c, t in constant_syms:
        if t.text not in known_types:
            raise p.error(t, f"unknown type {t.text!r}{_known(known_types, 'types')}")
        if c.text in constants and constants[c.text] != t.text:
            raise p.error(c, f"constant {c.text!r} declared twice with different types")
        constants[c.text] = t.text
    for t in predicate_types:
        _check_type(p, t, known_types)
    parents = dict(types)
    ancestors = _ancestor_fn(parents)
    for sec in action_nodes:
        action = _parse_action(p, sec, predicates, constants, known_types, ancestors)
        if action.name in actions:
            raise p.error(sec[1], f"action {action.name!r} declared twice")
        actions[action.name] = action
    return Domain(
        name=name.text, requirements=tuple(requirements),
        types=tuple(TypedName(t, parent) for t, parent in types.items()),
        constants=tuple(TypedName(c, t) for c, t in constants.items()),
        predicates=tuple(predicates.values()), actions=tuple(actions.values()), filename=filename,
    )


def _ancestor_fn(parents: dict[str, str]):
    cache: dict[str, frozenset[str]] = {}

    def ancestors(t: str) -> frozenset[str]:
        if t not in cache:
            chain, cur = [t], t
            while cur in parents:
                cur = parents[cur]
                chain.append(cur)
            cache[t] = frozenset((*chain, ROOT_TYPE))
        return cache[t]

    return ancestors


def _parse_action(p: _Parser, sec: SList, predicates, constants, known_types, ancestors) -> Action:
    name = p.name(sec[1] if len(sec) > 1 else None, "an action name", sec)
    parts: dict[str, Node] = {}
    keys = (":parameters", ":precondition", ":effect")
    i = 2
    while i < len(sec):
        key = p.sym(sec[i], "':parameters', ':precondition' or ':effect'", sec)
        if key.text not in keys:
            remaining = [k for k in keys if k not in parts]
            expected = " or ".join(f"'{k}'" for k in remaining) if remaining else "')'"
            raise p.error(key, f"expected {expected}, got {key.text!r}")
        if key.text in parts:
            raise p.error(key, f"duplicate {key.text} in action {name.text!r}")
        if i + 1 >= len(sec):
            raise p.error(sec.end, f"expected a value after {key.text}, got ')'")
        parts[key.text] = sec[i + 1]
        i += 2
    params: list[TypedName] = []
    variables: dict[str, str] = {}
    if ":parameters" in parts:
        plist = p.slist(parts[":parameters"], "a parameter list like '(?x ?y - type)'", sec)
        for v, t in p.typed_list(list(plist), plist, "a variable", variables=True):
            if v.text in variables:
                raise p.error(v, f"parameter {v.text!r} declared twice in action {name.text!r}")
            _check_type(p, t, known_types)
            variables[v.text] = t.text
            params.append(TypedName(v.text, t.text))
    scope = _Scope(sec, predicates, constants, variables, ancestors, f"action {name.text!r}")
    pre = p.literals(parts[":precondition"], scope, effect=False) if ":precondition" in parts else []
    eff = p.literals(parts[":effect"], scope, effect=True) if ":effect" in parts else []
    return Action(
        name=name.text, parameters=tuple(params), precondition=tuple(_dedup(lit for lit, _ in pre)),
        add_effects=tuple(_dedup(lit.atom for lit, _ in eff if lit.positive)),
        del_effects=tuple(_dedup(lit.atom for lit, _ in eff if not lit.positive)),
    )


def _dedup(items) -> list:
    return list(dict.fromkeys(items))


# ---------------------------------------------------------------------------
# problems
# ---------------------------------------------------------------------------


def parse_problem(text: str, domain: Domain, filename: str = "problem.pddl") -> Problem:
    """Parse a problem of ``domain``; every predicate, object and type is checked
    against it. Raises ``PDDLSyntaxError`` naming ``filename:line:column``."""
    p = _Parser(text, filename)
    top = p.src.read()
    name = p.header(top, "problem")
    objects: dict[str, str] = {c.name: c.type for c in domain.constants}
    own: list[TypedName] = []
    init_node: SList | None = None
    goal_node: SList | None = None
    domain_seen = False
    known_types = {t.name for t in domain.types} | {ROOT_TYPE}
    order = (":domain", ":requirements", ":objects", ":init", ":goal")
    for key, sec in p.sections(top, order):
        if key == ":domain":
            dname = p.name(sec[1] if len(sec) > 1 else None, "the domain name", sec)
            if dname.text != domain.name:
                raise p.error(dname, f"the problem is for domain {dname.text!r}, but {domain.filename} defines "
                                     f"{domain.name!r}")
            domain_seen = True
        elif key == ":objects":
            for o, t in p.typed_list(sec[1:], sec, "an object name", variables=False):
                if t.text not in known_types:
                    raise p.error(t, f"unknown type {t.text!r}{_known(known_types, 'types')}")
                if o.text in objects:
                    if objects[o.text] == t.text:
                        continue
                    raise p.error(o, f"object {o.text!r} declared twice with different types")
                objects[o.text] = t.text
                own.append(TypedName(o.text, t.text))
        elif key == ":init":
            init_node = sec
        elif key == ":goal":
            goal_node = sec
    if not domain_seen:
        raise p.error(top.end, "expected a '(:domain NAME)' section")
    if goal_node is None:
        raise p.error(top.end, "expected a '(:goal …)' section")
    predicates = {pr.name: pr for pr in domain.predicates}
    ancestors = domain.ancestors
    init: list[Atom] = []
    if init_node is not None:
        scope = _Scope(init_node, predicates, objects, None, ancestors, ":init")
        for node in init_node[1:]:
            lst = p.slist(node, "an atom like '(on a b)'", init_node)
            head = lst[0] if lst else None
            if isinstance(head, Sym) and head.text in ("not", "and", EQUALITY):
                raise p.error(head, f"expected a ground atom in :init, got '({head.text} …)': the initial state "
                                    "lists the true atoms only")
            init.append(p.atom(lst, scope, effect=True))
    if len(goal_node) != 2:
        raise p.error(goal_node, f"expected one condition in :goal (use '(and …)' for several), got "
                                 f"{len(goal_node) - 1}")
    scope = _Scope(goal_node, predicates, objects, None, ancestors, ":goal")
    goal = [lit for lit, _ in p.literals(goal_node[1], scope, effect=False)]
    return Problem(name=name.text, domain=domain, objects=tuple(own), init=tuple(_dedup(init)),
                   goal=tuple(_dedup(goal)), filename=filename)


# ---------------------------------------------------------------------------
# files
# ---------------------------------------------------------------------------


def _read(path: str | Path) -> tuple[str, str]:
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8", errors="replace"), str(path)
    except OSError as exc:
        from ..errors import PlanprobeError

        raise PlanprobeError(f"{path}: cannot read: {exc.strerror or exc}") from None


def load_domain(path: str | Path) -> Domain:
    text, name = _read(path)
    return parse_domain(text, name)


def load_problem(path: str | Path, domain: Domain) -> Problem:
    text, name = _read(path)
    return parse_problem(text, domain, name)


def load(domain_path: str | Path, problem_path: str | Path) -> Problem:
    """Domain and problem files → a checked ``Problem`` (its ``.domain`` is the domain)."""
    return load_problem(problem_path, load_domain(domain_path))
