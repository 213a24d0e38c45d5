"""Suites of ``pddl`` agent cases: generated Blocksworld / Logistics problems
(optionally obfuscated), each turned into a task, tools and a spec.

Each case has its own random stream seeded from (domain, suite seed, case
index), so a suite is byte-identical for the same options, any case can be
regenerated alone, and cases can be produced in parallel. The obfuscated
vocabulary is drawn once per suite (from the suite seed), as in PlanBench's
mystery domains; object names are drawn per case.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache, partial

from ...errors import PlanprobeError
from ...pddl.auto_planner import solve_auto
from ...pddl.constructive import constructive_plan
from ...pddl.generators import (
    BLOCKSWORLD_GOALS,
    LOGISTICS_GOALS,
    STANDARD_DOMAINS,
    LogisticsSize,
    blocksworld_problem,
    logistics_problem,
    standard_domain,
)
from ...pddl.model import Domain, Problem
from ...pddl.obfuscate import (
    OBJECT_NAMING,
    STYLES,
    Renaming,
    obfuscate_domain,
    obfuscate_problem,
)
from ...pddl.writer import domain_to_pddl, problem_to_pddl
from ...schema import Case, CaseMeta
from ..parallel import indexed_cases, suite_lines
from .describe import Renderer, task_text
from .spec import FAMILY, SPEC_VERSION
from .tools import action_tools

Range = tuple[int, int]
_LOGISTICS_COUNTS = {"cities": "city", "locations": "location", "packages": "obj", "airplanes": "airplane",
                     "trucks": "truck"}


@dataclass(frozen=True)
class PDDLSuiteOptions:
    domain: str = "blocksworld"
    n: int = 100
    seed: int = 0
    blocks: Range = (3, 5)  # blocksworld
    cities: Range = (2, 3)  # logistics
    locations: Range = (1, 3)  # per city
    packages: Range = (1, 3)
    airplanes: Range = (1, 2)
    trucks: int = 1  # per city
    goal: str | None = None  # blocksworld: on | full | partial; logistics: all | partial
    obfuscate: str | None = None  # mystery | random
    object_names: str = "style"  # obfuscated objects: style | neutral | keep
    language: str = "nl"  # nl | pddl
    observation: str = "state"  # state | changes
    failed_calls: str = "error"  # error | allowed
    solve: bool = False  # store an optimal plan (built-in A*) in each spec

    def check(self) -> None:
        if self.domain not in STANDARD_DOMAINS:
            raise PlanprobeError(f"--domain {self.domain!r}: expected one of {', '.join(STANDARD_DOMAINS)}")
        if self.n < 0:
            raise PlanprobeError(f"--n {self.n}: the number of cases cannot be negative")
        ranges = {"--blocks": self.blocks} if self.domain == "blocksworld" else {
            "--cities": self.cities, "--locations": self.locations, "--packages/--size": self.packages,
            "--airplanes": self.airplanes}
        for option, (lo, hi) in ranges.items():
            if hi < lo:
                raise PlanprobeError(f"{option} {lo}-{hi}: the range is empty (the upper bound is below the lower)")
        if self.domain == "blocksworld" and self.blocks[0] < 2:
            raise PlanprobeError(f"--blocks {self.blocks[0]}: a Blocksworld problem needs at least 2 blocks")
        if self.domain == "logistics":
            for option, (lo, _) in (("--cities", self.cities), ("--locations", self.locations),
                                    ("--packages/--size", self.packages)):
                if lo < 1:
                    raise PlanprobeError(f"{option} {lo}: must be at least 1")
            if self.airplanes[0] < 0:
                raise PlanprobeError(f"--airplanes {self.airplanes[0]}: cannot be negative")
            if self.trucks < 1:
                raise PlanprobeError(f"--trucks {self.trucks}: every city needs at least one truck")
        goals = BLOCKSWORLD_GOALS if self.domain == "blocksworld" else LOGISTICS_GOALS
        if self.goal is not None and self.goal not in goals:
            raise PlanprobeError(f"--goal {self.goal!r}: for {self.domain} expected one of {', '.join(goals)}")
        if self.obfuscate is not None and self.obfuscate not in STYLES:
            raise PlanprobeError(f"--obfuscate {self.obfuscate!r}: expected one of {', '.join(STYLES)}")
        if self.object_names not in OBJECT_NAMING:
            raise PlanprobeError(f"--object-names {self.object_names!r}: expected one of {', '.join(OBJECT_NAMING)}")
        for option, value, allowed in (("--language", self.language, ("nl", "pddl")),
                                       ("--observation", self.observation, ("state", "changes")),
                                       ("--failed-calls", self.failed_calls, ("error", "allowed"))):
            if value not in allowed:
                raise PlanprobeError(f"{option} {value!r}: expected one of {', '.join(allowed)}")


@lru_cache(maxsize=16)
def _obfuscated_domain(name: str, style: str, seed: int) -> tuple[Domain, Renaming]:
    return obfuscate_domain(standard_domain(name), style, seed)


def _problem(index: int, opts: PDDLSuiteOptions, rng: random.Random) -> Problem:
    if opts.domain == "blocksworld":
        return blocksworld_problem(rng.randint(*opts.blocks), rng, opts.goal or "on")
    cities = rng.randint(*opts.cities)
    size = LogisticsSize(cities, rng.randint(*opts.locations), rng.randint(*opts.packages),
                         max(rng.randint(*opts.airplanes), 1 if cities > 1 else 0), opts.trucks)
    if size.cities == 1 and size.locations == 1:
        size = LogisticsSize(1, 2, size.packages, size.airplanes, size.trucks)
    return logistics_problem(size, rng, opts.goal or "all")


_DOMAIN_TEXT: dict[int, tuple[Domain, str]] = {}


def _domain_text(domain: Domain) -> str:
    """The domain's PDDL, written once per domain object (a suite shares one)."""
    hit = _DOMAIN_TEXT.get(id(domain))
    if hit is None or hit[0] is not domain:
        if len(_DOMAIN_TEXT) > 64:
            _DOMAIN_TEXT.clear()
        hit = _DOMAIN_TEXT[id(domain)] = (domain, domain_to_pddl(domain))
    return hit[1]


