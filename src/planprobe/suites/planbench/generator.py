"""Suites of ``planbench`` cases: one of PlanBench's eight tasks on generated problems.

Each case has its own random streams, seeded from (task, domain, suite seed,
case index), so a suite is byte-identical for the same options, any case can be
regenerated alone, and cases can be produced in parallel. An obfuscated
domain's vocabulary is drawn once per suite (from the suite seed); object names
once per problem.

The case: ``task`` is the prompt (PlanBench's layout), ``system`` PlanBench's
system message, no tools — the model answers in text, as in PlanBench; the
spec (``spec.py``) holds what the oracle needs.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial

from ...errors import PlanprobeError
from ...pddl.contradiction import contradict_goal
from ...pddl.generators import LogisticsSize, blocksworld_problem, logistics_problem
from ...pddl.model import Problem
from ...pddl.writer import domain_to_pddl, problem_to_pddl
from ...schema import Case, CaseMeta
from ..parallel import indexed_cases, suite_lines
from .problems import generalizable
from .prompts import prompt
from .spec import FAMILY, SPEC_VERSION, TASKS, VERIFY_LEVELS
from .tasks import Block, Built, build
from .worlds import VARIANTS, Shown, has_corrected_text, show, variant

__all__ = ["DEFAULT_SHOTS", "SYSTEM", "PlanBenchOptions", "generate_case", "generate_cases",
           "generate_lines"]

Range = tuple[int, int]
SYSTEM = "You are the planner assistant who comes up with correct plans."  # PlanBench's system message
DEFAULT_SHOTS = {"t3": 3}  # PlanBench shows one example of each kind of plan in t3; one example elsewhere


@dataclass(frozen=True)
class PlanBenchOptions:
    task: str = "t1"
    domain: str = "blocksworld"
    n: int = 100
    seed: int = 0
    shots: int | None = None  # None: the task's default (t3: 3, else 1)
    blocks: Range = (3, 5)  # blocksworld
    cities: Range = (2, 2)  # logistics
    locations: Range = (1, 2)  # per city
    packages: Range = (1, 2)  # logistics; t5: packages in the chain
    airplanes: Range = (1, 1)
    verify: str = "binary"  # t3: the level that decides pass/fail
    rules: str = "planbench"  # t7: how negations in a stated state are read
    unsolvable: bool = False  # t1: half the cases get a contradictory goal and must be refused
    # the domain's corrected description instead of PlanBench's verbatim one (Mystery Blocksworld's slip)
    corrected_text: bool = False

    @property
    def n_shots(self) -> int:
        return DEFAULT_SHOTS.get(self.task, 1) if self.shots is None else self.shots

    def check(self) -> None:
        if self.task not in TASKS:
            raise PlanprobeError(f"--task {self.task!r}: expected one of {', '.join(TASKS)}")
        var = variant(self.domain)
        if self.n < 0:
            raise PlanprobeError(f"--n {self.n}: the number of cases cannot be negative")
        if self.shots is not None and not 0 <= self.shots <= 10:
            raise PlanprobeError(f"--shots {self.shots}: expected 0 to 10 worked examples")
        ranges = {"--blocks": self.blocks} if var.base == "blocksworld" else {
            "--cities": self.cities, "--locations": self.locations, "--packages": self.packages,
            "--airplanes": self.airplanes}
        for option, (lo, hi) in ranges.items():
            if hi < lo:
                raise PlanprobeError(f"{option} {lo}-{hi}: the range is empty (the upper bound is below the lower)")
        if var.base == "blocksworld" and self.blocks[0] < 2:
            raise PlanprobeError(f"--blocks {self.blocks[0]}: a Blocksworld problem needs at least 2 blocks")
        if var.base == "blocksworld" and self.blocks[1] > 26:
            raise PlanprobeError(f"--blocks {self.blocks[1]}: at most 26 blocks (prompts list every fact)")
        if var.base == "logistics":
            for option, (lo, _) in (("--cities", self.cities), ("--locations", self.locations),
                                    ("--packages", self.packages)):
                if lo < 1:
                    raise PlanprobeError(f"{option} {lo}: must be at least 1")
            if self.airplanes[0] < 0:
                raise PlanprobeError(f"--airplanes {self.airplanes[0]}: cannot be negative")
        if self.verify not in VERIFY_LEVELS:
            raise PlanprobeError(f"--verify {self.verify!r}: expected one of {', '.join(VERIFY_LEVELS)}")
        if self.rules not in ("planbench", "planprobe"):
            raise PlanprobeError(f"--rules {self.rules!r}: expected planbench or planprobe")
        if self.corrected_text and not has_corrected_text(var):
            correctable = ", ".join(n for n, v in VARIANTS.items() if has_corrected_text(v))
            raise PlanprobeError(f"--corrected-text: the {var.name} description has nothing to correct (it is "
                                 f"consistent with its PDDL); only {correctable} has a corrected text")
        if self.unsolvable and self.task != "t1":
            raise PlanprobeError(f"--transform unsolvable:contradiction applies to plan generation (t1) only, "
                                 f"not to {self.task} ({TASKS[self.task]})")


def _draw(opts: PlanBenchOptions, base: str, rng: random.Random) -> Problem:
    if base == "blocksworld":
        return blocksworld_problem(rng.randint(*opts.blocks), rng, "on")
    cities = rng.randint(*opts.cities)
    size = LogisticsSize(cities, rng.randint(*opts.locations), rng.randint(*opts.packages),
                         max(rng.randint(*opts.airplanes), 1 if cities > 1 else 0), 1)
    if size.cities == 1 and size.locations == 1:
        size = LogisticsSize(1, 2, size.packages, size.airplanes, size.trucks)
    return logistics_problem(size, rng, "all")


def _general(opts: PlanBenchOptions, base: str, rng: random.Random):
    size = rng.randint(*opts.blocks) if base == "blocksworld" else rng.randint(*opts.packages)
    return generalizable(base, size, rng)


def _steps(shown: Shown, steps: list[str] | None) -> list[str] | None:
    return None if steps is None else shown.steps(steps)


def generate_case(index: int, opts: PlanBenchOptions) -> Case:
    var = variant(opts.domain)
    key = f"planprobe/planbench/{opts.task}/{var.name}/{opts.seed}/{index}"
    built = build(opts.task, key, partial(_draw, opts, var.base), partial(_general, opts, var.base), opts.n_shots)
    unsolvable = None
    if opts.unsolvable and random.Random(f"{key}/unsolvable").random() < 0.5:
        built, unsolvable = _contradicted(built, random.Random(f"{key}/contradiction"))
    shown_cache: dict[int, Shown] = {}

    def shown_of(problem: Problem) -> Shown:
        hit = shown_cache.get(id(problem))
        if hit is None:
            hit = shown_cache[id(problem)] = show(problem, var, opts.seed, f"{key}/objects/{len(shown_cache)}")
        return hit

    text = prompt(opts.task, built, lambda b: shown_of(b.problem), opts.unsolvable, opts.corrected_text)
    q = shown_of(built.query.problem)  # the query's problem: the judged problem shares its objects
    judged = q.restated(built.judged)
    spec = {
        "version": SPEC_VERSION,
        "task": opts.task,
        "domain": domain_to_pddl(q.problem.domain),
        "problem": problem_to_pddl(judged),
        "stated": problem_to_pddl(q.restated(built.stated)) if built.stated is not None else None,
        "translation": var.translation,
        "plan": _steps(q, built.plan),
        "reference": None if unsolvable else _steps(q, built.reference),
        "optimal_length": len(built.reference) if opts.task == "t2" and built.reference is not None else None,
        "verify": opts.verify,
        "event": None if built.event is None else {
            "step": built.event.step,
            "became_true": [str(a) for a in q.atoms(built.event.became_true)],
            "became_false": [str(a) for a in q.atoms(built.event.became_false)]},
        "rules": opts.rules,
        "unsolvable": unsolvable(q) if unsolvable else None,
        "refusal_note": opts.unsolvable,
        "shots": opts.n_shots,
    }
    if opts.corrected_text:  # only when set: a default suite stays byte-identical to one made before the option
        spec["corrected_text"] = True
    return Case(id=_case_id(opts, var.name, index, unsolvable is not None), family=FAMILY, task=text, system=SYSTEM,
                tools=[], spec=spec, meta=_meta(opts, var, index, built, unsolvable is not None))


def _contradicted(built: Built, rng: random.Random):
    """t1 with a contradictory goal (proven unsolvable by the planner): the query states it."""
    c = contradict_goal(built.query.problem, rng)
    query = Block("plan", c.problem, worked=False)
    out = Built(built.examples, query, c.problem, None, False, notes={**built.notes, "contradiction": c.kind})
    return out, lambda shown: c.proof(lambda a: str(shown.atom(a)))


def _case_id(opts: PlanBenchOptions, domain: str, index: int, unsolvable: bool) -> str:
    base = f"{FAMILY}-{opts.task}-{domain}-{opts.seed}-{index}"
    if not opts.unsolvable:
        return base
    return base + ("+unsolvable-contradiction" if unsolvable else "+solvable")


def _meta(opts: PlanBenchOptions, var, index: int, built: Built, unsolvable: bool) -> CaseMeta:
    p = built.judged
    difficulty: dict[str, float] = {"objects": len(p.objects), "goal_atoms": len(p.goal),
                                    "shots": opts.n_shots}
    if var.base == "blocksworld":
        difficulty["blocks"] = len(p.objects)
    else:
        difficulty["packages"] = sum(1 for a in p.init if a.predicate == "obj")
        difficulty["cities"] = sum(1 for a in p.init if a.predicate == "city")
    if built.reference is not None and built.optimal:
        difficulty["plan_length"] = len(built.reference)
    if built.plan is not None:
        difficulty["stated_plan_length"] = len(built.plan)
    tags = [opts.task, var.name]
    transforms = []
    if opts.unsolvable:
        tags.append("unsolvable-contradiction" if unsolvable else "solvable")
        transforms.append("unsolvable:contradiction")
    if "plan_kind" in built.notes:
        tags.append(built.notes["plan_kind"])
    if opts.corrected_text:
        tags.append("corrected-text")
    generator = {"family": FAMILY, "task": opts.task, "domain": var.name, "index": index, "shots": opts.n_shots,
                 **{k: v for k, v in built.notes.items()}}
    if opts.task == "t3":
        generator["verify"] = opts.verify
    if opts.corrected_text:
        generator["corrected_text"] = True
    return CaseMeta(topic=f"{opts.task} {var.name}", difficulty=difficulty, seed=opts.seed, generator=generator,
                    tags=tags, transforms=transforms)


def generate_cases(opts: PlanBenchOptions, start: int = 0) -> Iterator[Case]:
    opts.check()
    return indexed_cases(partial(generate_case, opts=opts), opts.n, start)


def generate_lines(opts: PlanBenchOptions, workers: int | None = None) -> Iterator[str]:
    """The suite as JSON lines, in index order, byte-identical for any number of workers."""
    opts.check()
    return suite_lines(partial(generate_case, opts=opts), opts.n, workers)

