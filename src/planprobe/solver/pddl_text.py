"""Reading a PDDL agent task's text into a planning problem (the solver's PDDL reader, part 1).

What it reads (and only that):

* the **actions** from the tool descriptions: ``Perform the action NAME(k1, k2). Preconditions:
  (p k1), (not (q k2)). Makes true: …. Makes false: ….`` (or ``Perform this action on (k1, k2)``
  when a variant renamed the tool) — a STRIPS schema per tool, named after the tool; costs
  (``Cost: N credits.``) and composites (the cost variant); arguments beyond the action's objects
  (``It requires employee_id: …`` filled from ``The employee id to use is …``);
* the **objects** from the legend (``id: name; …``) or the ``Objects:`` line;
* the **initial state** and **goal** from their paragraphs, either as PDDL atoms or as English
  sentences. An English fact is read by finding the objects' names in it and matching the words
  left over to a predicate of the same arity (``the red block is on the table`` → ``ontable``:
  the content words run together, or the predicate's name is one of the words). No sentence
  table of the family is used: this is a second, independent reading of the text.

An object's *type* — a static unary predicate the actions need, Logistics' ``(truck ?t)``, that
the English state leaves out as PlanBench's sentences do — is read where the text states it: the
legend's brackets (``t0: truck_0 (truck)``), else the tool schema's ``enum`` when the call offers
one (function calling). Never from the objects' names: a name is a label, not a fact. When the
text states it nowhere the reading raises ``Unreadable``, naming the predicate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..pddl.grounding import GroundProblem, State, ground
from ..pddl.model import (
    Action,
    Atom,
    Domain,
    PDDLLiteral,
    Predicate,
    Problem,
    TypedName,
)
from .base import ChatView

DESCRIPTION = re.compile(
    r"^Perform (?:the action [^\s(]+\(([^)]*)\)|this action on \(([^)]*)\))\. Preconditions: (.*?)\. "
    r"Makes true: (.*?)\. Makes false: (.*?)\.(?:\s|$)", re.DOTALL)
_COMPOSITE = re.compile(r"^Carries out (\S+) and then, immediately after it, (\S+), in one call\. It takes \S+ "
                        r"arguments prefixed \S+ \(([^)]*)\) and then \S+ prefixed \S+ \(([^)]*)\)\.")
_COST = re.compile(r"\bCost: (\d+) credits?\.")
_ATOM = re.compile(r"\(not \(([^()]*)\)\)|\(([^()]*)\)")
_STOP = {"the", "is", "a", "an", "of", "currently", "that", "are"}
_NAME_EDGE = r"[A-Za-z0-9_-]"
_PARAGRAPHS = {
    "objects": ("The objects, by the id you use in tool calls", "Objects: "),
    "init": ("As initial conditions I have that: ", "Initial state: "),
    "goal": ("My goal is to have that: ", "Goal: "),
}
_NEGATED = "it is not the case that "
_LEGEND_INTRO = re.compile(r"^(?:, each with its type in brackets \(.*?\))?: ")
_TYPES = re.compile(r"\s+\(([^()]*)\)\s*$")  # an English legend item's stated types: "truck_0 (truck)"


class Unreadable(Exception):
    """The text does not determine the problem; the message says what is missing."""


class NoPredicate(Unreadable):
    """A fact whose words match no predicate the actions use: in the state it cannot matter to any
    action (a tool that used it was taken away, or it is noise), in the goal it leaves the goal unknown."""


@dataclass
class Tool:
    name: str
    keys: tuple[str, ...]
    action: Action
    given: dict[str, str] = field(default_factory=dict)  # arguments beyond the action's, with the task's value
    missing: list[str] = field(default_factory=list)  # arguments beyond the action's that the task does not give


@dataclass(frozen=True)
class Composite:
    """A tool that does one action then another in one call (the cost variant)."""

    name: str
    first: Tool
    second: Tool
    first_keys: tuple[str, ...]
    second_keys: tuple[str, ...]
    cost: int


@dataclass
class Reading:
    """A task read once: its problem, grounded, and the plans found from states seen so far."""

    problem: Problem
    gp: GroundProblem
    tools: dict[str, Tool]  # action name -> tool
    by_tool: dict[str, Tool]  # tool name -> tool
    ids: dict[str, str]  # object id in the PDDL model (lower case) -> the id as the text writes it
    costs: dict[str, int] | None = None  # action name -> cost, when every action tool states one
    composites: dict[str, Composite] = field(default_factory=dict)  # tool name -> composite
    facts: FactReader | None = None  # how the text says facts (to read a state a tool result states)
    style: str = "nl"
    # (state, tools found broken) -> the plan found from that state: per call, the tool and the PDDL steps it
    # does. A pure function of its key (so answers never depend on which cases were played before)
    plans: dict[tuple[State, frozenset[str]], list[tuple[str, tuple[str, ...]]]] = field(default_factory=dict)


# -- the actions, from the tool descriptions ----------------------------------------------------

def _literals(text: str, keys: tuple[str, ...]) -> list[PDDLLiteral]:
    if text.strip() == "nothing":
        return []
    out = []
    for m in _ATOM.finditer(text):
        body = m.group(1) if m.group(1) is not None else m.group(2)
        pred, *args = body.split()
        atom = Atom(pred.lower(), tuple(f"?{a}" if a in keys else a.lower() for a in args))
        out.append(PDDLLiteral(atom, m.group(1) is None))
    return out


def read_tool(tool: dict[str, Any]) -> Tool | None:
    """The action a tool performs, from its description; None when it describes no action."""
    m = DESCRIPTION.match(str(tool.get("description", "")))
    if m is None:
        return None
    params = m.group(1) if m.group(1) is not None else m.group(2)
    keys = tuple(k.strip() for k in params.split(",") if k.strip())
    name = str(tool["name"])
    pre = _literals(m.group(3), keys)
    add = [lit.atom for lit in _literals(m.group(4), keys)]
    dele = [lit.atom for lit in _literals(m.group(5), keys)]
    action = Action(name.lower(), tuple(TypedName(f"?{k}") for k in keys), tuple(pre), tuple(add), tuple(dele))
    return Tool(name, keys, action)


_REQUIRES = re.compile(r"It requires ([A-Za-z0-9_.-]+): ")


def _extra_arguments(tool: Tool, schema: dict[str, Any], text: str) -> None:
    """Arguments a tool takes beyond its action's objects (its schema or its description names them):
    each filled from the sentence ``The <argument> to use is <value>.`` of the task, else missing."""
    props = (schema.get("parameters") or {}).get("properties") or {}
    extra = [k for k in props if k not in tool.keys]
    extra += [k for k in _REQUIRES.findall(str(schema.get("description", ""))) if k not in tool.keys and k not in extra]
    for key in extra:
        said = re.escape(key.replace("_", " "))
        m = re.search(rf"\bThe {said} to use is (\S+?)\.(?:\s|$)", text, re.IGNORECASE)
        if m:
            tool.given[key] = m.group(1)
        else:
            tool.missing.append(key)


# -- the task text --------------------------------------------------------------------------------

def paragraph(task: str, part: str) -> tuple[str, str] | None:
    """(the paragraph's body without its closing period, 'nl' or 'pddl')."""
    for block in task.split("\n\n"):
        block = block.strip()
        for i, prefix in enumerate(_PARAGRAPHS[part]):
            if block.startswith(prefix):
                body = block[len(prefix):]
                if part == "objects" and i == 0:  # ": " or ", each with its type in brackets (…): "
                    body = _LEGEND_INTRO.sub("", body, count=1)
                return body.removesuffix("."), ("nl", "pddl")[i]
    return None


def _legend(body: str, style: str) -> dict[str, str]:
    """Object id -> the name the text uses for it."""
    out: dict[str, str] = {}
    if style == "nl":
        for item in body.split("; "):
            oid, sep, name = item.partition(": ")
            if sep:
                out[oid.strip()] = _TYPES.sub("", name).strip()
    else:
        for item in body.split(", "):
            oid = item.split(" (")[0].strip()
            if oid:
                out[oid] = oid
    return out


def _legend_types(body: str, style: str) -> list[Atom]:
    """The types the English legend states in brackets: ``t0: truck_0 (truck)`` → ``(truck t0)``."""
    out: list[Atom] = []
    if style == "nl":
        for item in body.split("; "):
            oid, sep, name = item.partition(": ")
            m = _TYPES.search(name)
            if sep and m:
                out += [Atom(k.strip().lower(), (oid.strip().lower(),)) for k in m.group(1).split(",") if k.strip()]
    return out


def _items(body: str) -> list[str]:
    """A list said as ``a, b and c`` → its items."""
    if body.strip() in ("", "nothing"):
        return []
    parts = body.split(", ")
    last = parts.pop()
    head, sep, tail = last.rpartition(" and ")
    parts += [head, tail] if sep else [last]
    return [p.strip() for p in parts if p.strip()]


def _compact(words: list[str]) -> str:
    return "".join(words)


class FactReader:
    """Reads English facts: object names found, the rest matched to a predicate."""

    def __init__(self, names: dict[str, str], arity: dict[str, int]):
        self.arity = arity
        self.ids = {name.lower(): oid for oid, name in names.items()}
        alternatives = "|".join(re.escape(n) for n in sorted(self.ids, key=len, reverse=True))
        self.names = re.compile(rf"(?<!{_NAME_EDGE})(?:{alternatives})(?!{_NAME_EDGE})", re.IGNORECASE) \
            if alternatives else None
        self.patterns: dict[tuple[str, int], str] = {}

    def fact(self, text: str) -> PDDLLiteral:
        positive = not text.lower().startswith(_NEGATED)
        if not positive:
            text = text[len(_NEGATED):]
        args: list[str] = []
        pattern = text
        if self.names is not None:
            args = [self.ids[m.group(0).lower()] for m in self.names.finditer(text)]
            pattern = self.names.sub(" ", text)
        words = re.findall(r"[a-z0-9]+", pattern.lower())
        return PDDLLiteral(Atom(self.predicate(words, len(args), text), tuple(args)), positive)

    def predicate(self, words: list[str], arity: int, text: str) -> str:
        key = (" ".join(words), arity)
        if key not in self.patterns:
            content = [w for w in words if w not in _STOP]
            scores: dict[str, int] = {}
            for pred, n in self.arity.items():
                if n != arity:
                    continue
                flat = re.sub(r"[^a-z0-9]", "", pred.lower())
                parts = [p for p in re.split(r"[^a-z0-9]+", pred.lower()) if p]
                if flat in (_compact(words), _compact(content)):
                    scores[pred] = 3
                elif pred.lower() in words:
                    scores[pred] = 2
                elif parts and all(p in words for p in parts):
                    scores[pred] = 1
            best = max(scores.values(), default=0)
            top = sorted(p for p, s in scores.items() if s == best)
            if best == 0:
                same = sorted(p for p, n in self.arity.items() if n == arity)
                raise NoPredicate(f"the fact {text!r} names no predicate of the actions: its words "
                                  f"{' '.join(content)!r} (its {arity} object name{'' if arity == 1 else 's'} aside) "
                                  f"match none of the {arity}-place predicates the tools use "
                                  f"({', '.join(same) or 'there are none'})")
            if len(top) != 1:
                raise Unreadable(f"the fact {text!r} could name any of the predicates {', '.join(top)}")
            self.patterns[key] = top[0]
        return self.patterns[key]


def read_facts(body: str, style: str, reader: FactReader, state: bool) -> list[PDDLLiteral]:
    """The facts of a state (``state``: facts no action can use are left out) or of a goal."""
    if style == "pddl":
        return _literals(body, ())
    out = []
    for item in _items(body):
        try:
            out.append(reader.fact(item))
        except NoPredicate as exc:
            if not state:
                raise NoPredicate(f"the goal: {exc}") from None
        except Unreadable as exc:
            raise Unreadable(f"{'the initial state' if state else 'the goal'}: {exc}") from None
    return out


# -- what the text leaves unsaid --------------------------------------------------------------------

def _unstated_kinds(tools: list[Tool], schemas: dict[str, dict[str, Any]], init: set[Atom]) -> list[Atom]:
    """Facts of static unary predicates the actions need that neither the state nor the legend
    states, read from the tool schema's ``enum`` (the objects a tool accepts there); a predicate
    no enum settles is ``Unreadable``, named."""
    changed = {a.predicate for t in tools for a in (*t.action.add_effects, *t.action.del_effects)}
    stated = {a.predicate for a in init}
    needed: dict[str, list[tuple[Tool, str]]] = {}
    for t in tools:
        for lit in t.action.precondition:
            a = lit.atom
            if lit.positive and len(a.args) == 1 and a.args[0].startswith("?") and a.predicate not in changed \
                    and a.predicate not in stated and a.predicate != "=":
                needed.setdefault(a.predicate, []).append((t, a.args[0][1:]))
    out: list[Atom] = []
    unresolved: list[str] = []
    for pred, uses in needed.items():
        having: set[str] = set()
        seen_enum = False
        for t, key in uses:
            prop = schemas.get(t.name, {}).get("parameters", {}).get("properties", {}).get(key, {})
            if isinstance(prop.get("enum"), list):
                seen_enum = True
                having |= {str(x).lower() for x in prop["enum"]}
        if seen_enum:
            out += [Atom(pred, (o,)) for o in sorted(having)]
        else:
            unresolved.append(pred)
    if unresolved:
        users = sorted({f"{t.name}({key})" for pred in unresolved for t, key in needed[pred]})
        raise Unreadable("the text does not say which objects satisfy " +
                         ", ".join(f"({p} ?x)" for p in unresolved) +
                         f" (a precondition of {', '.join(users)}: the state, the objects' legend and the tool "
                         "schemas state it of no object)")
    return out


# -- the reading ------------------------------------------------------------------------------------

def read_task(view: ChatView) -> Reading:
    tools = [t for t in (read_tool(s) for s in view.tools) if t is not None]
    if not tools:
        raise Unreadable("no tool describes an action in the form 'Perform the action NAME(…). Preconditions: …' "
                         f"(tools offered: {', '.join(str(s.get('name')) for s in view.tools) or 'none'})")
    parts = {part: paragraph(view.task, part) for part in _PARAGRAPHS}
    for part, found in parts.items():
        if found is None:
            raise Unreadable(f"the task states no {part} paragraph (one opening with "
                             f"{' or '.join(repr(p.strip()) for p in _PARAGRAPHS[part])})")
    obj_body, obj_style = parts["objects"]  # type: ignore[misc]
    names = {oid.lower(): name for oid, name in _legend(obj_body, obj_style).items()}  # PDDL ids: lower case
    arity: dict[str, int] = {}
    for t in tools:
        for a in (*(lit.atom for lit in t.action.precondition), *t.action.add_effects, *t.action.del_effects):
            if a.predicate != "=":
                arity.setdefault(a.predicate, len(a.args))
    facts = FactReader(names, arity)
    init_body, init_style = parts["init"]  # type: ignore[misc]
    goal_body, goal_style = parts["goal"]  # type: ignore[misc]
    init = {lit.atom for lit in read_facts(init_body, init_style, facts, state=True)}
    goal = read_facts(goal_body, goal_style, facts, state=False)
    schemas = {str(s.get("name")): s for s in view.tools}
    for t in tools:
        _extra_arguments(t, schemas.get(t.name, {}), f"{view.system}\n{view.task}")
    init |= set(_legend_types(obj_body, obj_style))
    init |= set(_unstated_kinds(tools, schemas, init))
    for a in init:
        arity.setdefault(a.predicate, len(a.args))
    predicates = tuple(Predicate(p, tuple(TypedName(f"?x{i}") for i in range(n))) for p, n in sorted(arity.items()))
    domain = Domain("solver-reading", (), (), (), predicates, tuple(t.action for t in tools))
    objects = tuple(TypedName(oid) for oid in names)
    problem = Problem("solver-reading", domain, objects, tuple(sorted(init)), tuple(goal))
    by_action = {t.action.name: t for t in tools}
    ids = {oid.lower(): oid for oid in _legend(obj_body, obj_style)}
    by_tool = {t.name: t for t in tools}
    costs = {t.action.name: int(m.group(1)) for t in tools
             if (m := _COST.search(str(schemas[t.name].get("description", "")))) is not None}
    composites = _composites(view.tools, by_tool)
    return Reading(problem, ground(problem), by_action, by_tool, ids,
                    costs if costs and len(costs) == len(tools) else None, composites, facts, init_style)


def _composites(schemas: tuple[dict[str, Any], ...], by_tool: dict[str, Tool]) -> dict[str, Composite]:
    out = {}
    for schema in schemas:
        desc = str(schema.get("description", ""))
        m, cost = _COMPOSITE.match(desc), _COST.search(desc)
        if m is None or cost is None or m.group(1) not in by_tool or m.group(2) not in by_tool:
            continue
        keys = [tuple(k.strip() for k in m.group(i).split(",") if k.strip()) for i in (3, 4)]
        first, second = by_tool[m.group(1)], by_tool[m.group(2)]
        if len(keys[0]) == len(first.keys) and len(keys[1]) == len(second.keys):
            name = str(schema["name"])
            out[name] = Composite(name, first, second, keys[0], keys[1], int(cost.group(1)))
    return out
