"""PDDL text from the model: ``domain_to_pddl`` / ``problem_to_pddl``.

Why: generated or obfuscated problems live in memory, and external tools
(Fast Downward, VAL, unified-planning) read files. Empty sections are left out,
so files that unified-planning rejects for an empty ``(:types)`` come out in a
form it accepts; ``parse(write(x)) == x`` for everything the parser reads.
"""

from __future__ import annotations

from .model import ROOT_TYPE, Domain, PDDLLiteral, Problem, TypedName

__all__ = ["domain_to_pddl", "problem_to_pddl"]


def _typed(items: tuple[TypedName, ...], typed: bool) -> str:
    if not typed:
        return " ".join(i.name for i in items)
    out: list[str] = []
    group: list[str] = []
    current: str | None = None
    for item in items:
        if group and item.type != current:
            out.append(f"{' '.join(group)} - {current}")
            group = []
        group.append(item.name)
        current = item.type
    if group:
        out.append(f"{' '.join(group)} - {current}")
    return " ".join(out)


def _uses_types(domain: Domain) -> bool:
    return bool(domain.types) or any(
        p.type != ROOT_TYPE for p in (*domain.constants, *(q for a in domain.actions for q in a.parameters),
                                      *(q for pr in domain.predicates for q in pr.parameters)))


def _conjunction(literals, indent: str) -> str:
    items = [str(lit) for lit in literals]
    if len(items) == 1:
        return items[0]
    return "(and" + "".join(f"\n{indent}  {i}" for i in items) + ")" if items else "(and)"


def domain_to_pddl(domain: Domain) -> str:
    typed = _uses_types(domain)
    reqs = list(domain.requirements) or [":strips"]
    if typed and ":typing" not in reqs:
        reqs.append(":typing")
    lines = [f"(define (domain {domain.name})", f"  (:requirements {' '.join(reqs)})"]
    if domain.types:
        lines.append(f"  (:types {_typed(domain.types, True)})")
    if domain.constants:
        lines.append(f"  (:constants {_typed(domain.constants, typed)})")
    if domain.predicates:
        lines.append("  (:predicates")
        for p in domain.predicates:
            params = _typed(p.parameters, typed)
            lines.append(f"    ({p.name}{' ' if params else ''}{params})")
        lines.append("  )")
    for a in domain.actions:
        lines.append(f"  (:action {a.name}")
        lines.append(f"    :parameters ({_typed(a.parameters, typed)})")
        if a.precondition:
            lines.append(f"    :precondition {_conjunction(a.precondition, '    ')}")
        effects = [*a.add_effects, *(PDDLLiteral(x, False) for x in a.del_effects)]
        lines.append(f"    :effect {_conjunction(effects, '    ')})")
    lines.append(")")
    return "\n".join(lines) + "\n"


def problem_to_pddl(problem: Problem) -> str:
    typed = _uses_types(problem.domain)
    lines = [f"(define (problem {problem.name})", f"  (:domain {problem.domain.name})"]
    if problem.objects:
        lines.append(f"  (:objects {_typed(problem.objects, typed)})")
    lines.append("  (:init")
    lines.extend(f"    {a}" for a in problem.init)
    lines.append("  )")
    lines.append(f"  (:goal {_conjunction(problem.goal, '  ')})")
    lines.append(")")
    return "\n".join(lines) + "\n"
