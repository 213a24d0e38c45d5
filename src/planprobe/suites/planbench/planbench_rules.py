"""PlanBench's own reading of model replies, reproduced bug for bug.

Why: PlanBench's published accuracies come from its ``text_to_plan`` /
``text_to_state`` (``utils/text_to_pddl.py``) and ``parse_output``
(``response_evaluation.py``) of karthikv792/LLMs-Planning, ``plan-bench/``.
Those readers have quirks that decide verdicts (a coordinated subject loses its
fact, "no longer clear" reads as "clear", a line with both "unstack" and
"stack" is a ``stack``…). To re-score a run so that its numbers compare with
PlanBench's, planprobe must read replies exactly as that code does. This module
is an independent implementation of that behaviour, written from reading the
code; planprobe's own, more careful reader is ``responses.py``.

Every rule below is PlanBench's, quirks included (numbers refer to the list in
docs/planbench-conformance.md#quirks):

Plans, Blocksworld and Mystery Blocksworld (``'blocksworld' in domain_name``)
  * The whole reply is lower-cased and stripped; nothing is cut off — text
    after ``[PLAN END]`` is read too (Q1). Each action's phrase (the first word
    of its template, or the PDDL name with ``-`` as a space when that word is
    part of the name: ``pick up``) is replaced by the PDDL name everywhere in
    the text (Q2).
  * Lines are split at ``\\n`` only (Q3). ``[COST]`` never stops the reading,
    because it is searched in the lower-cased text (Q4).
  * A line is a step when one of its whitespace-separated tokens *is* an action
    name (``1.unstack`` or ``**stack**`` are not; Q5); the action is the first
    in the *domain file's* order among those present, not the first in the line
    (Q6).
  * Its objects are the object names found anywhere in the line as substrings
    (``theorange block`` and ``orange blocks`` name the orange block; Q7), each
    once, ordered by first position (Q8). A line whose object count differs
    from the action's parameter count is dropped silently (Q9).
Plans, Logistics (``domain_name == 'logistics'``)
  * Lines lower-cased; a leading ``N.`` or ``NN.`` is cut and then every ``.``
    of the line removed (Q10). The first token must be ``load``, ``unload``,
    ``drive`` or ``fly`` (Q11). Objects are the tokens that contain a digit,
    rewritten ``package_0`` → ``p0``, ``location_0_1`` → ``l0-1`` (first
    letter + the ``_`` parts joined by ``-``, punctuation kept; Q12). The
    vehicle is an airplane if the second (load/unload) or first token-object
    contains ``a``, else a truck if it contains ``t`` (Q13); ``drive`` with three
    objects gets the city ``c`` + the first digit of its second object (Q14).
  * Failures raise in PlanBench (a one-character numbered line, a
    load with fewer than two objects, a vehicle with neither letter…), and an
    exception makes the *whole* reply incorrect (Q15).
Plans, obfuscated domains (``'obfuscated' in domain_name``)
  * PlanBench's reader indexes a ``dict_keys`` object, so any line with an
    action token and an ``object_N`` raises: every such reply is incorrect
    (Q16). A reply without one yields the empty plan.
Plans, Depots: lines lower-cased, leading digits and every ``.`` removed;
  objects are the tokens with a digit; the action is the *last* action name (in
  domain order) that occurs as a substring (``unload`` contains ``load``; Q17).

States (t7, and the facts of t3 answers)
  * The reply (not lower-cased, nothing cut off) has every ``" and "``
    replaced by a comma and is split at commas only — not at full stops or
    line breaks (Q18). The revision that scored PlanBench's published t7
    results split at commas only (``and_split=False``; the recorded
    extractions show it). A clause containing ``" not "`` is skipped (Q19:
    "no longer", "isn't", a leading "Not" do not negate).
  * Blocksworld: the predicate is the first of ``predicate_mapping``
    (``on the table``, ``clear``, ``hand is empty``, ``holding``, ``on top
    of``) that occurs in the clause, case-sensitively (Q20; "unclear" is
    ``clear``). The clause is split at that phrase; from each piece the
    *first colour in PlanBench's object order* (red, blue, orange, …) that
    occurs as a substring is taken (Q21: "ordered" names red; a piece naming
    two blocks gives the earlier colour in that order), and the first
    arity-many are kept. "both the X block and the Y block are on the table"
    is two clauses, the first without a predicate: only Y is on the table (Q22).
    "the X block is being held" fits no phrase and is dropped (Q23).
  * Mystery Blocksworld: the predicate is the first of ``planet``,
    ``province``, ``harmony``, ``craves``, ``pain`` contained in the clause
    (case-sensitive: "Planet object a" is nothing); the clause is split at the
    predicate's *template* (``"{} craves {}"``, which never occurs), so at most
    one object is read, the alphabetically first named (Q24);
    ``harmony`` becomes ``harmony_`` (Q25).
  * Logistics, the obfuscated Logistics domains (PlanBench tests
    ``' obfuscated'`` with a space, so they fall through to Logistics; Q26) and
    Depots: a clause with ``" is at "`` / ``" is in "`` (Depots also
    ``" is on "``) becomes ``at_`` + the raw text on both sides joined by
    ``_`` (Q27: ``at_package_0_location_0_0``, which never equals the PDDL
    fact ``at_p0_l0-0``).
  * Facts are compared as sorted *lists* with the reference state: a fact
    stated twice makes the answer wrong (Q28).

Verification answers (t3, ``parse_output``)
  * Lines up to the first containing ``[STATEMENT]``, blank ones skipped. The
    verdict is set by the first line containing ``plan is valid`` (reading
    stops there) or ``plan is invalid`` (case-sensitive: "Plan is valid" at
    the start of a line is no verdict; "not valid" is none either; Q29). An
    answer without a verdict makes PlanBench's evaluation crash (Q30).
  * ``unmet goal`` → the next line's facts; ``unmet precondition`` with
    ``action`` → the next line's step (as ``text_to_plan``'s readable plan),
    then the facts of a later line that mentions an unmet precondition, or of
    a line ``Unmet precondition:`` (Q31).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...pddl.model import Atom, Domain

__all__ = [
    "CONFIGS",
    "PlanBenchConfig",
    "PlanBenchError",
    "PlanExtraction",
    "PlanBenchReader",
    "fact_string",
    "verification_levels",
]


# ---------------------------------------------------------------------------
# PlanBench's configs: the fields its readers use, in its order
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class PlanBenchConfig:
    """The parts of one PlanBench config (``configs/<name>.yaml``) its readers use;
    every mapping keeps PlanBench's order, which decides first matches."""

    name: str  # domain_name
    objects: tuple[tuple[str, str], ...] = ()  # encoded_objects: (PDDL name, text)
    actions: tuple[tuple[str, str], ...] = ()  # action -> template with {}
    predicates: tuple[tuple[str, str], ...] = ()  # predicate -> template with {}
    predicate_mapping: tuple[tuple[str, str], ...] = ()  # Blocksworld: predicate -> phrase


