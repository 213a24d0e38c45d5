"""The PlanBench task family (family name "planbench") as a ``Family``.

Text tasks: no tools, no environment state. The agent's final answer is the
reply PlanBench would have read; the oracle (``oracle.py``) scores it. The
reference agents answer in text (``reference_answers.py``), so the tool-plan methods
return nothing.
"""

from __future__ import annotations

import random
from typing import Any

from ...environment import Environment, Limits
from ...errors import PlanprobeError
from ...pddl.validator import Outcome, validate
from ...schema import Case, Trace, Verdict
from ..base import NoToolPlans
from . import oracle, reference_answers
from .prepared import prepare
from .spec import FAMILY

# the domains whose text states what a plan needs; Mystery Blocksworld's verbatim text contradicts
# itself, so its cases are solvable from their text only with the corrected description
SOLVABLE_DOMAINS = ("blocksworld", "random_blocksworld", "logistics", "mystery_logistics", "random_logistics",
                    "mystery_blocksworld")
CORRECTED_TEXT_DOMAINS = ("mystery_blocksworld",)


class TextEnvironment(Environment):
    """No tools: a call is recorded as a call to an unknown tool (and fails the case)."""

    def execute(self, name: str, args: dict[str, Any]) -> tuple[str, str | None]:  # pragma: no cover
        raise AssertionError("a planbench case has no tools to execute")


class PlanBenchFamily(NoToolPlans):
    name = FAMILY
    generate_command = ("planbench", "planprobe.cli.generate_planbench:register")  # HasGenerateCommand
    faults = reference_answers.FAULTS

    def validate(self, case: Case) -> None:
        """Parse the spec and its PDDL, and check what the task needs is there (errors name the field)."""
        prepared = prepare(case)
        spec = prepared.spec
        if case.tools:
            raise PlanprobeError(f"case {case.id}: field 'tools': a planbench case is a text task and has no tools")
        if spec.task in ("t3", "t7") and spec.plan is None:
            raise PlanprobeError(f"case {case.id}: field 'spec.plan': task {spec.task} needs the plan it is about")
        if spec.task == "t2" and spec.optimal_length is None:
            raise PlanprobeError(f"case {case.id}: field 'spec.optimal_length': task t2 needs the optimal length")
        for name in ("plan", "reference"):
            steps = getattr(spec, name)
            if steps is None:
                continue
            result = validate(prepared.grounded, steps)
            if result.outcome is Outcome.UNPARSEABLE_STEP:
                raise PlanprobeError(f"case {case.id}: field 'spec.{name}': step {result.step} "
                                     f"{result.action!r}: {result.error.reason if result.error else 'unreadable'}")
            if name == "reference" and not result.valid:
                raise PlanprobeError(f"case {case.id}: field 'spec.reference': not a valid plan "
                                     f"({result.explain().splitlines()[0]})")

    # CoversSolverVariants: none of the robustness variants applies to a text task (no tool to add,
    # break, remove or price); t1's own unsolvable cases (a contradictory goal) are in the sample.
    solver_variants = ()

    def solver_sample(self, n: int, seed: int) -> list[Case]:
        """``SolvableFromText``: ``n`` cases of each of PlanBench's tasks on every domain. Mystery
        Blocksworld's with ``corrected_text``: its verbatim description (PlanBench's) contradicts
        itself on Overcome's effects, so only the corrected one makes its cases solvable from their
        text (docs/pddl.md, "Read by the solver"). t1 with its contradictory-goal variant (half its
        cases must be refused), t3 judged at PlanBench's most demanding level (the explanation)."""
        from .generator import PlanBenchOptions, generate_cases
        from .spec import TASKS

        return [c for task in TASKS for domain in SOLVABLE_DOMAINS
                for c in generate_cases(PlanBenchOptions(task=task, domain=domain, n=n, seed=seed,
                                                         unsolvable=task == "t1", verify="explanation",
                                                         corrected_text=domain in CORRECTED_TEXT_DOMAINS))]

    def environment(self, case: Case, limits: Limits, trial: int = 0, agent: str = "") -> Environment:
        return TextEnvironment(case, limits, trial, agent)

    def check(self, case: Case, trace: Trace) -> Verdict:
        return oracle.check(case, trace)

    # -- reference agents (they answer in text) --------------------------------

    def reference_answer(self, case: Case) -> str:
        return reference_answers.reference_answer(case)

    def random_answer(self, case: Case, rng: random.Random) -> str:
        return reference_answers.random_answer(case, rng)

    def faulty_answer(self, case: Case, fault: str, rng: random.Random) -> str | None:
        return reference_answers.faulty_answer(case, fault, rng)

