"""Reading model text back into PDDL: plans, states and plan-verification verdicts.

Model output is untrusted data: it is only matched against the vocabulary of
the domain's translation (never evaluated), and whatever cannot be read is
reported, not guessed. The rules are PlanBench's (seed 004 §4: one action per
line, "the verb corresponds to the action and each noun to an object"), made
explicit and a little more forgiving:

Plans (``parse_plan``)
  * The plan is the text after the last ``[PLAN]`` tag (if any) up to the
    first ``[PLAN END]``; ``[STATEMENT]`` (a new problem) also ends it.
  * Each line is cleaned: case, markdown, bullets and numbering (``1.``,
    ``2)``, ``Step 3:``) and parenthetical remarks are ignored.
  * A line written as PDDL, ``(unstack a b)``, is read as PDDL.
  * Otherwise the line's *verb* is the earliest action phrase in it: the words
    of an action template before its first slot (``unstack``, ``pick up``),
    its PDDL name (``pick-up``) or an alias from the config. The *objects* are
    the objects the line names, in order of mention, bound to the template's
    slots in the order the slots appear; when that count does not fit the
    action but the count of distinct objects does, repeated mentions are
    dropped ("… the red block (now holding the red block)").
  * Several actions may share a verb (Logistics' ``load`` a truck or an
    airplane): the one whose static preconditions (types, ``in-city``…) hold
    for the named objects is chosen.
  * A line that names fewer objects than the action takes is completed only
    when the missing arguments are fixed by static facts (``drive truck_0 from
    location_0_0 to location_0_1`` — the city is the one both are in);
    otherwise, and when it names more objects than the action takes, the line
    is ambiguous and reported as unparsed.
  * Lines without a verb and without objects are commentary (``ignored``);
    lines with objects but no verb are reported as unparsed.

States (``parse_state``)
  * The text (up to any ``[STATEMENT]``) is split into clauses at commas,
    semicolons, sentence ends, line breaks and the word "and".
  * A clause with a negation ("not", "no longer", "n't") states a false fact:
    it is read, but returned apart (``negated``). PlanBench counts only the
    word "not" as negation; ``negation=PLANBENCH_NEGATION`` reproduces that
    rule alone (PlanBench's whole reader, bug for bug, is ``planbench_rules``).
  * A clause is a fact of predicate P when it names exactly P's number of
    objects and shares the largest part of the words of one of P's templates
    (the template or a ``predicate_aliases`` entry; articles and "is" do not
    count; ties go to the template with more shared words); a clause that fits
    no predicate, or two equally well, is reported as unparsed.
  * A bare subject ("both the yellow block", split off at "and") shares the
    predicate of the clause that follows it on the line ("… and the orange
    block are on the table" → both are on the table).

Verification verdicts (``parse_verification``): the first "plan is valid" /
"plan is invalid" / "plan is not valid" (or correct/incorrect) in the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import product

from .errors import PlanStepError
from .grounding import ground
from .model import Atom
from .translation import Template, Translator

__all__ = [
    "NEGATION",
    "PLANBENCH_NEGATION",
    "ParsedPlan",
    "ParsedState",
    "ParsedStep",
    "Unparsed",
    "Verification",
    "parse_plan",
    "parse_state",
    "parse_verification",
    "plan_region",
]

_ARTICLES = frozenset({"the", "a", "an"})
_STOP = _ARTICLES | {"is", "are", "be", "being", "been"}
_SUBJECT = _ARTICLES | {"both", "also"}  # words a bare coordinated subject may carry
_WORD = re.compile(r"[a-z0-9_]+")
_TAG = re.compile(r"\[(plan end|plan|statement|cost)\]", re.IGNORECASE)
_MARKDOWN = re.compile(r"\*\*|__|`")
_BULLET = re.compile(r"^\s*(?:[-*•>+]+\s*)+")
_NUMBER = re.compile(r"^\s*(?:step\s*)?(?:\(\d+\)|\d+\s*[.):\]-]|\d+\s+(?=[a-z]))\s*(?::\s*)?", re.IGNORECASE)
_STEP_NUMBER = re.compile(r"^\s*step\s*\d+\s*[.:)-]?\s*", re.IGNORECASE)
_PAREN = re.compile(r"\([^()]*\)")
_PDDL_STEP = re.compile(r"^\(\s*([a-z0-9_][\w\-.]*)((?:\s+[a-z0-9_][\w\-.]*)*)\s*\)\s*[.,;]?$")
NEGATION = re.compile(r"\b(?:not|no longer|never|neither|nor|none|nothing)\b|n't\b")
PLANBENCH_NEGATION = re.compile(r"(?<=\s)not(?=\s)")  # PlanBench: only " not " negates a clause
_CLAUSE_SPLIT = re.compile(r"\s*(?:[,;\n]|\.(?:\s|$)|\band\b)\s*")
_VERDICT = re.compile(r"\bplan\s+is\s+(not\s+)?(in)?(valid|correct)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Unparsed:
    """A line (or clause) that looked like content but could not be read, and why."""

    line: int  # 1-based line number in the text given
    text: str
    reason: str


@dataclass(frozen=True)
class ParsedStep:
    """One plan step read from a line; ``inferred`` lists the argument positions
    completed from static facts rather than named in the text."""

    action: str
    args: tuple[str, ...]
    line: int
    text: str
    inferred: tuple[int, ...] = ()

    def __str__(self) -> str:
        return f"({' '.join((self.action, *self.args))})"


@dataclass(frozen=True)
class ParsedPlan:
    steps: tuple[ParsedStep, ...]
    unparsed: tuple[Unparsed, ...] = ()
    ignored: tuple[str, ...] = ()  # commentary lines (no verb, no object)
    ended: bool = False  # a [PLAN END] tag closed the plan

    @property
    def pddl(self) -> list[str]:
        """The steps as PDDL text, ready for ``validate``."""
        return [str(s) for s in self.steps]

    def __len__(self) -> int:
        return len(self.steps)


@dataclass(frozen=True)
class ParsedState:
    atoms: frozenset[Atom]
    negated: frozenset[Atom] = frozenset()
    unparsed: tuple[Unparsed, ...] = ()
    ignored: tuple[str, ...] = ()
    facts: tuple[Atom, ...] = field(default=())  # the positive facts in the order stated (duplicates kept)


@dataclass(frozen=True)
class Verification:
    """A plan-verification answer: ``valid`` is None when the text gives no verdict."""

    valid: bool | None
    phrase: str = ""


# ---------------------------------------------------------------------------
# the vocabulary of one problem, compiled once per translator
# ---------------------------------------------------------------------------

@dataclass
class _ActionForm:
    action: str
    template: Template
    arity: int


class _Lexicon:
    def __init__(self, tr: Translator):
        self.tr = tr
        names = sorted(tr.names.items(), key=lambda kv: -len(kv[1]))
        self.by_name = {text.lower(): obj for obj, text in names}
        alternation = "|".join(re.escape(text.lower()) for _, text in names)
        self.objects = re.compile(rf"(?<![\w])(?:{alternation})(?![\w])") if names else None
        self.verbs: list[tuple[re.Pattern, list[_ActionForm]]] = []
        by_phrase: dict[str, list[_ActionForm]] = {}
        domain = tr.domain
        for act in domain.actions:
            main = tr.config.actions[act.name]
            pairs = [(_verb_phrase(t), t) for t in (main, *tr.config.action_aliases.get(act.name, ()))]
            pairs.append((act.name, main))  # the PDDL name works as a verb too ("pick-up the red block")
            for phrase, t in pairs:
                phrase = " ".join(w for w in re.split(r"[\s\-_]+", phrase.lower()) if w)
                forms = by_phrase.setdefault(phrase, []) if phrase else None
                if forms is not None and all(f.action != act.name or f.template is not t for f in forms):
                    forms.append(_ActionForm(act.name, t, act.arity))
        for phrase, forms in by_phrase.items():
            words = phrase.split(" ")
            pattern = re.compile(r"(?<![\w-])" + r"[\s\-_]+".join(map(re.escape, words)) + r"(?![\w-])")
            self.verbs.append((pattern, forms))
        self.static = domain.static_predicates
        self.init = frozenset(tr.problem.init)
        self.predicates = []  # (predicate, template, arity, template words) for each template and alias
        for name, main in tr.config.predicates.items():
            if name in tr.config.hidden_predicates:
                continue
            predicate = domain.predicate(name)
            assert predicate is not None  # the translation was checked against the domain
            arity = predicate.arity
            for t in (main, *tr.config.predicate_aliases.get(name, ())):
                if len(set(t.slots)) != arity:
                    continue  # a template that leaves out a parameter can be said but not read back
                words = [w for w in _WORD.findall(t.literal.lower()) if w not in _STOP]
                self.predicates.append((name, t, arity, frozenset(words)))

    def mentions(self, text: str, distinct: bool = True) -> list[str]:
        """PDDL objects named in ``text`` in order of mention (distinct: first mentions only)."""
        if self.objects is None:
            return []
        out: list[str] = []
        for m in self.objects.finditer(text):
            obj = self.by_name[m.group(0)]
            if not distinct or obj not in out:
                out.append(obj)
        return out


def _verb_phrase(t: Template) -> str:
    """The first words of a template's text, articles dropped (``unstack the {0} …``
    → ``unstack``, ``pick up the {0}`` → ``pick up``, ``{0} attacks {1}`` → ``attacks``)."""
    for part in t.parts:
        if isinstance(part, str):
            words = [w for w in _WORD.findall(part.lower()) if w not in _ARTICLES]
            if words:
                return " ".join(words)
    return ""


def _lexicon(tr: Translator) -> _Lexicon:
    lex = tr._cache.get("lexicon")
    if lex is None:
        lex = tr._cache["lexicon"] = _Lexicon(tr)
    return lex


# ---------------------------------------------------------------------------
# plans
# ---------------------------------------------------------------------------

def plan_region(text: str) -> tuple[str, int, bool]:
    """The part of a response that holds the plan: after the last ``[PLAN]``
    before the first ``[PLAN END]`` (or the whole text), up to that
    ``[PLAN END]``, a ``[STATEMENT]`` or a ``[COST]``. Returns the text, the
    1-based line number it starts on and whether ``[PLAN END]`` closed it."""
    start, end, ended = 0, len(text), False
    for m in _TAG.finditer(text):
        tag = m.group(1).lower()
        if tag == "plan":
            start = m.end()
        elif m.start() >= start:
            end, ended = m.start(), tag == "plan end"
            break
    first_line = text.count("\n", 0, start) + 1
    return text[start:end], first_line, ended


def clean_line(line: str) -> str:
    """Lower-case, without markdown, bullets and numbering."""
    s = _MARKDOWN.sub("", line).strip()
    s = _BULLET.sub("", s)
    s = _STEP_NUMBER.sub("", s)
    s = _NUMBER.sub("", s)
    s = _BULLET.sub("", s)
    return s.strip().lower()


def parse_plan(text: str, tr: Translator) -> ParsedPlan:
    """Read the plan in a model's response (see the module docstring for the rules)."""
    lex = _lexicon(tr)
    region, first_line, ended = plan_region(text)
    steps: list[ParsedStep] = []
    unparsed: list[Unparsed] = []
    ignored: list[str] = []
    for offset, raw in enumerate(region.split("\n")):
        lineno = first_line + offset
        line = clean_line(raw)
        if not line:
            continue
        step = _pddl_line(line, lex, lineno, raw.strip())
        if step is not None:
            if isinstance(step, Unparsed):
                unparsed.append(step)
            else:
                steps.append(step)
            continue
        result = _nl_line(_PAREN.sub(" ", line), lex, lineno, raw.strip())
        if result is None:
            ignored.append(raw.strip())
        elif isinstance(result, Unparsed):
            unparsed.append(result)
        else:
            steps.append(result)
    return ParsedPlan(tuple(steps), tuple(unparsed), tuple(ignored), ended)