_COLOURS = ("red", "blue", "orange", "yellow", "white", "magenta", "black", "cyan", "green", "violet",
            "silver", "gold")
_LETTERS = "abcdefghijkl"
_BLOCKSWORLD = dict(
    objects=tuple((k, f"{c} block") for k, c in zip(_LETTERS, _COLOURS)),
    actions=(("pick-up", "pick up the {}"), ("put-down", "put down the {}"),
             ("stack", "stack the {} on top of the {}"), ("unstack", "unstack the {} from on top of the {}")),
    predicates=(("ontable", "the {} is on the table"), ("clear", "the {} is clear"),
                ("handempty", "the hand is empty"), ("holding", "the hand is currently holding {}"),
                ("on", "the {} is on top of the {}")),
    predicate_mapping=(("ontable", "on the table"), ("clear", "clear"), ("handempty", "hand is empty"),
                       ("holding", "holding"), ("on", "on top of")),
)
_MYSTERY = dict(
    objects=tuple((k, f"object {k}") for k in _LETTERS),
    actions=(("attack", "attack {}"), ("succumb", "succumb {}"), ("overcome", "overcome {} from {}"),
             ("feast", "feast {} from {}")),
    predicates=(("planet", "planet {}"), ("province", "province {}"), ("harmony", "harmony"),
                ("craves", "{} craves {}"), ("pain", "pain {}")),
)
CONFIGS: dict[str, PlanBenchConfig] = {
    "blocksworld": PlanBenchConfig("blocksworld", **_BLOCKSWORLD),
    "blocksworld_3": PlanBenchConfig("blocksworld_3", **_BLOCKSWORLD),
    "mystery_blocksworld": PlanBenchConfig("mystery_blocksworld", **_MYSTERY),
    "mystery_blocksworld_3": PlanBenchConfig("mystery_blocksworld_3", **_MYSTERY),
    "logistics": PlanBenchConfig("logistics"),
    "depots": PlanBenchConfig("depots"),
    # the obfuscated readers use only the action names, which are the domain's
    "obfuscated_deceptive_logistics": PlanBenchConfig("obfuscated_deceptive_logistics"),
    "obfuscated_randomized_logistics": PlanBenchConfig("obfuscated_randomized_logistics"),
}


