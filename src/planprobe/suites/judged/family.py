"""The judged family: open-ended cases whose verdict comes from an LLM judge.

``check`` is synchronous and has no model, so it cannot judge. It returns a
*pending* verdict (``errors == ["unjudged"]``, ``oracle == "judged"``) that
says so; ``planprobe judge RUN_DIR`` then judges every finished trace with a
configured model and stores the judged verdicts next to the run
(``judge.jsonl``). A trace that ended in an infrastructure failure is marked
``infra`` right away: there is nothing to judge.
"""

from __future__ import annotations

import json
import random
from typing import ClassVar

from ...environment import Environment, Limits
from ...schema import (
    Case,
    ErrorClass,
    Evidence,
    OracleKind,
    Trace,
    TraceStatus,
    Verdict,
)
from ...tool_args import validate_arguments
from ..base import PlannedCall
from .environment import JudgedEnvironment
from .spec import FAMILY, Step, check_spec, parse_spec

UNJUDGED = "unjudged"
PENDING_CHECKER = "judged:pending"


class JudgedFamily:
    name = FAMILY
    faults: ClassVar[dict[str, str]] = {}  # no scripted faults: nothing exact to inject

    def validate(self, case: Case) -> None:
        check_spec(case, parse_spec(case))

    def environment(self, case: Case, limits: Limits, trial: int = 0, agent: str = "") -> Environment:
        return JudgedEnvironment(case, limits, trial, agent)

    def check(self, case: Case, trace: Trace) -> Verdict:
        if trace.status == TraceStatus.INFRA_ERROR:
            return Verdict(case_id=case.id, trial=trace.trial, passed=False, errors=[ErrorClass.INFRA.value],
                           oracle=OracleKind.JUDGED, checker=PENDING_CHECKER,
                           evidence=[Evidence(error=ErrorClass.INFRA.value, kind="infra", symbolic="infra",
                                              text="The model service failed; this is not a planning failure.")])
        return pending_verdict(case, trace)

    def reference_plan(self, case: Case) -> list[PlannedCall]:
        """The reference's tool steps (all of them, or the next ``horizon`` ones), with
        their arguments when those fit the tool's schema."""
        spec = parse_spec(case)
        if "unsolvable" in spec.settings or spec.reference is None:
            return []
        steps = spec.reference.steps
        if spec.horizon is not None and "next_steps" in spec.settings:
            steps = steps[: spec.horizon]
        return [c for c in (_planned(case, s) for s in steps) if c is not None]

    def reference_answer(self, case: Case) -> str | None:
        """APB's protocol: the record's own reference in APB's answer format (holistic: plan +
        tool chain; unsolvable: a REJECT; step-wise: the ground-truth next steps). None for
        execute-mode cases, which the oracle acts out with tools instead."""
        spec = parse_spec(case)
        if spec.protocol != "apb" or spec.apb is None:
            return None
        from .apb_format import is_holistic, json_field

        record = spec.apb
        if record.get("split") == "holistic_unsolvable":
            answer: dict = {"status": "REJECT", "reason": f"unsolvable: {record.get('unsolvable_type')}"}
        elif is_holistic(record):
            answer = {"plan": record.get("plan") or "", "tool_chain": json_field(record, "tool_chain_json", [])}
        else:
            answer = {"predicted_steps": json_field(record, "ground_truth_steps_json", [])}
        return json.dumps(answer, ensure_ascii=False)

    def random_plan(self, case: Case, rng: random.Random) -> list[PlannedCall]:
        names = [t.name for t in case.tools]
        rng.shuffle(names)
        return [PlannedCall(n, "{}") for n in names[: rng.randint(0, len(names))]]

    def faulty_plan(self, case: Case, fault: str, rng: random.Random) -> list[PlannedCall] | None:
        return None


def pending_verdict(case: Case, trace: Trace) -> Verdict:
    return Verdict(
        case_id=case.id, trial=trace.trial, passed=False, errors=[UNJUDGED], oracle=OracleKind.JUDGED,
        checker=PENDING_CHECKER,
        evidence=[Evidence(error=UNJUDGED, kind="pending_judge", symbolic="no judge yet",
                           text="This case has no formal oracle: run 'planprobe judge RUN_DIR' to judge it.")],
    )


def _planned(case: Case, step: Step) -> PlannedCall | None:
    import json

    tool = next((t for t in case.tools if t.name == step.tool), None)
    if tool is None:
        return None
    args = step.arguments if isinstance(step.arguments, dict) else {}
    if validate_arguments(tool.parameters, args) is not None:
        args = {}
    return PlannedCall(tool.name, json.dumps(args, sort_keys=True))