def _pddl_line(line: str, lex: _Lexicon, lineno: int, raw: str) -> ParsedStep | Unparsed | None:
    m = _PDDL_STEP.match(line)
    if m is None:
        return None
    name, args = m.group(1), tuple(m.group(2).split())
    if lex.tr.domain.action(name) is None:
        return None  # a parenthetical remark, not a step: read the line as text
    try:
        ground(lex.tr.problem).ground(name, args)
    except PlanStepError as exc:
        return Unparsed(lineno, raw, exc.reason)
    return ParsedStep(name, args, lineno, raw)


def _nl_line(line: str, lex: _Lexicon, lineno: int, raw: str) -> ParsedStep | Unparsed | None:
    best: tuple[int, int, list[_ActionForm]] | None = None
    for pattern, forms in lex.verbs:
        m = pattern.search(line)
        if m is not None and (best is None or (m.start(), -(m.end() - m.start())) < (best[0], -best[1])):
            best = (m.start(), m.end() - m.start(), forms)
    every = lex.mentions(line, distinct=False)
    objects = lex.mentions(line)
    if best is None:
        return Unparsed(lineno, raw, "names objects but no action") if objects else None
    forms = best[2]
    # every mention first ("move from room a to room a"), then first mentions only
    # ("unstack the red block …, now holding the red block")
    readings = [every] if every == objects else [every, objects]
    for objs in readings:  # an action that takes that many objects and fits their static facts
        for form in forms:
            if form.arity == len(objs) and _static_ok(lex, form.action, _bind(form, objs)):
                return ParsedStep(form.action, _bind(form, objs), lineno, raw)
    for objs in readings:  # none fits the static facts: keep what the text says (validation explains)
        for form in forms:
            if form.arity == len(objs):
                return ParsedStep(form.action, _bind(form, objs), lineno, raw)
    for objs in readings:  # too few objects: complete from static facts when only one completion exists
        for form in forms:
            if form.arity > len(objs):
                done = _complete(lex, form, objs)
                if done is not None:
                    return ParsedStep(form.action, done[0], lineno, raw, done[1])
    arities = sorted({f.arity for f in forms})
    want = " or ".join(map(str, arities))
    verb = forms[0].action
    return Unparsed(lineno, raw, f"'{verb}' takes {want} object{'s' if arities != [1] else ''}, "
                                 f"the line names {len(objects)}")


