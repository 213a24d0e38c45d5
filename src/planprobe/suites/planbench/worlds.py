"""The domains a planbench suite can use, and how a plain problem is shown.

Why: every task is built in the plain standard domain (Blocksworld or
Logistics), where the generators, the constructive plans and the domain
knowledge of the unexpected events (t6) and generalizable problems (t5) live.
An obfuscated variant (PlanBench's "mystery" domains, or random strings) is
then only a renaming of everything the prompt states — problems, plans,
facts — and the case stores the problem in the shown vocabulary, so its
oracle never needs to know it was obfuscated.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from ...errors import PlanprobeError
from ...pddl.generators import standard_domain
from ...pddl.model import Atom, Domain, PDDLLiteral, Problem
from ...pddl.obfuscate import Renaming, obfuscate_domain, obfuscate_problem
from ...pddl.translation import Translator, load_translation, translator

__all__ = ["ALIASES", "VARIANTS", "Shown", "Variant", "has_corrected_text", "show", "variant"]


@dataclass(frozen=True)
class Variant:
    name: str
    base: str  # the standard domain: blocksworld | logistics
    style: str | None = None  # obfuscation: None | mystery | random
    objects: str = "keep"  # object naming when obfuscated: keep | neutral | style
    translation: str | None = None  # built-in translation config; None: the generic one


VARIANTS: dict[str, Variant] = {
    "blocksworld": Variant("blocksworld", "blocksworld", translation="blocksworld"),
    "mystery_blocksworld": Variant("mystery_blocksworld", "blocksworld", "mystery", "keep", "mystery_blocksworld"),
    "random_blocksworld": Variant("random_blocksworld", "blocksworld", "random", "style"),
    "logistics": Variant("logistics", "logistics", translation="logistics"),
    "mystery_logistics": Variant("mystery_logistics", "logistics", "mystery", "neutral",
                                 "obfuscated_deceptive_logistics"),
    "random_logistics": Variant("random_logistics", "logistics", "random", "neutral"),
}
# PlanBench's names for the same domains
ALIASES = {"mystery": "mystery_blocksworld", "obfuscated_deceptive_logistics": "mystery_logistics",
           "obfuscated_randomized_logistics": "random_logistics"}


def variant(name: str) -> Variant:
    key = ALIASES.get(name, name)
    if key not in VARIANTS:
        known = ", ".join([*VARIANTS, *ALIASES])
        raise PlanprobeError(f"--domain {name!r}: expected one of {known}")
    return VARIANTS[key]


def has_corrected_text(var: Variant) -> bool:
    """Whether ``var``'s translation config has a corrected description (``--corrected-text``)."""
    return var.translation is not None and "corrected" in load_translation(var.translation).intros


@lru_cache(maxsize=16)
def _shown_domain(base: str, style: str, seed: int) -> tuple[Domain, Renaming]:
    return obfuscate_domain(standard_domain(base), style, seed)


@dataclass
class Shown:
    """One plain problem as the prompt shows it: the shown problem, its translator,
    and the renaming of steps and facts (identity when not obfuscated)."""

    plain: Problem
    problem: Problem
    tr: Translator
    renaming: Renaming | None = None

    def steps(self, steps: Iterable[str]) -> list[str]:
        steps = list(steps)
        return self.renaming.obfuscate_plan(steps) if self.renaming is not None else steps

    def atom(self, atom: Atom) -> Atom:
        r = self.renaming
        if r is None:
            return atom
        return Atom(r.predicates.get(atom.predicate, atom.predicate), tuple(r.objects.get(a, a) for a in atom.args))

    def atoms(self, atoms: Iterable[Atom]) -> list[Atom]:
        return [self.atom(a) for a in atoms]

    def restated(self, plain: Problem) -> Problem:
        """Another plain problem over the same objects (another init or goal), shown
        under this problem's renaming."""
        return Problem(name=self.problem.name, domain=self.problem.domain, objects=self.problem.objects,
                       init=tuple(self.atoms(plain.init)),
                       goal=tuple(PDDLLiteral(self.atom(g.atom), g.positive) for g in plain.goal),
                       filename=self.problem.filename)


def show(plain: Problem, var: Variant, seed: int, key: str) -> Shown:
    """``plain`` as variant ``var`` shows it; ``key`` seeds per-problem object names."""
    config = load_translation(var.translation) if var.translation else None
    if var.style is None:
        return Shown(plain, plain, translator(plain, config))
    domain, renaming = _shown_domain(var.base, var.style, seed)
    obf = obfuscate_problem(plain, domain, renaming, var.objects, key)
    return Shown(plain, obf.problem, translator(obf.problem, config), obf.renaming)
