"""Robustness variants as a ``Family`` (family name "robust").

Reference plans follow the variant's ground truth: refuse an unsolvable case;
take the replacement where the broken tool would be needed; follow the cheapest
plan when tools cost. Faults are the base family's, in the variant's terms, plus
``distractor`` (one call to a distractor tool) and ``refuse`` (refuse a solvable
case).
"""

from __future__ import annotations

import json
import random
from typing import Any, ClassVar

from ...environment import Environment, Limits
from ...errors import PlanprobeError
from ...lenient_json import loads
from ...schema import Case, ErrorClass, ToolSpec, Trace, Verdict
from ..base import (
    AnswersInText,
    ClassifiesFaults,
    GrantsRestarts,
    HighlightsEvidence,
    PlannedCall,
    PlansWrappedTools,
    WrapsCases,
)
from ..registry import families, get_family
from . import oracle
from .environment import RobustEnvironment
from .spec import FAMILY, base_case, spec_of

REFUSAL_REASON = "The tasks cannot be carried out as required."


class RobustFamily:
    name = FAMILY

    # injected by the variant itself, whatever the base family (see faulty_plan)
    own_faults: ClassVar[dict[str, str]] = {"distractor": ErrorClass.EXTRANEOUS_TOOL.value,
                                            "refuse": ErrorClass.WRONG_REFUSAL.value,
                                            "unknown-tool": ErrorClass.ACT_ERROR.value}

    @property
    def faults(self) -> dict[str, str]:
        """The faults of every family variants can be made from (registered, executable,
        not itself a wrapper), plus the variants' own. A fault a case's base family lacks
        yields no injected plan for that case; ``fault_class`` names the class per case."""
        out: dict[str, str] = {}
        for family in families().values():
            if isinstance(family, (WrapsCases, AnswersInText)):
                continue
            for fault, error in family.faults.items():
                out.setdefault(fault, error)
        return {**out, **self.own_faults}

    def fault_class(self, case: Case, fault: str) -> str | None:
        """The variant's own faults have their class; the others keep the base family's."""
        if fault in self.own_faults:
            return self.own_faults[fault]
        base = base_case(case)
        family = get_family(base.family)
        found = family.fault_class(base, fault) if isinstance(family, ClassifiesFaults) else family.faults.get(fault)
        return found if found is not None else self.faults.get(fault)  # e.g. stall, which the agent does anywhere

    def base_of(self, case: Case) -> Case:
        return base_case(case)

    def validate(self, case: Case) -> None:
        spec = spec_of(case)
        base = base_case(case)
        if spec.unsolvable is None or spec.unsolvable.kind != "contradiction":
            get_family(base.family).validate(base)
        names = {t.name for t in case.tools}
        for field, tools in (("distractors", spec.distractors), ("composites", [c.tool for c in spec.composites])):
            for t in tools:
                if t not in names:
                    raise PlanprobeError(f"case {case.id}: field 'spec.{field}': {t!r} is not among the case's tools")
        if spec.broken is not None and spec.broken.replacement not in names:
            raise PlanprobeError(f"case {case.id}: field 'spec.broken.replacement': no such tool")

    def environment(self, case: Case, limits: Limits, trial: int = 0, agent: str = "") -> Environment:
        return RobustEnvironment(case, limits, trial, agent)

    def check(self, case: Case, trace: Trace) -> Verdict:
        return oracle.check(case, trace)

    def restart_tool(self, case: Case) -> str | None:
        """The base case's restart tool: calls under its name reach the base environment, which grants them."""
        base = base_case(case)
        family = get_family(base.family)
        return family.restart_tool(base) if isinstance(family, GrantsRestarts) else None

    def evidence_spans(self, spec: dict[str, Any], constraint_ids: set[str]) -> list[tuple[int, int]]:
        """The base family's spans: the variant's task begins with the base task, unchanged."""
        base = spec.get("base") or {}
        family = get_family(base.get("family", ""))
        return family.evidence_spans(base.get("spec") or {}, constraint_ids) if isinstance(family, HighlightsEvidence) else []

    # -- hooks for the planning protocols --------------------------------------

    def planning_tools(self, case: Case) -> list[ToolSpec]:
        """The variant's tools as a planning agent sees them: each in the base family's planning
        form (``PlansWrappedTools``; a timed constraint tool states its duration, a distractor one
        too), the restart tool left out; composites and ``refuse`` as they are."""
        base = base_case(case)
        family = get_family(base.family)
        if not isinstance(family, PlansWrappedTools):
            return list(case.tools)
        spec = spec_of(case)
        composites = {c.tool for c in spec.composites}
        distractors = set(spec.distractors)
        base_names = {t.name for t in base.tools}
        out = []
        for tool in case.tools:
            if tool.name in composites or tool.name == spec.refuse_tool:
                out.append(tool)
                continue
            does = spec.base_name(tool.name)
            planned = family.planning_tool(base, tool, None if tool.name in distractors or does not in base_names
                                           else does)
            if planned is not None:
                out.append(planned)
        return out

    def protocol_problem(self, case: Case, protocol: str) -> str:
        """APB plans broken tools step-wise only (``step_wise_tool_broken``; its holistic splits are
        planning, extraneous tools and unsolvable): when nothing runs, nothing shows which tool of
        the pair fails, so a holistic plan over a broken pair could only be a coin toss."""
        if protocol == "holistic" and spec_of(case).broken is not None:
            return ("a broken tool shows itself only when it runs, and a holistic plan runs nothing (APB plans "
                    "broken tools step-wise only): use --protocol stepwise")
        return ""

    # -- hooks for the step-wise protocol (stepwise_hooks.py) ---------------

    def stepwise_plan(self, case: Case) -> tuple[list[PlannedCall], int]:
        from .stepwise_hooks import stepwise_plan

        return stepwise_plan(self, case)

    def extendable(self, case: Case, calls) -> tuple[bool, str]:
        from .stepwise_hooks import extendable

        return extendable(case, calls)

    def prefix_evidence(self, case: Case, calls):
        from .stepwise_hooks import prefix_evidence

        return prefix_evidence(case, calls)

    # -- reference agents ---------------------------------------------------

    def _refusal(self, case: Case) -> list[PlannedCall]:
        spec = spec_of(case)
        assert spec.refuse_tool is not None  # a suite with refusals names its refuse tool in every case
        return [PlannedCall(spec.refuse_tool, json.dumps({"reason": REFUSAL_REASON}))]

    def _in_variant_terms(self, case: Case, plan: list[PlannedCall]) -> list[PlannedCall]:
        """A base plan as the variant's tools say it: the working one of a broken pair, a renamed
        tool's new name, the given parameter value added."""
        spec = spec_of(case)
        names = frozenset(t.name for t in case.tools)
        out = []
        for call in plan:
            name = call.name
            if spec.broken is not None and name == spec.broken.tool:
                name = spec.broken.replacement
            name = spec.alias_of(name, names) if name not in names else name
            arguments = call.arguments
            if spec.given is not None and spec.base_name(name) == spec.given.tool:
                try:
                    args = loads(arguments or "{}")
                except json.JSONDecodeError:
                    args = None  # a malformed call (the malformed-args fault) stays malformed
                if isinstance(args, dict):
                    args[spec.given.param] = spec.given.value
                    arguments = json.dumps(args)
            out.append(PlannedCall(name, arguments))
        return out

    def _plain_arguments(self, case: Case, arguments: str) -> str:
        """Arguments without the given parameter (what a tool of the base case takes)."""
        given = spec_of(case).given
        if given is None:
            return arguments
        return json.dumps({k: v for k, v in loads(arguments or "{}").items() if k != given.param})

    def _arguments_for(self, case: Case, name: str, plan: list[PlannedCall]) -> str:
        """Arguments valid for tool ``name``'s schema, so that a protocol which checks the
        arguments of a written plan (holistic) still sees a call of a tool the task never asks
        for, not a malformed call: a plan call's arguments when they fit, else the schema's first values."""
        tool = next((t for t in case.tools if t.name == name), None)
        if tool is None:
            return self._plain_arguments(case, plan[0].arguments) if plan else "{}"
        props: dict = tool.parameters.get("properties") or {}
        required = set(tool.parameters.get("required") or ())
        for call in plan:
            args = loads(self._plain_arguments(case, call.arguments) or "{}")
            if required <= set(args) and set(args) <= set(props):
                return json.dumps(args)
        values = {}
        for key in sorted(required):
            spec = props.get(key) or {}
            if spec.get("enum"):
                values[key] = spec["enum"][0]
            elif spec.get("type") in ("integer", "number"):
                values[key] = spec.get("minimum", 0)
            elif spec.get("type") == "boolean":
                values[key] = False
            else:
                values[key] = "x"
        return json.dumps(values)

    def reference_plan(self, case: Case) -> list[PlannedCall]:
        spec = spec_of(case)
        if spec.unsolvable is not None:
            return self._refusal(case)
        if spec.min_cost_plan:
            args = spec.min_cost_args or ["{}"] * len(spec.min_cost_plan)
            return self._in_variant_terms(case, [PlannedCall(n, a) for n, a in zip(spec.min_cost_plan, args)])
        base = base_case(case)
        return self._in_variant_terms(case, get_family(base.family).reference_plan(base))

    def random_plan(self, case: Case, rng: random.Random) -> list[PlannedCall]:
        spec = spec_of(case)
        base = base_case(case)
        if spec.unsolvable is not None and spec.unsolvable.kind == "contradiction":
            # the base has no valid plan to shuffle; any order of its tools will do
            tools = [t.name for t in base.tools]
            rng.shuffle(tools)
            return [PlannedCall(t, "{}") for t in tools]
        return self._in_variant_terms(case, get_family(base.family).random_plan(base, rng))

    def faulty_plan(self, case: Case, fault: str, rng: random.Random) -> list[PlannedCall] | None:
        spec = spec_of(case)
        if spec.unsolvable is not None:
            return None  # the fault classes are about plans; an unsolvable case has none
        plan = self.reference_plan(case)
        if fault == "refuse":
            return self._refusal(case) if spec.refuse_tool else None
        if fault == "distractor":
            if not spec.distractors:
                return None
            at = rng.randrange(len(plan) + 1)
            name = rng.choice(spec.distractors)
            return plan[:at] + [PlannedCall(name, self._arguments_for(case, name, plan))] + plan[at:]
        if fault == "unknown-tool":  # a name no tool of the variant has (the base's ghost may be the replacement)
            names = {t.name for t in case.tools}
            ghost = rng.choice(sorted(names - {spec.refuse_tool})) + "_x"
            while ghost in names:
                ghost += "_x"
            at = rng.randrange(len(plan) + 1)
            return plan[:at] + [PlannedCall(ghost, self._plain_arguments(case, plan[0].arguments) if plan else "{}")
                                ] + plan[at:]
        if spec.min_cost_plan:
            return None  # base faults are defined on single-action plans
        base = base_case(case)
        if fault not in get_family(base.family).faults:
            return None
        faulty = get_family(base.family).faulty_plan(base, fault, rng)
        return None if faulty is None else self._in_variant_terms(case, faulty)
