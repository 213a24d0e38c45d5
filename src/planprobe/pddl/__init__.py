"""The PDDL toolkit: parsing, grounding, simulation, validation, planning,
writing, obfuscation and natural-language translation of STRIPS problems.

Why a package of its own (not under ``suites/``): it is not a case family but
the machinery several families share (the PDDL-agent family in
``suites/pddl_agent``, the PlanBench tasks in ``suites/planbench``, the
re-scoring of PlanBench's results, the debugger's replay).

The core API, in the order data flows through it::

    problem = load("domain.pddl", "instance-1.pddl")      # parser: Domain, Problem
    gp = ground(problem)                                   # grounding: int-bitset states, cached
    result = validate(gp, ["(unstack b c)", "(put-down b)"], relax=None)
    result.valid, result.outcome, result.step, result.unmet_preconditions, result.explain()
    plan = solve(problem)                                  # built-in A* (optimal)
    plan = fast_downward.solve(problem, time_limit=60)     # optional 'planner' extra
    tr = translator(problem)                               # NL: tr.init(), tr.action(step), tr.plan(steps)
    reply_parser.parse_plan(reply, tr).pddl                   # a model's reply -> PDDL steps (+ .unparsed)

See docs/pddl.md and docs/pddl-translation.md.
"""

from . import fast_downward, reply_parser, translation  # NL: templates, reading replies
from .errors import (
    PDDLSyntaxError,
    PlannerError,
    PlannerTimeoutError,
    PlannerUnavailableError,
    PlanStepError,
    UnsolvableError,
)
from .grounding import GroundAction, GroundProblem, State, ground
from .model import Action, Atom, Domain, PDDLLiteral, Predicate, Problem, TypedName
from .parser import load, load_domain, load_problem, parse_domain, parse_problem
from .planner import PlanResult, solve
from .simulator import applicable, apply, ground_step, parse_plan, parse_step, run
from .translation import (
    DomainTranslation,
    TranslationConfigError,
    Translator,
    load_translation,
    translator,
)
from .validator import Outcome, Relaxation, ValidationResult, validate
from .writer import domain_to_pddl, problem_to_pddl

__all__ = [
    "Action",
    "Atom",
    "Domain",
    "GroundAction",
    "GroundProblem",
    "PDDLLiteral",
    "Outcome",
    "PDDLSyntaxError",
    "PlanResult",
    "PlanStepError",
    "PlannerError",
    "PlannerTimeoutError",
    "PlannerUnavailableError",
    "Predicate",
    "Problem",
    "Relaxation",
    "State",
    "TypedName",
    "DomainTranslation",
    "TranslationConfigError",
    "Translator",
    "UnsolvableError",
    "ValidationResult",
    "applicable",
    "apply",
    "domain_to_pddl",
    "fast_downward",
    "load_translation",
    "reply_parser",
    "translation",
    "translator",
    "ground",
    "ground_step",
    "load",
    "load_domain",
    "load_problem",
    "parse_domain",
    "parse_plan",
    "parse_problem",
    "parse_step",
    "problem_to_pddl",
    "run",
    "solve",
    "validate",
]
