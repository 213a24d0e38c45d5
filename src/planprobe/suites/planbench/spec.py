"""The hidden part of a ``planbench`` case (``Case.spec``).

Self-contained data, no code: the PDDL the reply is judged against (in the
vocabulary the prompt shows, obfuscated or not), the name of the translation
config that reads the reply, and what each task needs to judge it — the plan
to verify (t3), the executed sequence (t7), the optimal length (t2), a known
correct plan (the reference answer), the unexpected event (t6). The prompt
itself is ``Case.task``; nothing here is shown to the model.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ...schema import Case
from ..spec_reading import read_spec

FAMILY = "planbench"
SPEC_VERSION = 1
TASKS: dict[str, str] = {
    "t1": "plan generation",
    "t2": "cost-optimal planning",
    "t3": "plan verification",
    "t4": "plan reuse",
    "t5": "plan generalization",
    "t6": "replanning",
    "t7": "reasoning about plan execution",
    "t8_1": "goal reformulation: shuffled goals",
    "t8_2": "goal reformulation: full to partial",
    "t8_3": "goal reformulation: partial to full",
}
PLAN_TASKS = ("t1", "t2", "t4", "t5", "t6", "t8_1", "t8_2", "t8_3")  # the reply is a plan
VERIFY_LEVELS = ("binary", "type", "explanation")
TaskName = Literal["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8_1", "t8_2", "t8_3"]


class Event(BaseModel):
    """t6: after ``step`` (1-based) of the stated plan these facts became true / false."""

    model_config = ConfigDict(extra="forbid")

    step: int = Field(ge=1)
    became_true: list[str]  # PDDL atoms, e.g. "(on a b)"
    became_false: list[str]


class PlanBenchSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = SPEC_VERSION
    task: TaskName
    domain: str = Field(min_length=1)  # PDDL domain text, as the prompt's vocabulary names it
    # PDDL problem the reply is judged against: the query's problem; t4 with the reused
    # prefix's new facts as its goal (PlanBench's new instance); t6 from the changed state
    problem: str = Field(min_length=1)
    # the problem as the query states it, when it differs from `problem` (t4, t6)
    stated: str | None = None
    # the built-in translation config that says (and reads back) facts and actions;
    # None: the generic translation of the PDDL domain
    translation: str | None = None
    plan: list[str] | None = None  # t3: the plan to verify; t7: the executed action sequence
    reference: list[str] | None = None  # plan tasks: a correct plan (optimal where known)
    optimal_length: int | None = None  # t2: the length of an optimal plan
    verify: Literal["binary", "type", "explanation"] = "binary"  # t3: the level that decides pass/fail
    event: Event | None = None  # t6
    rules: Literal["planbench", "planprobe"] = "planbench"  # t7: which words negate a stated fact
    unsolvable: str | None = None  # why no plan exists (a contradictory goal): the reply must refuse
    refusal_note: bool = False  # the prompt says how to refuse
    shots: int = Field(default=1, ge=0)  # worked examples in the prompt
    # the prompt's domain description is the corrected one, not PlanBench's verbatim text (absent: verbatim)
    corrected_text: bool = False


def parse_spec(case: Case) -> PlanBenchSpec:
    return read_spec(case, PlanBenchSpec, FAMILY)
