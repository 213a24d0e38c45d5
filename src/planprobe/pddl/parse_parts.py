"""The pieces every PDDL file is made of, read from positioned S-expressions (``sexpr``) for the
parser (``parser.py``): names, variables, typed lists, ``either`` types, a file's header and
sections, and literals and atoms checked against the predicates and the names in scope — each
mistake a ``PDDLSyntaxError`` naming ``file:line:column`` and what was expected, and anything
outside STRIPS refused by name (``_UNSUPPORTED``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .errors import PDDLSyntaxError
from .model import (
    EQUALITY,
    ROOT_TYPE,
    Atom,
    PDDLLiteral,
    Predicate,
    either_type,
    type_members,
)
from .sexpr import Node, SList, Source, Sym, describe

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