def _bind(form: _ActionForm, objects: list[str]) -> tuple[str, ...]:
    args = [""] * form.arity
    for slot, obj in zip(_slot_order(form), objects):
        args[slot] = obj
    return tuple(args)


def _slot_order(form: _ActionForm) -> list[int]:
    order: list[int] = []
    for s in form.template.slots:
        if s not in order:
            order.append(s)
    order += [i for i in range(form.arity) if i not in order]
    return order


def _static_ok(lex: _Lexicon, action: str, args: tuple[str, ...]) -> bool:
    """The action's types and static preconditions hold for ``args``."""
    try:
        ga = ground(lex.tr.problem).ground(action, args)
    except PlanStepError:
        return False
    if ga.impossible:
        return False
    return all((lit.atom in lex.init) == lit.positive for lit in ga.preconditions
               if not lit.is_equality and lit.atom.predicate in lex.static)


def _complete(lex: _Lexicon, form: _ActionForm, objects: list[str]) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
    """Fill the slots the text left out when static facts allow exactly one completion."""
    schema = lex.tr.domain.action(form.action)
    assert schema is not None  # the lexicon's action forms come from the domain's actions
    order = _slot_order(form)
    named = dict(zip(order, objects))
    missing = [i for i in range(form.arity) if i not in named]
    # only parameters that some static precondition constrains can be inferred
    constrained = {p.name for lit in schema.precondition if lit.atom.predicate in lex.static
                   for p in schema.parameters if p.name in lit.atom.args}
    if any(schema.parameters[i].name not in constrained for i in missing):
        return None
    pools = []
    for i in missing:
        ptype = schema.parameters[i].type
        pools.append([o.name for o in lex.tr.problem.all_objects if lex.tr.domain.is_subtype(o.type, ptype)])
    found = None
    for combo in product(*pools):
        args = [""] * form.arity
        for i, obj in named.items():
            args[i] = obj
        for i, obj in zip(missing, combo):
            args[i] = obj
        if _static_ok(lex, form.action, tuple(args)):
            if found is not None:
                return None  # more than one completion: ambiguous
            found = tuple(args)
    return (found, tuple(missing)) if found is not None else None


