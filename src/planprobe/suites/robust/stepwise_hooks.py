"""Step-wise variants over extraneous and broken tools (APB's ``step_wise_tool_extraneous``
and ``step_wise_tool_broken`` splits), judged exactly.

What the step-wise protocol (``suites/protocols``) asks of the variant family:

* ``stepwise_plan`` — the gold trajectory and the shortest prefix it may be cut at. With a
  broken tool the trajectory calls the failing tool of the pair first and the working one
  right after, and the prefix ends with the failure (APB: "recover from a failed tool"), so
  the next step is the recovery. Extraneous tools: the reference plan, cut anywhere.
* ``extendable`` / ``prefix_evidence`` — a call to a distractor or a repeat of the tool that
  already failed cannot begin a right continuation (APB: "strictly penalizing utilization
  of any distractor tool"; retrying the broken tool is not recovering); the rest is mapped
  to the base case's tools and judged by the base family.

Unsolvable and cost variants, and timed base cases (whose planning tools would have to state
every distractor's duration), are not offered step-wise: ``stepwise_plan`` says so.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import PlanprobeError
from ...schema import Case, ErrorClass, Evidence
from ..base import GrantsRestarts, JudgesPrefixes, PlannedCall
from ..registry import get_family
from .spec import base_case, spec_of

E = ErrorClass


def _unsupported(case: Case) -> str:
    spec = spec_of(case)
    if spec.unsolvable is not None or spec.refuse_tool:
        return "unsolvable variants"
    if spec.composites:
        return "cost variants"
    base = base_case(case)
    family = get_family(base.family)
    if isinstance(family, GrantsRestarts) and family.restart_tool(base):
        return "timed base cases"
    if not isinstance(family, JudgesPrefixes):
        return f"base family {base.family!r} (no 'extendable' hook)"
    return ""


def _judge_of(base: Case) -> JudgesPrefixes:
    """The base family as a judge of prefixes (``_require_supported`` has checked that it is one)."""
    family = get_family(base.family)
    if not isinstance(family, JudgesPrefixes):
        raise PlanprobeError(f"base family {base.family!r} has no 'extendable' hook")
    return family


def _require_supported(case: Case) -> None:
    why = _unsupported(case)
    if why:
        raise PlanprobeError(f"case {case.id}: step-wise variants are built over extraneous and broken tools, "
                             f"not {why}")


def stepwise_plan(family, case: Case) -> tuple[list[PlannedCall], int]:
    _require_supported(case)
    plan = family.reference_plan(case)
    broken = spec_of(case).broken
    if broken is None:
        return plan, 0
    at = next((i for i, c in enumerate(plan) if c.name == broken.replacement), None)
    if at is None:  # pragma: no cover - the broken tool is drawn from the plan's tools
        raise PlanprobeError(f"case {case.id}: the reference plan never needs the broken tool")
    failing = PlannedCall(broken.tool, plan[at].arguments)
    return plan[:at] + [failing] + plan[at:], at + 1


def _problems(case: Case, calls: Sequence[PlannedCall]) -> tuple[list[Evidence], list[PlannedCall]]:
    """Evidence against the variant's own rules, and the calls in the base case's terms."""
    spec = spec_of(case)
    distractors = set(spec.distractors)
    out: list[Evidence] = []
    base_calls: list[PlannedCall] = []
    failed = False
    for step, call in enumerate(calls):
        if call.name in distractors:
            out.append(Evidence(error=E.EXTRANEOUS_TOOL.value, kind="extraneous_tool", step=step,
                                symbolic=f"step {step}: {call.name} is a distractor",
                                text=f'Step {step}: "{call.name}" was called, but the task never asks for it.'))
        elif spec.broken is not None and call.name == spec.broken.tool:
            if failed:
                out.append(Evidence(error=E.REPEATED_ACTION.value, kind="retried_broken", step=step,
                                    symbolic=f"step {step}: {call.name} retried after failing",
                                    text=f'Step {step}: "{call.name}" was called again after it had failed; '
                                         "the other tool of its kind works."))
            failed = True  # it fails and does nothing
        else:
            base_calls.append(PlannedCall(spec.base_name(call.name), call.arguments))
    return out, base_calls


def extendable(case: Case, calls: Sequence[PlannedCall]) -> tuple[bool, str]:
    _require_supported(case)
    own, base_calls = _problems(case, calls)
    if own:
        return False, " ".join(e.text for e in own)
    base = base_case(case)
    return _judge_of(base).extendable(base, base_calls)


def prefix_evidence(case: Case, calls: Sequence[PlannedCall]) -> list[Evidence]:
    _require_supported(case)
    own, base_calls = _problems(case, calls)
    base = base_case(case)
    hook = getattr(get_family(base.family), "prefix_evidence", None)
    ok, _ = _judge_of(base).extendable(base, base_calls)
    return own + ([] if ok or hook is None else list(hook(base, base_calls)))
