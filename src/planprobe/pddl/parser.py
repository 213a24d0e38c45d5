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

The pieces every file is made of (names, typed lists, sections, literals) are read by
``parse_parts``; this module puts them together into domains and problems.
"""

from __future__ import annotations

from pathlib import Path

from .errors import PDDLSyntaxError
from .model import (
    EQUALITY,
    ROOT_TYPE,
    Action,
    Atom,
    Domain,
    Predicate,
    Problem,
    TypedName,
)
from .parse_parts import _check_type, _known, _Parser, _Scope
from .sexpr import Node, SList, Sym

__all__ = ["PDDLSyntaxError", "load", "load_domain", "load_problem", "parse_domain", "parse_problem"]

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
