"""The PDDL agent family (family name "pddl") as a ``Family``."""

from __future__ import annotations

import random
from typing import Any

from ...environment import Environment, Limits
from ...errors import PlanprobeError
from ...schema import Case, ToolSpec, Trace, Verdict
from ..base import PlannedCall
from . import oracle, reference_plans
from .environment import PDDLEnvironment
from .prepared import prepare
from .spec import FAMILY


class PDDLAgentFamily:
    name = FAMILY
    generate_command = ("pddl", "planprobe.cli.generate_pddl:register")  # HasGenerateCommand
    faults = reference_plans.FAULTS

    def validate(self, case: Case) -> None:
        """Parse the spec's PDDL and check that every tool is an action of the domain
        with the action's parameters (errors name the field)."""
        prepared = prepare(case)
        if not case.tools:
            raise PlanprobeError("field 'tools': a pddl case needs at least one tool (an action of the domain)")
        for i, tool in enumerate(case.tools):
            keys = prepared.keys.get(tool.name)
            if keys is None:
                known = ", ".join(prepared.tool_action)
                raise PlanprobeError(f"field 'tools.{i}.name': {tool.name!r} is not an action of the domain in "
                                     f"'spec.domain' (actions: {known})")
            props = list(tool.parameters.get("properties") or {})
            if props != keys:
                raise PlanprobeError(f"field 'tools.{i}.parameters': tool {tool.name!r} must take the action's "
                                     f"parameters {keys}, got {props}")

    def environment(self, case: Case, limits: Limits, trial: int = 0, agent: str = "") -> Environment:
        return PDDLEnvironment(case, limits, trial, agent)

    def check(self, case: Case, trace: Trace) -> Verdict:
        return oracle.check(case, trace)

    # CoversSolverVariants: every robustness variant, each unsolvable kind on its own
    solver_variants = (("unsolvable:removal",), ("unsolvable:contradiction",), ("unsolvable:missing-info",),
                       ("extraneous:2",), ("broken",), ("cost",))

    def solver_sample(self, n: int, seed: int) -> list[Case]:
        """``SolvableFromText``: ``n`` small cases of each domain, plain and obfuscated (both
        obfuscations), in English, and one PDDL-text variant reporting changes."""
        from .generator import PDDLSuiteOptions, generate_cases

        small: dict[str, dict[str, Any]] = {
            "blocksworld": dict(blocks=(3, 4)),
            "logistics": dict(cities=(2, 2), packages=(1, 2), locations=(1, 2), airplanes=(1, 1))}
        variants: list[dict[str, Any]] = [
            {}, dict(obfuscate="mystery"), dict(obfuscate="random")]
        out = [c for domain, size in small.items() for v in variants
               for c in generate_cases(PDDLSuiteOptions(domain=domain, n=n, seed=seed, **size, **v))]
        out += generate_cases(PDDLSuiteOptions(domain="blocksworld", n=n, seed=seed + 1, language="pddl",
                                               observation="changes", **small["blocksworld"]))
        return out

    def reference_plan(self, case: Case) -> list[PlannedCall]:
        return reference_plans.reference_plan(case)

    def random_plan(self, case: Case, rng: random.Random) -> list[PlannedCall]:
        return reference_plans.random_plan(case, rng)

    def faulty_plan(self, case: Case, fault: str, rng: random.Random) -> list[PlannedCall] | None:
        return reference_plans.faulty_plan(case, fault, rng)

    def contradict(self, case: Case, rng: random.Random) -> tuple[Case, str]:
        """For --transform unsolvable:contradiction: a contradictory goal, proven unsolvable."""
        from .contradiction_hook import contradict_case

        return contradict_case(case, rng)

    def alias_tool(self, tool, name: str, rng: random.Random):
        """A tool under another name, its description not naming the action and listing its
        preconditions and effects in another order: what it does shows only by reading them."""
        from .tools import aliased

        return aliased(tool, name, rng)

    def restate(self, case: Case, rng: random.Random) -> Case:
        """The contradiction's solvable control: one more goal fact, one the reference plan reaches."""
        from .contradiction_hook import restate_case

        return restate_case(case, rng)

    # -- --transform cost (agent/costs.py) -------------------------------------

    def min_cost_calls(self, case: Case, costs: dict[str, int],
                       composites: list[tuple[str, str, str, int]]) -> tuple[int, list[tuple[str, str]]]:
        """The cheapest valid plan under the tools' prices, as calls with their arguments."""
        from .costs import min_cost_calls

        return min_cost_calls(case, costs, composites)

    def min_cost_plan(self, case: Case, costs: dict[str, int],
                      composites: list[tuple[str, str, str, int]]) -> tuple[int, list[str]]:
        from .costs import min_cost_plan

        return min_cost_plan(case, costs, composites)

    def composite_parameters(self, case: Case, first: ToolSpec, second: ToolSpec) -> tuple[dict[str, Any], str]:
        """A composite's schema: both actions' arguments, prefixed first_ and second_."""
        from .costs import composite_parameters

        return composite_parameters(case, first, second)

    def composite_args(self, case: Case, first: str, second: str,
                       args: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        from .costs import composite_args

        return composite_args(case, first, second, args)

    # -- hooks for the planning protocols (suites/protocols) -----------------

    def extendable(self, case: Case, calls) -> tuple[bool, str]:
        from .protocol_hooks import extendable

        return extendable(case, calls)

    def prefix_evidence(self, case: Case, calls):
        from .protocol_hooks import prefix_evidence

        return prefix_evidence(case, calls)
