"""The constraint-planning family (PDoctor) as a ``Family``."""

from __future__ import annotations

import random
from collections.abc import Callable

from ...environment import Environment, Limits
from ...schema import Case, ToolSpec, Trace, Verdict
from ..base import PlannedCall
from . import oracle, reference_plans
from .connectives import worded_atoms
from .environment import ConstraintEnvironment
from .grammar import SubSentence, sentence_from_json, shaped_atoms
from .prepared import prepare
from .skeleton_check import check_skeleton
from .spec import FAMILY, check_spec, parse_spec


class ConstraintFamily:
    name = FAMILY
    generate_command = ("constraints", "planprobe.cli.generate_constraints:register")  # HasGenerateCommand
    faults = reference_plans.FAULTS

    def fault_class(self, case: Case, fault: str) -> str | None:
        """The class an injected fault must be reported as: the paper's style has no Repeated Action."""
        return (reference_plans.PAPER_FAULTS if prepare(case).paper else reference_plans.FAULTS).get(fault)

    def validate(self, case: Case) -> None:
        spec = parse_spec(case)
        check_spec(case, spec)
        check_skeleton(case, spec)

    def environment(self, case: Case, limits: Limits, trial: int = 0, agent: str = "") -> Environment:
        return ConstraintEnvironment(case, limits, trial, agent)

    def check(self, case: Case, trace: Trace) -> Verdict:
        return oracle.check(case, trace)

    def restart_tool(self, case: Case) -> str | None:
        """The extended mode's ``request_restart`` (the environment grants it); none in the basic mode."""
        return prepare(case).restart_tool

    def reference_plan(self, case: Case) -> list[PlannedCall]:
        return reference_plans.reference_plan(prepare(case))

    def random_plan(self, case: Case, rng: random.Random) -> list[PlannedCall]:
        return reference_plans.random_plan(prepare(case), rng)

    def faulty_plan(self, case: Case, fault: str, rng: random.Random) -> list[PlannedCall] | None:
        return reference_plans.faulty_plan(prepare(case), fault, rng)

    # CoversSolverVariants: every robustness variant, each unsolvable kind on its own
    solver_variants = (("unsolvable:removal",), ("unsolvable:contradiction",), ("unsolvable:missing-info",),
                       ("extraneous:2",), ("broken",), ("cost",))

    def solver_sample(self, n: int, seed: int) -> list[Case]:
        """``SolvableFromText``: ``n`` cases of each mode and style the solver reads (basic, extended,
        the paper's style); the paper's get their own seed so that no id repeats a basic case's."""
        from .generator import ConstraintSuiteOptions, generate_cases

        return [*generate_cases(ConstraintSuiteOptions(actions=(2, 5), n=n, seed=seed)),
                *generate_cases(ConstraintSuiteOptions(actions=(2, 5), n=n, seed=seed, extended=True)),
                *generate_cases(ConstraintSuiteOptions(actions=(2, 5), n=n, seed=seed + 1, style="paper"))]

    def evidence_spans(self, spec: dict, constraint_ids: set[str]) -> list[tuple[int, int]]:
        """The [start, end) spans of the task's clauses that state these constraints, so
        a report can highlight them in the task's own words. Reads the raw spec: a
        report of 10,000 cases cannot afford to compile each one."""
        clauses = spec.get("clauses") or []
        wanted = sorted({k for c in spec.get("constraints") or [] if c.get("id") in constraint_ids
                         for k in c.get("clauses") or []})
        return [(int(clauses[k][0]), int(clauses[k][1])) for k in wanted if 0 <= k < len(clauses)]

    # -- hooks for the robustness transforms (suites/robust) -----------------

    def distractor_tools(self, case: Case, k: int, rng: random.Random):
        from .robust_hooks import distractor_tools

        return distractor_tools(case, k, rng)

    def task_statement(self, case: Case) -> str | None:
        from .robust_hooks import task_statement

        return task_statement(case)

    def contradict(self, case: Case, rng: random.Random):
        from .robust_hooks import contradict

        return contradict(case, rng)

    def restate(self, case: Case, rng: random.Random):
        from .robust_hooks import restate

        return restate(case, rng)

    def min_cost_plan(self, case: Case, costs: dict[str, int], composites: list[tuple[str, str, str, int]]):
        from .robust_hooks import min_cost_plan

        return min_cost_plan(case, costs, composites)

    def min_cost_calls(self, case: Case, costs: dict[str, int], composites: list[tuple[str, str, str, int]]):
        from .robust_hooks import min_cost_calls

        return min_cost_calls(case, costs, composites)

    def follow_on_args(self, case: Case, first: str, args: dict) -> dict:
        from .robust_hooks import follow_on_args

        return follow_on_args(case, first, args)

    # -- hooks for the planning protocols (suites/protocols) -----------------

    def planning_tools(self, case: Case):
        from .protocol_hooks import planning_tools

        return planning_tools(case)

    def planning_tool(self, case: Case, tool: ToolSpec, does: str | None) -> ToolSpec | None:
        from .protocol_hooks import planning_tool

        return planning_tool(case, tool, does)

    def extendable(self, case: Case, calls) -> tuple[bool, str]:
        from .protocol_hooks import extendable

        return extendable(case, calls)

    def prefix_evidence(self, case: Case, calls):
        from .protocol_hooks import prefix_evidence

        return prefix_evidence(case, calls)

    def constraint_shapes(self, case: Case) -> dict[str, list[str]]:
        """Constraint id -> the shapes of the phrases that state it (see grammar.shaped_atoms)."""
        return _by_constraint(case, lambda part: [(atom, [shape]) for atom, shape in shaped_atoms(part)])

    def constraint_words(self, case: Case) -> dict[str, list[str]]:
        """Constraint id -> the connective words of the phrases that state it, each once
        (see connectives.worded_atoms)."""
        found = _by_constraint(case, lambda part: [(atom, list(words)) for atom, words in worded_atoms(part)])
        return {cid: sorted(set(words)) for cid, words in found.items()}


def _by_constraint(case: Case, label: Callable[[SubSentence], list[tuple[tuple, list[str]]]]) -> dict[str, list[str]]:
    """Constraint id -> the labels ``label`` gives the atoms of the sub-sentences stating it."""
    prepared = prepare(case)
    key_to_id = {}
    for c in prepared.spec.constraints:
        b = prepared.index_of[c.later()] if c.kind == "order" else c.hour
        key_to_id[(c.kind, prepared.index_of[c.a], b)] = c.id
    out: dict[str, list[str]] = {}
    for sentence in prepared.spec.skeleton:
        for part in sentence_from_json(sentence).parts:
            for atom, labels in label(part):
                cid = key_to_id.get(atom)
                if cid is not None:
                    out.setdefault(cid, []).extend(labels)
    return out