class PlanBenchError(Exception):
    """PlanBench's own code raises on this reply (the message says where and why)."""


@dataclass(frozen=True)
class PlanExtraction:
    """What PlanBench's ``text_to_plan`` returns: the plan in PDDL names (what VAL
    checks) and its readable form (what PlanBench's result files store), or the
    exception it raises — which makes the reply incorrect."""

    steps: tuple[str, ...] = ()
    readable: tuple[str, ...] = ()
    error: str | None = None

    @property
    def text(self) -> str:
        """The plan file PlanBench writes: one step per line."""
        return "".join(f"{s}\n" for s in self.steps)


def fact_string(atom: Atom) -> str:
    """A fact in PlanBench's state notation: ``(on a b)`` → ``on_a_b``."""
    return "_".join((atom.predicate, *atom.args))


# ---------------------------------------------------------------------------
# the reader
# ---------------------------------------------------------------------------

@dataclass
class PlanBenchReader:
    """PlanBench's readers for one config and PDDL domain (the domain gives the
    action order and parameter counts, as tarski's ``problem.actions`` does)."""

    config: PlanBenchConfig
    domain: Domain
    _actions: list[tuple[str, int]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._actions = [(a.name.lower(), a.arity) for a in self.domain.actions]

    @classmethod
    def for_config(cls, name: str, domain: Domain) -> PlanBenchReader:
        config = CONFIGS.get(name)
        if config is None:
            raise KeyError(f"no PlanBench config {name!r} (known: {', '.join(CONFIGS)})")
        return cls(config, domain)

    # -- plans -------------------------------------------------------------

    def text_to_plan(self, text: str) -> PlanExtraction:
        """The plan PlanBench's ``text_to_plan`` reads from ``text`` (see the module docstring)."""
        name = self.config.name
        try:
            if "obfuscated" in name:
                return self._plan_obfuscated(text)
            if name == "logistics":
                return self._plan_logistics(text)
            if "blocksworld" in name:
                return self._plan_blocksworld(text)
            if "depots" in name:
                return self._plan_depots(text)
        except PlanBenchError as exc:
            return PlanExtraction(error=str(exc))
        return PlanExtraction(error=f"TypeError: PlanBench has no plan reader for {name!r}")

    def _plan_blocksworld(self, text: str) -> PlanExtraction:
        cfg = self.config
        phrases = {}
        for action, template in cfg.actions:
            word = template.split(" ")[0]
            phrases[action] = action.replace("-", " ") if word in action else word
        names = [a for a, _ in self._actions]
        arity = dict(self._actions)
        text = text.lower().strip()
        for action in names:
            if action not in phrases:
                raise PlanBenchError(f"KeyError: {action!r} has no template in PlanBench's config")
            text = text.replace(phrases[action], action)
        objects = [t.lower() for _, t in cfg.objects]
        by_text = {t.lower(): k for k, t in cfg.objects}
        steps: list[str] = []
        readable: list[str] = []
        for line in (ln.strip() for ln in text.split("\n")):
            if "[COST]" in line:  # never true: the text is lower-cased (Q4)
                break
            tokens = line.split()
            present = [a for a in names if a in tokens]
            if not present:
                continue
            action = present[0]
            found = _ordered_objects(objects, line)
            if len(found) != arity[action]:
                continue
            steps.append(_step(action, [by_text[o] for o in found]))
            readable.append(_step(action, [o.replace(" block", "") for o in found]))
        return PlanExtraction(tuple(steps), tuple(readable))

    def _plan_logistics(self, text: str) -> PlanExtraction:
        verbs = {a.split("-")[0] for a, _ in self._actions}
        steps: list[str] = []
        for lineno, line in enumerate((ln.strip().lower() for ln in text.split("\n")), 1):
            if not line:
                continue
            if "[COST]" in line:  # never true: lower-cased (Q4)
                break
            where = f"line {lineno} {line!r}"
            if line[0].isdigit():
                if len(line) < 2:
                    raise PlanBenchError(f"IndexError at {where}: a lone digit")
                if line[1] == ".":
                    line = line[2:].replace(".", "")
                elif line[1].isdigit():
                    if len(line) < 3:
                        raise PlanBenchError(f"IndexError at {where}: a lone number")
                    if line[2] == ".":
                        line = line[3:].replace(".", "")
            objs = [tok[0] + "-".join(tok.split("_")[1:]) for tok in line.split() if _has_digit(tok)]
            tokens = line.split()
            if not tokens:
                raise PlanBenchError(f"IndexError at {where}: nothing after the number")
            if tokens[0] not in verbs:
                continue
            action = tokens[0]
            need = 2 if ("load" in action or "unload" in action) else 1
            if len(objs) < need:
                raise PlanBenchError(f"IndexError at {where}: {len(objs)} object(s), the vehicle is object {need}")
            vehicle = objs[need - 1]
            if "a" in vehicle:
                action += "-airplane"
            elif "t" in vehicle:
                action += "-truck"
            else:
                raise PlanBenchError(f"ValueError at {where}: {vehicle!r} is neither an airplane nor a truck")
            if action == "drive-truck" and len(objs) == 3:
                digits = [ch for ch in objs[1] if ch.isdigit()]
                if not digits:
                    raise PlanBenchError(f"IndexError at {where}: no digit in {objs[1]!r} for the city")
                objs.append("c" + digits[0])
            steps.append(_step(action, objs))
        return PlanExtraction(tuple(steps), tuple(steps))

    def _plan_depots(self, text: str) -> PlanExtraction:
        names = [a for a, _ in self._actions]
        steps: list[str] = []
        for line in (ln.strip().lower() for ln in text.split("\n")):
            if not line:
                continue
            if "[COST]" in line:  # never true: lower-cased (Q4)
                break
            line = line.lstrip("0123456789").replace(".", "")
            objs = [tok for tok in line.split() if _has_digit(tok)]
            found = [a for a in names if a in line]
            if not found:
                continue
            steps.append(_step(found[-1], objs))
        return PlanExtraction(tuple(steps), tuple(steps))

    def _plan_obfuscated(self, text: str) -> PlanExtraction:
        names = [a for a, _ in self._actions]
        for lineno, line in enumerate((ln.strip() for ln in text.split("\n")), 1):
            if "[COST]" in line:  # case-sensitive here: this reader does not lower-case
                break
            if line.strip() == "":
                continue
            tokens = line.split()
            if not any(a in tokens for a in names):
                continue
            if not [p.strip() for p in line.split("object_") if p.strip().isdigit()]:
                continue
            raise PlanBenchError(f"TypeError at line {lineno} {line!r}: PlanBench indexes dict_keys "
                                 "(every obfuscated step raises)")
        return PlanExtraction()

    # -- states ------------------------------------------------------------

    def text_to_state(self, text: str, and_split: bool = True) -> list[str]:
        """The facts PlanBench's ``text_to_state`` reads, in its notation and order
        (duplicates kept); raises ``PlanBenchError`` where PlanBench's code raises.
        ``and_split=False``: clauses end at commas only, as in the revision that
        scored PlanBench's published t7 results (Q18)."""
        name = self.config.name
        clauses = (text.replace(" and ", ",") if and_split else text).split(",")
        if "mystery" in name:
            return self._state_mystery(clauses)
        if " obfuscated" in name:  # never true for PlanBench's names (Q26)
            raise PlanBenchError("AttributeError: PlanBench's obfuscated state reader calls str.strip.isdigit")
        if "logistics" in name:
            return _state_split(clauses, ((" is at ", "at"), (" is in ", "in")))
        if "blocksworld" in name:
            return self._state_blocksworld(clauses)
        if "depots" in name:
            return _state_split(clauses, ((" is at ", "at"), (" is in ", "in"), (" is on ", "on")))
        raise PlanBenchError(f"TypeError: PlanBench has no state reader for {name!r}")

    def _state_blocksworld(self, clauses: list[str]) -> list[str]:
        cfg = self.config
        if not cfg.predicate_mapping:
            raise PlanBenchError(f"TypeError: config {cfg.name!r} has no predicate_mapping")
        colours = [(t.replace(" block", ""), k) for k, t in cfg.objects]
        params = {p: t.count("{}") for p, t in cfg.predicates}
        facts: list[str] = []
        for clause in clauses:
            clause = clause.strip()
            if clause == "" or " not " in clause:
                continue
            match = next(((p, phrase) for p, phrase in cfg.predicate_mapping if phrase in clause), None)
            if match is None:
                continue
            predicate, phrase = match
            objs = []
            for piece in clause.split(phrase):
                hit = next((letter for colour, letter in colours if colour in piece), None)
                if hit is not None:
                    objs.append(hit)
            facts.append("".join([predicate, *("_" + o for o in objs[:params[predicate]])]))
        return facts

    def _state_mystery(self, clauses: list[str]) -> list[str]:
        cfg = self.config
        facts: list[str] = []
        for clause in clauses:
            clause = clause.strip()
            if clause == "" or " not " in clause:
                continue
            match = next(((p, t) for p, t in cfg.predicates if p in clause), None)
            if match is None:
                continue
            predicate, template = match
            objs = []
            for piece in clause.split(template):
                hit = next((k for k, t in cfg.objects if t in piece), None)
                if hit is not None:
                    objs.append(hit)
            facts.append(predicate + "_" + "_".join(objs))
        return facts

    # -- verification answers (t3) ------------------------------------------

    def parse_output(self, text: str) -> dict[str, Any]:
        """PlanBench's ``parse_output``: ``valid``, ``unmet_goal`` (facts) and
        ``unmet_precondition`` (``action``: readable step text, ``predicate``: facts)."""
        out: dict[str, Any] = {}
        goal_next = action_next = after_action = facts_wanted = False
        for line in text.split("\n"):
            if "[STATEMENT]" in line:
                break
            if line.strip() == "":
                continue
            if goal_next:
                out["unmet_goal"] = self.text_to_state(line.strip())
                goal_next = False
                continue
            if action_next:
                plan = self.text_to_plan(line.strip())
                if plan.error is not None:
                    raise PlanBenchError(plan.error)
                out["unmet_precondition"]["action"] = "".join(f"{s}\n" for s in plan.readable)
                action_next = False
                after_action = True
                continue
            if after_action and facts_wanted:
                out["unmet_precondition"]["predicate"] = self.text_to_state(line.strip())
                facts_wanted = after_action = False
            if "plan is valid" in line:
                out.setdefault("valid", True)
                break
            if "plan is invalid" in line:
                out["valid"] = False
            if "unmet goal" in line and "unmet precondition" in line:
                break
            if "unmet goal" in line:
                out["unmet_goal"] = ""
                goal_next = True
            elif "unmet precondition" in line:
                if "action" in line:
                    out["unmet_precondition"] = {}
                    action_next = True
                else:
                    facts_wanted = True
            elif "Unmet precondition:" in line and after_action:
                out["unmet_precondition"]["predicate"] = self.text_to_state(line.strip())
                after_action = False
        return out


def verification_levels(answer: dict[str, Any], reference: dict[str, Any]) -> tuple[bool, bool, bool]:
    """PlanBench's three t3 levels (binary, with type, with explanation) for a parsed
    answer against the parsed reference answer; raises ``PlanBenchError`` where
    PlanBench's evaluation crashes (an answer or reference without a verdict)."""
    for what, parsed in (("the answer", answer), ("the reference answer", reference)):
        if "valid" not in parsed:
            raise PlanBenchError(f"KeyError: 'valid' — {what} says neither 'plan is valid' nor 'plan is invalid'")
    if answer["valid"] != reference["valid"]:
        return False, False, False
    if answer["valid"]:
        return True, True, True
    if sorted(answer) != sorted(reference):
        return True, False, False
    explained = False
    if "unmet_goal" in answer:
        explained = any(f in reference["unmet_goal"] for f in answer["unmet_goal"])
    if "unmet_precondition" in answer:
        mine, theirs = answer["unmet_precondition"], reference["unmet_precondition"]
        try:  # PlanBench catches the KeyError of a half-read answer and leaves the level unmet
            if mine["action"] == theirs["action"]:
                if any(f in theirs["predicate"] for f in mine["predicate"]):
                    explained = True
        except KeyError:
            pass
    return True, True, explained


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def _ordered_objects(names: list[str], line: str) -> list[str]:
    """The object names occurring in ``line`` as substrings, each once, by first position."""
    hits = sorted((line.index(n), n) for n in names if n in line)
    return [n for _, n in hits]


def _has_digit(token: str) -> bool:
    return any(ch.isdigit() for ch in token)


def _step(action: str, args: list[str]) -> str:
    return f"({action} {' '.join(args)})"


def _state_split(clauses: list[str], phrases: tuple[tuple[str, str], ...]) -> list[str]:
    """Logistics and Depots: the raw text around the first phrase present, joined by ``_``."""
    facts: list[str] = []
    for clause in clauses:
        clause = clause.strip()
        if clause == "" or " not " in clause:
            continue
        for phrase, predicate in phrases:
            if phrase in clause:
                facts.append(predicate + "_" + "_".join(p for p in clause.split(phrase) if len(p) > 0))
                break
    return facts
