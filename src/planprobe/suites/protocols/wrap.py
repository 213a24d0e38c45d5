"""Turning a case into its holistic or step-wise form, and replaying plans.

``wrap_holistic(case)`` and ``wrap_stepwise(case, k, rng)`` build the wrapped
cases; ``wrap_lines`` does it for a whole suite as it streams out of a
generator (``planprobe generate constraints --protocol …``). ``replay`` runs a
plan through the base family's own environment, which is how a plan that was
only written down gets a trace the base oracle can judge.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator, Sequence

from ...environment import Limits
from ...errors import PlanprobeError
from ...schema import Case, ToolSpec, Trace
from ..base import (
    CutsTrajectories,
    JudgesPrefixes,
    LimitsProtocols,
    PlannedCall,
    PlanningTools,
)
from ..registry import get_family
from . import prompts
from .spec import HOLISTIC, MAX_STEPS, PROTOCOLS, SPEC_VERSION, STEPWISE

EXECUTE = "execute"  # the default protocol: the agent runs the tools (no wrapping)
_REPLAY_LIMITS = Limits(max_iterations=10**9, timeout_s=10**9)  # replays call no model and never step


def planning_tools(base: Case) -> list[ToolSpec]:
    """The base tools as a planning agent sees them (the family's hook, else as they are)."""
    family = get_family(base.family)
    return list(family.planning_tools(base)) if isinstance(family, PlanningTools) else list(base.tools)


def replay(base: Case, calls: Sequence[PlannedCall], trial: int = 0, agent: str = "") -> Trace:
    """The trace of running ``calls``, in order, in a fresh environment of the base case."""
    env = get_family(base.family).environment(base, _REPLAY_LIMITS, trial, agent)
    for call in calls:
        env.call(call.name, call.arguments)
    return env.trace


def _meta(case: Case, protocol: str, extra: dict):
    meta = case.meta.model_copy(deep=True)
    meta.tags = [*meta.tags, protocol]
    meta.generator = {**meta.generator, "protocol": protocol, **extra}
    meta.parent = case.id
    return meta


def _check_base(case: Case, protocol: str) -> None:
    if case.family in PROTOCOLS:
        raise PlanprobeError(f"case {case.id}: already a {case.family} case; a protocol wraps an executable case")
    family = get_family(case.family)
    why = family.protocol_problem(case, protocol) if isinstance(family, LimitsProtocols) else ""
    if why:
        raise PlanprobeError(f"case {case.id}: --protocol {protocol}: {why}")


def wrap_holistic(case: Case) -> Case:
    """The case as a holistic planning task: the whole plan as JSON, nothing executed."""
    _check_base(case, HOLISTIC)
    return Case(
        id=f"{case.id}-{HOLISTIC}", family=HOLISTIC, system=prompts.system_text(case.system), tools=[], oracle=case.oracle,
        task=prompts.holistic_text(case.task, planning_tools(case)),
        spec={"version": SPEC_VERSION, "base": case.model_dump(mode="json")},
        meta=_meta(case, HOLISTIC, {}),
    )


def wrap_stepwise(case: Case, k: int, rng: random.Random) -> Case:
    """The case as a step-wise planning task: after a gold prefix of ``j`` calls
    (``j`` drawn from ``rng`` in [0, len(reference plan) - 1]), predict the next ``k``."""
    _check_base(case, STEPWISE)
    if not 1 <= k <= MAX_STEPS:
        raise PlanprobeError(f"--steps {k}: the step-wise protocol predicts 1 to {MAX_STEPS} steps")
    family = get_family(case.family)
    if not isinstance(family, JudgesPrefixes):
        raise PlanprobeError(f"case {case.id}: the {case.family!r} family cannot say whether a partial plan can "
                             "still be completed (no 'extendable' method: JudgesPrefixes), so step-wise cases "
                             "cannot be judged")
    # a family may give its own trajectory and shortest cut (CutsTrajectories)
    cuts = isinstance(family, CutsTrajectories)
    plan, lo = family.stepwise_plan(case) if isinstance(family, CutsTrajectories) else (family.reference_plan(case), 0)
    if not plan:
        raise PlanprobeError(f"case {case.id}: the reference plan is empty; there is no next step to predict")
    j = lo + rng.randrange(len(plan) - lo) if not cuts or lo == 0 else lo
    done = replay(case, plan[:j]).tool_calls
    prefix = [{"tool": c.name, "arguments": c.arguments, "result": t.result} for c, t in zip(plan[:j], done)]
    gold = [{"tool": c.name, "arguments": c.arguments} for c in plan[j:j + k]]
    shown = [(c, t.result) for c, t in zip(plan[:j], done)]
    return Case(
        id=f"{case.id}-{STEPWISE}{k}", family=STEPWISE, system=prompts.system_text(case.system), tools=[], oracle=case.oracle,
        task=prompts.stepwise_text(case.task, planning_tools(case), shown, k),
        spec={"version": SPEC_VERSION, "base": case.model_dump(mode="json"), "k": k, "prefix": prefix,
              "gold": gold},
        meta=_meta(case, STEPWISE, {"steps": k, "prefix": j}),
    )


def stepwise_rng(seed: int, case: Case) -> random.Random:
    """The prefix length's random stream: one per (suite seed, case), so any case can
    be wrapped alone and the suite is byte-identical for the same seed."""
    return random.Random(f"planprobe/protocols/{STEPWISE}/{seed}/{case.id}")


def check_protocol(protocol: str, steps: int) -> None:
    if protocol not in (EXECUTE, *PROTOCOLS):
        raise PlanprobeError(f"--protocol {protocol!r}: choose {EXECUTE}, {HOLISTIC} or {STEPWISE}")
    if not 1 <= steps <= MAX_STEPS:
        raise PlanprobeError(f"--steps {steps}: choose 1, 2 or 3")
    if steps != 1 and protocol != STEPWISE:
        raise PlanprobeError(f"--steps is for --protocol {STEPWISE}")


def wrap(case: Case, protocol: str, steps: int = 1, seed: int = 0) -> Case:
    if protocol == EXECUTE:
        return case
    if protocol == HOLISTIC:
        return wrap_holistic(case)
    return wrap_stepwise(case, steps, stepwise_rng(seed, case))


def wrap_lines(lines: Iterable[str], protocol: str, steps: int = 1, seed: int = 0) -> Iterator[str]:
    """Suite lines (JSON cases) in their wrapped form, streamed. The options are
    checked at once, before the first case is generated."""
    check_protocol(protocol, steps)
    if protocol == EXECUTE:
        return iter(lines)
    return (wrap(Case.model_validate(json.loads(line)), protocol, steps, seed).model_dump_json() for line in lines)
