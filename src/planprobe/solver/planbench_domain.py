"""The domain a PlanBench prompt describes, rebuilt from its words (the solver, issue #27).

Two ways the prompts describe a domain, two readings:

* **stated schemas** (the obfuscated domains, mystery and random): every action is listed with
  its parameters ("Feast object from another object", "clip x1 x2 x3") and every precondition,
  add and delete list is spelled out ("To perform ..., the following facts need to be true: ...").
  The facts' phrases ("Object Craves other object", "x1 vase x2") give the fact patterns, the
  action headers the plan-line patterns. Nothing else is needed.
* **English restrictions** (plain Blocksworld and Logistics): the reader understands each
  restriction sentence as a reader of English does, through a lexicon (``_BLOCKS``, ``_LOGISTICS``)
  that gives the schema clauses the sentence states, together with what the action's name means
  physically (a picked-up block is no longer on the table). A sentence the lexicon does not know is
  reported, never guessed: the text is then under-specified for this reader.

Either way the result is a ``Reading``: fact and plan-line phrases and PDDL schemas, which the
toolkit's parser, planner and validator take from there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


class Unreadable(Exception):
    """The description does not state something the reader needs; the message names it."""


@dataclass(frozen=True)
class Phrase:
    """A phrase with slots: ``parts`` alternates literal text and slot numbers."""

    parts: tuple[str | int, ...]
    slot: str  # regex of one object mention, with one group: the object's name
    show: str  # how an object is mentioned: a format with {}

    def regex(self) -> re.Pattern[str]:
        out = []
        for p in self.parts:
            out.append(self.slot if isinstance(p, int) else re.escape(p))
        return re.compile("^" + "".join(out) + "$", re.IGNORECASE)

    def slots(self) -> list[int]:
        return [p for p in self.parts if isinstance(p, int)]

    def render(self, args: tuple[str, ...]) -> str:
        return "".join(self.show.format(args[p]) if isinstance(p, int) else p for p in self.parts)


@dataclass
class Schema:
    params: list[str]  # types ("object" when untyped)
    pre: set[tuple[str, tuple[int, ...]]] = field(default_factory=set)
    add: set[tuple[str, tuple[int, ...]]] = field(default_factory=set)
    dele: set[tuple[str, tuple[int, ...]]] = field(default_factory=set)


@dataclass
class Reading:
    """What the description says: facts (predicate → phrase), actions (name → phrase, schema),
    and how to tell an object's type from its name (typed domains)."""

    facts: dict[str, Phrase]
    arity: dict[str, int]
    actions: dict[str, tuple[Phrase, Schema]]
    type_of: dict[str, str] = field(default_factory=dict)  # name prefix → type
    typed: bool = False

    def pddl(self) -> str:
        preds = " ".join(f"({p}{''.join(f' ?a{i}' for i in range(n))})" for p, n in sorted(self.arity.items()))
        types = sorted(set(self.type_of.values()))
        out = ["(define (domain solver-read)", " (:requirements :strips" + (" :typing)" if self.typed else ")")]
        if self.typed:
            out.append(" (:types " + " ".join(types) + ")")
        out.append(f" (:predicates {preds})")
        for name, (_, s) in self.actions.items():
            ps = " ".join(f"?p{i}" + (f" - {t}" if self.typed else "") for i, t in enumerate(s.params))

            def lits(atoms: set[tuple[str, tuple[int, ...]]], neg: bool = False) -> str:
                body = [f"({p}{''.join(f' ?p{i}' for i in a)})" for p, a in sorted(atoms)]
                return " ".join(f"(not {b})" if neg else b for b in body)

            out.append(f" (:action {name} :parameters ({ps})")
            out.append(f"  :precondition (and {lits(s.pre)})")
            out.append(f"  :effect (and {lits(s.add)} {lits(s.dele - s.add, True)}))")
        out.append(")")
        return "\n".join(out)


