"""How the world is said to the agent: the task text and the observations.

Two languages:

* ``nl`` — through the domain's translation config (``translation.py``:
  PlanBench's sentences for Blocksworld, Logistics and their mystery variants,
  or a user's config). Objects keep their PDDL ids in tool calls, so the task
  carries a legend ("a: the red block").
* ``pddl`` — facts as PDDL atoms, ``(on a b)``, and the rules as preconditions
  and effects. Works for every domain, including randomly obfuscated ones, and
  is what ``nl`` falls back to when a domain has no translation config.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...errors import PlanprobeError
from ...pddl.model import Atom, PDDLLiteral, Problem

INSTRUCTIONS = (
    "You act in this world by calling tools, one action per call; each tool takes the ids of the objects the "
    "action applies to. A call whose preconditions hold performs the action and tells you the resulting state. "
    "A call whose preconditions do not hold changes nothing and tells you which preconditions failed."
)
STRICT = " Every call that fails that way counts as a mistake, so plan before you act."
LENIENT = " Failed calls are allowed: only the final state counts."
ENDING = " When the goal holds, stop calling tools and say that you are done."


def _sort_key(atom: Atom) -> str:
    return f"{atom.predicate} {' '.join(atom.args)}"


_CONFIGS: dict[int, tuple[object, object]] = {}  # id(domain) -> (domain, its translation config or None)


def _config(domain):
    """The domain's translation config (built in, else the generic one), looked up
    once per domain object: a suite's cases share one domain."""
    hit = _CONFIGS.get(id(domain))
    if hit is not None and hit[0] is domain:
        return hit[1]
    try:
        from ...pddl import translation
    except ImportError:  # pragma: no cover - translation.py ships with planprobe
        return None
    config: translation.DomainTranslation | None
    try:
        config = translation.translation_for(domain)
    except PlanprobeError:
        generic = getattr(translation, "generic_translation", None)
        config = generic(domain) if generic is not None else None
    if len(_CONFIGS) > 64:
        _CONFIGS.clear()
    _CONFIGS[id(domain)] = (domain, config)
    return config


def _translator(problem: Problem):
    """The translation.py translator of the problem's domain, or None (no config, or
    the module is not available)."""
    config = _config(problem.domain)
    if config is None:
        return None
    from ...pddl.translation import translator

    try:
        return translator(problem, config)
    except PlanprobeError:
        return None


class Renderer:
    """Says atoms, literals and actions of one problem in the case's language."""

    def __init__(self, problem: Problem, language: str):
        self.problem = problem
        self.tr = _translator(problem) if language == "nl" else None
        self.language = "nl" if self.tr is not None else "pddl"

    def atoms(self, atoms: Iterable[Atom]) -> str:
        items = sorted(atoms, key=_sort_key)
        if self.tr is not None:
            return self.tr.atoms(items) or "nothing"
        return " ".join(str(a) for a in items) or "nothing"

    def literal(self, lit: PDDLLiteral) -> str:
        if self.tr is None or lit.is_equality:
            return str(lit)
        text = self.tr.atom(lit.atom)
        return text if lit.positive else f"it is not the case that {text}"

    def literals(self, lits: Iterable[PDDLLiteral]) -> str:
        parts = [self.literal(x) for x in lits]
        if self.tr is None:
            return " ".join(parts)
        from ...pddl.translation import join_items

        return join_items(parts)

    def action(self, name: str, args: tuple[str, ...]) -> str:
        step = f"({' '.join((name, *args))})"
        if self.tr is None:
            return step
        try:
            text = self.tr.action(step)
        except PlanprobeError:
            return step
        return step if text.split() == step[1:-1].split() else f"{text} {step}"

    # -- the task ------------------------------------------------------------
    def describe(self) -> dict[str, str]:
        """The parts of the task: domain (rules), objects (legend), init, goal."""
        p = self.problem
        if self.tr is not None:
            tr = self.tr
            # planprobe's own tasks take a config's corrected description where it has one (Mystery
            # Blocksworld's verbatim PlanBench text slips on Overcome's effects; PlanBench's family keeps it)
            rules = tr.config.intro("corrected" if "corrected" in tr.config.intros else "default", p.domain).strip()
            kinds = _unsaid_kinds(p, tr)
            legend = "; ".join(f"{o.name}: {tr.object_name(o.name)}" + (f" ({', '.join(kinds[o.name])})"
                                                                       if o.name in kinds else "")
                               for o in p.all_objects)
            init = tr.init()
            goal = tr.goal()
        else:
            rules = _pddl_rules(p)
            legend = ", ".join(o.name if o.type == "object" else f"{o.name} ({o.type})" for o in p.all_objects)
            init = self.atoms(p.init)
            goal = " ".join(str(lit) for lit in p.goal)
        out = {"domain": rules, "objects": legend, "init": init, "goal": goal, "language": self.language}
        if self.tr is not None and (kinds := _unsaid_kinds(p, self.tr)):
            first = next(o.name for o in p.all_objects if o.name in kinds)  # the example the legend's intro gives
            out["kinds"] = (f"`{first}: {self.tr.object_name(first)} ({kinds[first][0]})` says that "
                            f"({kinds[first][0]} {first}) holds")
        return out


def _unsaid_kinds(problem: Problem, tr) -> dict[str, list[str]]:
    """Object -> the one-place facts of its initial state that the translation leaves out (its
    ``hidden_predicates``: Logistics' ``(truck t0)``, ``(obj p0)``, as PlanBench's sentences do).
    The actions' preconditions need them, so the legend states them: the agent reads each
    object's type there, not from its name."""
    out: dict[str, list[str]] = {}
    for atom in sorted(problem.init, key=_sort_key):
        if len(atom.args) == 1 and not tr.visible(atom):
            out.setdefault(atom.args[0], []).append(atom.predicate)
    return out


def _pddl_rules(problem: Problem) -> str:
    from .tools import _schema_text, parameter_keys

    lines = [f"This is a planning problem in the PDDL domain '{problem.domain.name}'. Its actions:"]
    lines += [f"- {_schema_text(a, parameter_keys(a))}" for a in problem.domain.actions]
    return "\n".join(lines)


def task_text(description: dict[str, str], failed_calls: str) -> str:
    """The task as the agent reads it."""
    nl = description.get("language") == "nl"
    intro = "The objects, by the id you use in tool calls: "
    if description.get("kinds"):
        intro = f"The objects, by the id you use in tool calls, each with its type in brackets ({description['kinds']}): "
    objects = (intro if nl else "Objects: ") + description["objects"] + "."
    init = ("As initial conditions I have that: " if nl else "Initial state: ") + description["init"] + "."
    goal = ("My goal is to have that: " if nl else "Goal: ") + description["goal"] + "."
    how = INSTRUCTIONS + (STRICT if failed_calls == "error" else LENIENT) + ENDING
    return "\n\n".join((description["domain"], objects, init, goal, how))
