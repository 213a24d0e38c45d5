"""The ``lamps`` family: switch on every lamp exactly once, in the order the task gives.

The oracle is exact: the judged calls must be ``switch_on`` with each lamp once, in the
required order. Each failure is reported as the class a planprobe family would use.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from planprobe import (
    Case,
    CaseMeta,
    Environment,
    Evidence,
    Limits,
    PlannedCall,
    PlanprobeError,
    ToolSpec,
    Trace,
    TraceStatus,
    Verdict,
)
from planprobe.schema import ErrorClass, sort_errors

FAMILY = "lamps"
TOOL = "switch_on"
COLOURS = ("amber", "blue", "cyan", "green", "pink", "red", "violet", "white")
E = ErrorClass
FAULTS = {"drop": E.ACTION_LOST.value, "duplicate": E.REPEATED_ACTION.value, "swap": E.ORDER_ERROR.value,
          "unknown-tool": E.ACT_ERROR.value, "malformed-args": E.ACT_ERROR.value}
_STATUS = {TraceStatus.INFRA_ERROR: E.INFRA, TraceStatus.AGENT_ERROR: E.AGENT_CRASH}


def _order(case: Case) -> list[str]:
    order = case.spec.get("order")
    if not isinstance(order, list) or len(order) < 2 or len(set(order)) != len(order) \
            or not all(c in COLOURS for c in order):
        raise PlanprobeError(f"case {case.id}: field 'spec.order': a list of 2 or more distinct lamp colours")
    return order


class LampsEnvironment(Environment):
    def execute(self, name: str, args: dict[str, Any]) -> tuple[str, str | None]:
        return f"The {args['lamp']} lamp is on.", None


class LampsFamily:
    name = FAMILY
    faults = FAULTS

    def generate(self, n: int, seed: int) -> Iterator[Case]:
        for i in range(n):
            rng = random.Random(f"lamps/{seed}/{i}")
            order = rng.sample(COLOURS, rng.randint(2, 5))
            offered = sorted(order)
            tool = ToolSpec(name=TOOL, description="Switch on one lamp.", parameters={
                "type": "object", "properties": {"lamp": {"type": "string", "enum": offered}},
                "required": ["lamp"], "additionalProperties": False})
            yield Case(id=f"lamps-{seed}-{i}", family=FAMILY, tools=[tool], spec={"order": order},
                       task=f"Switch on each lamp exactly once, in this order: {', '.join(order)}.",
                       meta=CaseMeta(seed=seed, difficulty={"actions": len(order)}, topic="lamps"))

    # SolvableFromText: the solver reads its tasks (its reader: solver_reader.py, an entry point); the
    # claim covers the two unsolvable kinds a generic family can take, half of them to refuse
    solver_variants = (("unsolvable:missing-info",), ("unsolvable:removal",))

    def solver_sample(self, n: int, seed: int) -> list[Case]:
        return list(self.generate(n, seed))

    def validate(self, case: Case) -> None:
        order = _order(case)
        tool = next((t for t in case.tools if t.name == TOOL), None)
        if tool is None:
            raise PlanprobeError(f"case {case.id}: field 'tools': no {TOOL} tool")
        if sorted(tool.parameters.get("properties", {}).get("lamp", {}).get("enum", [])) != sorted(order):
            raise PlanprobeError(f"case {case.id}: field 'tools': {TOOL} must offer exactly the lamps of 'spec.order'")

    def environment(self, case: Case, limits: Limits, trial: int = 0, agent: str = "") -> Environment:
        return LampsEnvironment(case, limits, trial, agent)

    def check(self, case: Case, trace: Trace) -> Verdict:
        if trace.status != TraceStatus.COMPLETED:
            error = _STATUS.get(trace.status, E.TIMEOUT).value
            return Verdict(case_id=case.id, trial=trace.trial, passed=False, errors=[error], checker="lamps/1",
                           evidence=[Evidence(error=error, kind=trace.status.value, symbolic=trace.status.value,
                                              text=f"The episode ended: {trace.status.value}.")])
        order = _order(case)
        found: list[Evidence] = []
        done: list[str] = []
        for call in trace.tool_calls:
            if call.error is not None:
                found.append(Evidence(error=E.ACT_ERROR.value, kind=call.error, step=call.index,
                                      symbolic=f"step {call.index}: {call.error}", text=call.result))
            elif call.args["lamp"] in done:
                found.append(Evidence(error=E.REPEATED_ACTION.value, kind="repeated", step=call.index,
                                      symbolic=f"step {call.index}: {call.args['lamp']} again",
                                      text=f"Step {call.index}: the {call.args['lamp']} lamp was already on."))
            else:
                done.append(call.args["lamp"])
        for lamp in order:
            if lamp not in done:
                found.append(Evidence(error=E.ACTION_LOST.value, kind="lost", symbolic=f"{lamp} never on",
                                      text=f"The {lamp} lamp was never switched on."))
        kept = [lamp for lamp in done if lamp in order]
        if kept != [lamp for lamp in order if lamp in kept]:
            found.append(Evidence(error=E.ORDER_ERROR.value, kind="order", symbolic=" < ".join(kept),
                                  text=f"The lamps went on as {', '.join(kept)}, not in the order given."))
        return Verdict(case_id=case.id, trial=trace.trial, passed=not found, checker="lamps/1",
                       errors=sort_errors({e.error for e in found}), evidence=found)

    def reference_plan(self, case: Case) -> list[PlannedCall]:
        return [_switch(lamp) for lamp in _order(case)]

    def random_plan(self, case: Case, rng: random.Random) -> list[PlannedCall]:
        return [_switch(lamp) for lamp in rng.sample(_order(case), len(_order(case)))]

    def faulty_plan(self, case: Case, fault: str, rng: random.Random) -> list[PlannedCall] | None:
        plan = self.reference_plan(case)
        k = rng.randrange(len(plan))
        if fault == "drop":
            return plan[:k] + plan[k + 1:]
        if fault == "duplicate":
            return plan[:k + 1] + [plan[k]] + plan[k + 1:]
        if fault == "swap":
            j = rng.randrange(len(plan) - 1)
            return plan[:j] + [plan[j + 1], plan[j]] + plan[j + 2:]
        if fault == "unknown-tool":
            return plan[:k] + [PlannedCall("switch_off", plan[k].arguments)] + plan[k:]
        if fault == "malformed-args":
            return plan[:k] + [PlannedCall(TOOL, "lamp=" + json.loads(plan[k].arguments)["lamp"])] + plan[k:]
        return None


def _switch(lamp: str) -> PlannedCall:
    return PlannedCall(TOOL, json.dumps({"lamp": lamp}))