def _items(text: str) -> list[str]:
    """"a, b and c" → [a, b, c] (a stray leading comma is dropped)."""
    text = text.strip().strip(",").strip().rstrip(".").strip()
    if not text:
        return []
    return [t.strip() for t in re.split(r",\s*|\s+and\s+", text) if t.strip()]


def _name(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


# -- stated schemas (mystery / random) ------------------------------------------------------------

_PLACE = {"object": 0, "other object": 1, "another object": 1}


def _template(words: str, xform: bool) -> tuple[str | int, ...]:
    """"Object Craves other object" → (0, " craves ", 1); "x1 vase x2" → (0, " vase ", 1)."""
    low = " ".join(words.lower().split())
    pat = r"\bx(\d+)\b" if xform else r"\b(?:another object|other object|object)\b"
    parts: list[str | int] = []
    pos = 0
    for m in re.finditer(pat, low):
        if m.start() > pos:
            parts.append(low[pos:m.start()])
        parts.append(int(m.group(1)) - 1 if xform else _PLACE[m.group(0)])
        pos = m.end()
    if pos < len(low):
        parts.append(low[pos:])
    return tuple(parts)


def read_stated(description: str) -> Reading:
    """Actions and restrictions as the obfuscated prompts state them."""
    head, sep, rules = description.partition("I have the following restrictions on my actions:")
    if not sep:
        raise Unreadable("no list of restrictions on the actions")
    listed = head.split("Here are the actions I can do", 1)[-1]
    headers = [ln.strip() for ln in listed.splitlines() if ln.strip()]
    if not headers:
        raise Unreadable("no list of actions")
    xform = any(re.search(r"\bx\d+\b", h) for h in headers)
    slot, show = (r"(\S+)", "{}") if xform else (r"object (\S+)", "object {}")
    actions: dict[str, tuple[Phrase, Schema]] = {}
    key_of: dict[str, str] = {}
    for h in headers:
        parts = _template(h, xform)
        name = _name(str(parts[0]) if not isinstance(parts[0], int) else h.split()[0])
        n = len({p for p in parts if isinstance(p, int)})
        actions[name] = (Phrase(parts, slot, show), Schema(["object"] * n))
        key_of[" ".join(h.lower().split())] = name
        key_of[h.split()[0].lower()] = name
    facts: dict[str, Phrase] = {}
    arity: dict[str, int] = {}
    said: dict[tuple[str, tuple[int, ...]], str] = {}

    def fact(words: str) -> tuple[str, tuple[int, ...]]:
        parts = _template(words, xform)
        lits = [p for p in parts if not isinstance(p, int)]
        pred = _name(" ".join(str(x) for x in lits)) or "fact"
        slots = tuple(p for p in parts if isinstance(p, int))
        canon = tuple(slots.index(p) if isinstance(p, int) else p for p in parts)
        facts.setdefault(pred, Phrase(canon, slot, show))
        arity[pred] = len(slots)
        said.setdefault((pred, slots), words)
        return pred, slots

    rule = re.compile(r"^(?:To perform (?P<a>.+?)(?: action)?, the following (?:facts )?needs? to be true:"
                      r"|Once (?P<b>.+?)(?: action)? is performed the following (?:facts )?will be "
                      r"(?P<v>true|false):)(?P<rest>.*)$", re.IGNORECASE)
    for ln in rules.splitlines():
        ln = ln.strip()
        if not ln or ln.lower().startswith("if no plan can achieve the goal"):
            continue
        m = rule.match(ln)
        if m is None:
            raise Unreadable(f"a restriction the reader cannot read: {ln!r}")
        who = " ".join((m.group("a") or m.group("b")).lower().split())
        found = key_of.get(who) or key_of.get(who.split()[0])
        if found is None:
            raise Unreadable(f"a restriction about an action that is not listed: {ln!r}")
        schema = actions[found][1]
        target = schema.pre if m.group("a") else schema.add if m.group("v").lower() == "true" else schema.dele
        for item in _items(m.group("rest")):
            target.add(fact(item))
    for name, (_, s) in actions.items():
        if not s.pre and not s.add and not s.dele:
            raise Unreadable(f"nothing is said about what action {name!r} needs or does")
        both = sorted(s.add & s.dele)
        if both:  # the text contradicts itself: which does the action leave, the fact or its absence?
            what = ", ".join(said[f] for f in both)
            raise Unreadable(f"the description says action {name!r} makes {what!r} both true and false")
    return Reading(facts, arity, actions)


# -- English restrictions (plain Blocksworld, Logistics) --------------------------------------------

Clause = tuple[str, str, str, tuple[int, ...]]  # action, pre|add|del, predicate, parameter indices


def _c(text: str) -> list[Clause]:
    """"pick-up pre clear 0; pick-up del clear 0" → clauses."""
    out = []
    for part in text.split(";"):
        w = part.split()
        out.append((w[0], w[1], w[2], tuple(int(x) for x in w[3:])))
    return out


# Blocksworld: what each sentence states (with the physical meaning of its verbs: a block held is
# neither on the table nor on another block, and whatever it stood on is clear again; "clear"
# means nothing is on it and it is not held).
_BLOCKS: dict[str, list[Clause]] = {
    "I can only pick up or unstack one block at a time.": _c("pick-up pre handempty; unstack pre handempty"),
    "I can only pick up or unstack a block if my hand is empty.": _c("pick-up pre handempty; unstack pre handempty"),
    "I can only pick up a block if the block is on the table and the block is clear.": _c(
        "pick-up pre ontable 0; pick-up pre clear 0"),
    "A block is clear if the block has no other blocks on top of it and if the block is not picked up.": _c(
        "pick-up del clear 0; unstack del clear 0; unstack add clear 1; put-down add clear 0; stack add clear 0;"
        " stack del clear 1"),
    "I can only unstack a block from on top of another block if the block I am unstacking was really on top "
    "of the other block.": _c("unstack pre on 0 1"),
    "I can only unstack a block from on top of another block if the block I am unstacking is clear.": _c(
        "unstack pre clear 0"),
    "Once I pick up or unstack a block, I am holding the block.": _c(
        "pick-up add holding 0; unstack add holding 0; pick-up del ontable 0; unstack del on 0 1;"
        " pick-up del handempty; unstack del handempty"),
    "I can only put down a block that I am holding.": _c("put-down pre holding 0"),
    "I can only stack a block on top of another block if I am holding the block being stacked.": _c(
        "stack pre holding 0"),
    "I can only stack a block on top of another block if the block onto which I am stacking the block is "
    "clear.": _c("stack pre clear 1"),
    "Once I put down or stack a block, my hand becomes empty.": _c(
        "put-down add handempty; stack add handempty; put-down del holding 0; stack del holding 0;"
        " put-down add ontable 0; stack add on 0 1"),
    "Once you stack a block on top of a second block, the second block is no longer clear.": _c(
        "stack del clear 1"),
}
_BLOCK_ACTIONS = {"pick up a block": "pick-up", "unstack a block from on top of another block": "unstack",
                  "put down a block": "put-down", "stack a block on top of another block": "stack"}
_BLOCK = (r"the (\w+) block", "the {} block")
_BLOCK_FACTS = {
    "clear": (("the ", 0, " block is clear"), 1),
    "handempty": (("the hand is empty",), 0),
    "on": (("the ", 0, " block is on top of the ", 1, " block"), 2),
    "ontable": (("the ", 0, " block is on the table"), 1),
    "holding": (("the hand is currently holding ", 0, " block"), 1),
}

_LOGISTICS: dict[str, list[Clause]] = {
    "Locations within a city are directly connected (trucks can move between any two such locations), and so "
    "are the cities.": [],
    "In each city there is exactly one truck and each city has one location that serves as an airport.": [],
    "A package can be loaded into a truck only if the package and the truck are in the same location.": _c(
        "load-truck pre at 0 2; load-truck pre at 1 2"),
    "Once a package is loaded into a truck, the package is not at the location and is in the truck.": _c(
        "load-truck del at 0 2; load-truck add in 0 1"),
    "A package can be loaded into an airplane only if the package and the airplane are in the same location.":
        _c("load-airplane pre at 0 2; load-airplane pre at 1 2"),
    "Once a package is loaded into an airplane, the package is not at the location and is in the airplane.": _c(
        "load-airplane del at 0 2; load-airplane add in 0 1"),
    "A package can be unloaded from a truck only if the package is in the truck.": _c(
        "unload-truck pre in 0 1; unload-truck pre at 1 2"),
    "Once a package is unloaded from a truck, the package is not in the truck and is at the location of the "
    "truck.": _c("unload-truck del in 0 1; unload-truck add at 0 2"),
    "A package can be unloaded from an airplane only if the package is in the airplane.": _c(
        "unload-airplane pre in 0 1; unload-airplane pre at 1 2"),
    "Once a package is unloaded from an airplane, the package is not in the airplane and is at the location "
    "of the airplane.": _c("unload-airplane del in 0 1; unload-airplane add at 0 2"),
    "A truck can be driven from one location to another if the truck is at the from-location and both "
    "from-location and to-location are locations in the same city.": _c(
        "drive pre at 0 1; drive pre in-city 1 3; drive pre in-city 2 3"),
    "Once a truck is driven from one location to another, it is not at the from-location and is at the "
    "to-location.": _c("drive del at 0 1; drive add at 0 2"),
    "An airplane can be flown from one city to another if the from-location and the to-location are airports "
    "and the airplane is at the from-location.": _c("fly pre airport 1; fly pre airport 2; fly pre at 0 1"),
    "Once an airplane is flown from one city to another the airplane is not at the from-location and is at "
    "the to-location.": _c("fly del at 0 1; fly add at 0 2"),
}
_LOGISTICS_ACTIONS = {"load a package into a truck": "load-truck", "load a package into an airplane": "load-airplane",
                      "unload a package from a truck": "unload-truck",
                      "unload a package from an airplane": "unload-airplane",
                      "drive a truck from one location to another location": "drive",
                      "fly an airplane from one city to another city": "fly"}
_THING = (r"(\w+)", "{}")
_LOGISTICS_FACTS = {
    "airport": ((0, " is an airport"), 1),
    "in-city": ((0, " is in the city ", 1), 2),
    "at": ((0, " is at ", 1), 2),
    "in": ((0, " is in ", 1), 2),
}
_TYPES = {"package": "package", "truck": "truck", "airplane": "airplane", "location": "location", "city": "city"}


def _sentences(text: str) -> list[str]:
    out = []
    for ln in text.splitlines():
        for s in re.split(r"(?<=\.)\s+(?=[A-Z])", ln.strip()):
            if s.strip():
                out.append(" ".join(s.split()))
    return out


def _english(rules: str, lexicon: dict[str, list[Clause]], actions: dict[str, tuple[Phrase, Schema]]) -> None:
    for sentence in _sentences(rules):
        if sentence.lower().startswith("if no plan can achieve the goal"):
            continue
        if sentence not in lexicon:
            raise Unreadable(f"a restriction the reader does not understand: {sentence!r}")
        for action, kind, pred, args in lexicon[sentence]:
            schema = actions[action][1]
            {"pre": schema.pre, "add": schema.add, "del": schema.dele}[kind].add((pred, args))
    for name, (_, s) in actions.items():
        if not s.pre or not (s.add or s.dele):
            raise Unreadable(f"the text does not say what action {name!r} needs and does")


def read_blocks(description: str) -> Reading:
    head, sep, rules = description.partition("I have the following restrictions on my actions:")
    listed = [" ".join(ln.split()).lower().rstrip(".") for ln in head.split("Here are the actions I can do", 1)[-1].splitlines()]
    listed = [ln for ln in listed if ln]
    if not sep or sorted(listed) != sorted(_BLOCK_ACTIONS):
        raise Unreadable("the actions are not the four block actions (" + (
            f"listed: {'; '.join(listed)}" if sep else "no 'I have the following restrictions on my actions:'") + ")")
    actions: dict[str, tuple[Phrase, Schema]] = {}
    for line, name in _BLOCK_ACTIONS.items():
        parts: list[str | int] = []
        rest = line
        for slot, words in ((0, "a block"), (1, "another block")):
            before, found, rest2 = rest.partition(words)
            if found:
                parts += [before, slot]
                rest = rest2
        parts.append(rest)
        phrase = Phrase(tuple(p for p in parts if p != ""), *_BLOCK)
        actions[name] = (phrase, Schema(["object"] * len(phrase.slots())))
    _english(rules, _BLOCKS, actions)
    facts = {p: Phrase(parts, r"(\w+)", "{}") for p, (parts, _) in _BLOCK_FACTS.items()}
    return Reading(facts, {p: n for p, (_, n) in _BLOCK_FACTS.items()}, actions)


def read_logistics(description: str) -> Reading:
    head, sep, rules = description.partition("The following are the restrictions on the actions:")
    if not sep:
        raise Unreadable("no list of restrictions on the actions")
    intro, _, listed = head.partition("Here are the actions that can be performed:")
    actions: dict[str, tuple[Phrase, Schema]] = {}
    for ln in listed.splitlines():
        ln = " ".join(ln.split())
        if not ln:
            continue
        what, _, example = ln.partition(". For example, ")
        name = _LOGISTICS_ACTIONS.get(what.lower())
        if name is None:
            raise Unreadable(f"an action the reader does not know: {what!r}")
        example = example.split(". Here")[0].rstrip(".")
        parts: list[str | int] = []
        types: list[str] = []
        pos = 0
        for m in re.finditer(r"\b([a-z]+)_\d+(?:_\d+)?\b", example):
            parts += [example[pos:m.start()], len(types)]
            types.append(_TYPES.get(m.group(1), m.group(1)))
            pos = m.end()
        parts.append(example[pos:])
        if not types:
            raise Unreadable(f"action {what!r} has no example naming its objects")
        actions[name] = (Phrase(tuple(p for p in parts if p != ""), *_THING), Schema(types))
    if set(actions) != set(_LOGISTICS_ACTIONS.values()):
        unlisted = [what for what, name in _LOGISTICS_ACTIONS.items() if name not in actions]
        raise Unreadable(f"not every logistics action is listed with an example (missing: {'; '.join(unlisted)})")
    for s in _sentences(intro.split(".", 1)[1] if "." in intro else ""):
        if s not in _LOGISTICS:
            raise Unreadable(f"a statement the reader does not understand: {s!r}")
    _english(rules, _LOGISTICS, actions)
    facts = {p: Phrase(parts, *_THING) for p, (parts, _) in _LOGISTICS_FACTS.items()}
    return Reading(facts, {p: n for p, (_, n) in _LOGISTICS_FACTS.items()}, actions, dict(_TYPES), typed=True)


_TIME = re.compile(r"\s*(?:It takes (\d+) minutes? to [^.\n]*|Every action takes (\d+) minutes?)\.", re.IGNORECASE)


def read_domain(description: str) -> Reading:
    """The domain the text before the first ``[STATEMENT]`` describes (raises ``Unreadable``).
    Stated durations (t2) are read and taken out: equal ones make the shortest plan the fastest,
    which is what the planner finds; unequal ones are beyond this reader."""
    minutes = {int(a or b) for a, b in _TIME.findall(description)}
    if len(minutes) > 1:
        raise Unreadable(f"actions take different times ({sorted(minutes)} minutes): the reader plans unit costs")
    description = _TIME.sub("", description).replace("Here are the actions I can do:", "Here are the actions I can do")
    if "To perform " in description:
        return read_stated(description)
    if "a set of blocks" in description:
        return read_blocks(description)
    if "plan logistics" in description:
        return read_logistics(description)
    opening = " ".join(description.split()[:12])
    raise Unreadable("the domain description is neither stated schemas ('To perform …') nor the English of "
                     f"Blocksworld or Logistics (it opens {opening!r})")
