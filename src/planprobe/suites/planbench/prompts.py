"""A task's blocks as PlanBench's prompt text, in the domain's words.

The text is ``prompt_blocks``'s (PlanBench's exact ``[STATEMENT]`` blocks, checked
against its recorded prompts in ``tests/pddl/test_translation.py``) after the
domain description of the translation config: ``plan_generation`` for t1,
``cost`` for t2 (a config without a cost description gets its default one
plus "Every action takes 1 minute."), ``default`` otherwise; a config without
any intro gets one generated from the PDDL. With ``corrected`` the intro is the
config's corrected text instead (``<variant>_corrected``, else ``corrected``):
Mystery Blocksworld's has PlanBench's slip in Overcome's effects fixed; the
verbatim text stays the default (docs/pddl.md, "Read by the solver").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ...pddl.validator import validate
from . import prompt_blocks
from .scoring import resulting_state
from .tasks import Block, Built
from .worlds import Shown

__all__ = ["REFUSAL_NOTE", "UNIT_COST", "corrected_variant", "intro", "prompt", "render"]

UNIT_COST = "Every action takes 1 minute."
REFUSAL_NOTE = "If no plan can achieve the goal, write REFUSE: and the reason instead of a plan."
_INTRO_VARIANT = {"t1": "plan_generation", "t2": "cost"}


def corrected_variant(intros: Mapping[str, str], variant: str) -> str | None:
    """The intro variant correcting ``variant``'s text, or None when the config has none."""
    for name in (f"{variant}_corrected", "corrected"):
        if name in intros:
            return name
    return None


def intro(task: str, shown: Shown, refusal_note: bool = False, corrected: bool = False) -> str:
    """The domain description the prompt starts with (ends with a blank line)."""
    config = shown.tr.config
    variant = _INTRO_VARIANT.get(task, "default")
    if corrected:
        fixed = corrected_variant(config.intros, variant)
        if fixed is None:
            raise ValueError(f"translation {config.name!r} has no corrected intro")
        text = config.intro(fixed, shown.problem.domain)
    else:
        text = config.intro(variant, shown.problem.domain)
    extra = []
    if task == "t2" and "cost" not in config.intros:
        extra.append(UNIT_COST)
    if refusal_note:
        extra.append(REFUSAL_NOTE)
    if extra:
        text = text.rstrip("\n") + "\n" + "\n".join(extra) + "\n\n"
    return text


def render(block: Block, shown: Shown) -> str:
    """One block in ``shown``'s words (examples with their answers, the query without)."""
    tr, steps = shown.tr, shown.steps
    plan = steps(block.plan) if block.plan is not None else None
    goal = None
    if block.goal is not None:
        atoms = shown.atoms(block.goal)
        goal = prompt_blocks.fact_list(tr, atoms) if block.ordered else atoms
    kind, worked = block.kind, block.worked
    if kind == "plan":
        return prompt_blocks.plan_statement(tr, plan if worked else None, goal=goal)
    if kind == "optimality":
        return prompt_blocks.optimality_statement(tr, plan if worked else None, goal=goal)
    if kind == "reuse":
        return prompt_blocks.reuse_statement(tr, plan if worked else None, goal=goal)
    assert plan is not None, f"a {kind} block shows a plan"  # verification, execution, replanning
    if kind == "verification":
        answer = prompt_blocks.verification_message(tr, validate(shown.problem, plan)) if worked else None
        return prompt_blocks.verification_statement(tr, plan, answer)
    if kind == "execution":
        state = resulting_state(shown.problem, plan, tr) if worked else None
        return prompt_blocks.execution_statement(tr, plan, state)
    if kind == "replanning":
        e = block.event
        assert e is not None  # a replanning block has its event
        new_plan = steps(block.new_plan) if worked and block.new_plan is not None else None
        return prompt_blocks.replanning_statement(tr, plan, e.step, shown.atoms(e.became_true), shown.atoms(e.became_false),
                                           new_plan)
    raise ValueError(f"unknown block kind {kind!r}")  # pragma: no cover


def prompt(task: str, built: Built, shown_of: Callable[[Block], Shown], refusal_note: bool = False,
           corrected: bool = False) -> str:
    """The whole prompt: intro, worked examples, the query."""
    blocks = [*built.examples, built.query]
    texts = [render(b, shown_of(b)) for b in blocks]
    head = intro(task, shown_of(built.query), refusal_note, corrected)
    tail = "\n" if task == "t1" else ""  # PlanBench's t1 prompts end with a line break after [PLAN]
    return head + texts[0].lstrip("\n") + "".join(texts[1:]) + tail