# ---------------------------------------------------------------------------
# states
# ---------------------------------------------------------------------------

def parse_state(text: str, tr: Translator, negation: re.Pattern = NEGATION) -> ParsedState:
    """Read the facts a text states (see the module docstring for the rules).
    ``negation`` decides which clauses state false facts: planprobe's rule
    (``NEGATION``: "not", "no longer", "n't", …) or ``PLANBENCH_NEGATION`` (only
    " not ", as PlanBench reads states — "X is no longer clear" then says X is clear)."""
    lex = _lexicon(tr)
    cut = re.search(r"\[statement\]", text, re.IGNORECASE)
    if cut is not None:
        text = text[:cut.start()]
    atoms: list[Atom] = []
    negated: list[Atom] = []
    unparsed: list[Unparsed] = []
    ignored: list[str] = []
    for lineno, raw_line in enumerate(text.split("\n"), 1):
        line = _TAG.sub(" ", raw_line)
        line = re.sub(r"\[[a-z ]+\]", " ", line, flags=re.IGNORECASE)
        line = _PAREN.sub(" ", _MARKDOWN.sub("", line)).lower()
        waiting: list[tuple[str, list[str]]] = []  # subjects without a predicate: "both X" (and Y are …)
        for clause in _CLAUSE_SPLIT.split(line):
            clause = _BULLET.sub("", clause).strip(" .:")
            if not clause:
                continue
            atom, why = _read_fact(clause, lex)
            if atom is None:
                objects = lex.mentions(clause)
                if (why and len(objects) == 1 and lex.objects is not None
                        and not set(_WORD.findall(lex.objects.sub(" ", clause))) - _SUBJECT):
                    waiting.append((clause, objects))
                elif why:
                    unparsed.append(Unparsed(lineno, clause, why))
                else:
                    ignored.append(clause)
                continue
            found = [atom]
            if waiting and len(atom.args) == 1:  # coordinated subjects share the predicate
                found += [Atom(atom.predicate, (objs[0],)) for _, objs in waiting]
                waiting = []
            for clause_text, _ in waiting:
                unparsed.append(Unparsed(lineno, clause_text, "no predicate fits"))
            waiting = []
            (negated if negation.search(f" {clause} ") else atoms).extend(found)
        for clause_text, _ in waiting:
            unparsed.append(Unparsed(lineno, clause_text, "no predicate fits"))
    return ParsedState(frozenset(atoms), frozenset(negated), tuple(unparsed), tuple(ignored), tuple(atoms))