def build_case(case_id: str, problem: Problem, *, language: str = "nl", observation: str = "state",
               failed_calls: str = "error", renaming: Renaming | None = None, plan: list[str] | None = None,
               plan_optimal: bool | None = None, meta: CaseMeta | None = None) -> Case:
    """A ``pddl`` agent case for any parsed problem (generated, obfuscated, or loaded
    from files); ``plan`` is a known valid plan for it, in its own vocabulary."""
    say = Renderer(problem, language)
    description = say.describe()
    spec = {
        "version": SPEC_VERSION,
        "domain": _domain_text(problem.domain),
        "problem": problem_to_pddl(problem),
        "language": language,
        "observation": observation,
        "failed_calls": failed_calls,
        "description": description,
        "renaming": renaming.to_json() if renaming is not None else None,
        "plan": plan,
        "plan_optimal": plan_optimal,
    }
    return Case(id=case_id, family=FAMILY, task=task_text(description, failed_calls), tools=action_tools(problem),
                spec=spec, meta=meta or CaseMeta())


def generate_case(index: int, opts: PDDLSuiteOptions) -> Case:
    rng = random.Random(f"planprobe/pddl/{opts.domain}/{opts.seed}/{index}")
    problem = _problem(index, opts, rng)
    optimal = None
    planner = None  # recorded when the plan is not the built-in planner's (auto_planner's choice)
    if opts.solve:
        # h_max and FIFO ties: the plans these cases have always had; Fast Downward past the work budget
        solved = solve_auto(problem, heuristic="hmax", ties="fifo", time_limit=None)
        plan: list[str] | None = list(solved.steps)
        optimal = True
        if not solved.planner.startswith("builtin"):
            planner = {"planner": solved.planner, "choice": solved.choice}
    else:
        plan = constructive_plan(problem, check=False)
    difficulty = {"objects": len(problem.objects), "goal_atoms": len(problem.goal)}
    if opts.domain == "blocksworld":
        difficulty["blocks"] = len(problem.objects)
    else:
        for key, kind in _LOGISTICS_COUNTS.items():
            difficulty[key] = sum(1 for a in problem.init if a.predicate == kind)
    if optimal and plan is not None:
        difficulty["plan_length"] = len(plan)
    renaming = None
    topic = opts.domain
    if opts.obfuscate:
        domain, dom_renaming = _obfuscated_domain(opts.domain, opts.obfuscate, opts.seed)
        obf = obfuscate_problem(problem, domain, dom_renaming, opts.object_names, f"{opts.seed}/{index}")
        problem, renaming = obf.problem, obf.renaming
        plan = renaming.obfuscate_plan(plan) if plan is not None else None
        topic = f"{opts.obfuscate} {opts.domain}"
    variant = f"-{opts.obfuscate}" if opts.obfuscate else ""
    meta = CaseMeta(
        topic=topic, difficulty=difficulty, seed=opts.seed,
        generator={"family": FAMILY, "domain": opts.domain, "index": index, "goal": opts.goal,
                   "obfuscate": opts.obfuscate, "object_names": opts.object_names if opts.obfuscate else None,
                   **(planner or {})},
        tags=[opts.domain] + ([opts.obfuscate] if opts.obfuscate else []),
    )
    return build_case(f"{FAMILY}-{opts.domain}{variant}-{opts.seed}-{index}", problem, language=opts.language,
                      observation=opts.observation, failed_calls=opts.failed_calls, renaming=renaming, plan=plan,
                      plan_optimal=optimal, meta=meta)


def generate_cases(opts: PDDLSuiteOptions, start: int = 0) -> Iterator[Case]:
    opts.check()
    return indexed_cases(partial(generate_case, opts=opts), opts.n, start)


def generate_lines(opts: PDDLSuiteOptions, workers: int | None = None) -> Iterator[str]:
    """The suite as JSON lines, in index order, byte-identical for any number of workers."""
    opts.check()
    return suite_lines(partial(generate_case, opts=opts), opts.n, workers)