def _read_fact(clause: str, lex: _Lexicon) -> tuple[Atom | None, str]:
    objects = lex.mentions(clause)
    masked = lex.objects.sub(" ", clause) if lex.objects is not None else clause
    words = set(_WORD.findall(masked))
    scored = []
    for name, t, arity, pwords in lex.predicates:
        if arity != len(objects) or not pwords:
            continue
        shared = len(pwords & words)
        if shared:
            scored.append((shared / len(pwords), shared, name, t))
    if not scored:
        if objects:
            return None, "no predicate fits"
        return None, ""
    scored.sort(key=lambda s: (s[0], s[1]), reverse=True)
    rivals = {s[2] for s in scored if s[:2] == scored[0][:2]}
    if len(rivals) > 1:
        return None, f"ambiguous: {' or '.join(sorted(rivals))}"
    _, _, name, t = scored[0]
    args = [""] * len(objects)
    order: list[int] = []
    for s in t.slots:
        if s not in order:
            order.append(s)
    for slot, obj in zip(order, objects):
        args[slot] = obj
    return Atom(name, tuple(args)), ""


# ---------------------------------------------------------------------------
# plan verification answers
# ---------------------------------------------------------------------------

def parse_verification(text: str) -> Verification:
    """The verdict of a plan-verification answer (up to any ``[STATEMENT]``)."""
    cut = re.search(r"\[statement\]", text, re.IGNORECASE)
    if cut is not None:
        text = text[:cut.start()]
    m = _VERDICT.search(text)
    if m is None:
        return Verification(None)
    return Verification(not (m.group(1) or m.group(2)), m.group(0))
