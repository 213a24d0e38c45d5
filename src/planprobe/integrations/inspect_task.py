"""A planprobe suite as an Inspect AI task (the ``inspect`` extra): the task file written by
``planprobe export inspect`` calls ``planprobe_task``.

* dataset: one Inspect ``Sample`` per case (id = case id, input = the task), read with
  Inspect's own ``json_dataset`` from the exported ``dataset.jsonl``;
* tools: a solver gives each sample its case's tools (their JSON schemas as Inspect
  ``ToolParams``), executed by a fresh planprobe environment of the case and epoch;
* scorer: the sample's conversation is played into a fresh environment (``replay.py``) and
  judged by the case family's oracle: C when the verdict passes, I otherwise, with the
  error classes as the explanation.

The suite itself is read by planprobe's suite reader (the same checks as ``run``); nothing
in it is evaluated.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..environment import Environment, Limits
from ..errors import PlanprobeError
from ..schema import Case

MISSING = "the Inspect integration needs the inspect extra: pip install 'planprobe[inspect]'"
# Inspect's loop, not planprobe's, bounds the episode; the environment never cuts it short
UNBOUNDED = Limits(max_iterations=10 ** 9, timeout_s=float("inf"))


def _inspect() -> Any:
    try:
        import inspect_ai
    except ImportError:
        raise PlanprobeError(MISSING) from None
    return inspect_ai


def load_cases(suite: Path) -> dict[str, Case]:
    from ..suites.io import iter_suite

    return {case.id: case for case in iter_suite(suite)}


def environment(case: Case, epoch: int) -> Environment:
    from ..suites.registry import get_family

    return get_family(case.family).environment(case, UNBOUNDED, max(0, epoch - 1), "inspect")


def system_prompt(case: Case) -> str:
    from ..agents.tools_agent import SYSTEM

    return case.system or SYSTEM


def planprobe_tools(cases: dict[str, Case]) -> Any:
    """An Inspect solver: the system prompt of planprobe's ``tools`` agent and the sample's case
    tools, bound to a fresh environment of the case."""
    _inspect()
    from inspect_ai.model import ChatMessageSystem
    from inspect_ai.solver import solver
    from inspect_ai.tool import ToolDef, ToolParams

    @solver(name="planprobe_tools")
    def make() -> Any:
        async def solve(state: Any, generate: Any) -> Any:
            case = cases[str(state.sample_id)]
            env = environment(case, state.epoch)
            tools = []
            for spec in env.tools:
                try:
                    params = ToolParams.model_validate(spec.parameters)
                except ValueError as exc:
                    raise PlanprobeError(f"case {case.id!r}: tool {spec.name!r} has parameters Inspect cannot "
                                         f"express: {str(exc).splitlines()[0]}") from None
                tools.append(ToolDef(_executor(env, spec.name), name=spec.name, description=spec.description,
                                     parameters=params).as_tool())
            state.tools = tools
            state.tool_choice = "auto"
            if not any(getattr(m, "role", "") == "system" for m in state.messages):
                state.messages.insert(0, ChatMessageSystem(content=system_prompt(case)))
            return state

        return solve

    return make()


def _executor(env: Environment, name: str) -> Any:
    async def execute(**kwargs: Any) -> str:
        return env.call(name, kwargs)

    return execute


def judge_messages(case: Case, messages: list[Any], epoch: int) -> Any:
    """(verdict, trace) for an Inspect conversation of ``case``."""
    from ..suites.registry import get_family
    from .inspect_messages import from_inspect
    from .replay import replay_into

    env = environment(case, epoch)
    replay_into(env, from_inspect(messages))
    return get_family(case.family).check(case, env.trace), env.trace


def planprobe_scorer(cases: dict[str, Case]) -> Any:
    _inspect()
    from inspect_ai.scorer import CORRECT, INCORRECT, Score, accuracy, scorer, stderr

    @scorer(metrics=[accuracy(), stderr()], name="planprobe_oracle")
    def make() -> Any:
        async def score(state: Any, target: Any) -> Any:
            case = cases[str(state.sample_id)]
            verdict, trace = judge_messages(case, state.messages, state.epoch)
            evidence = "; ".join(e.text for e in verdict.evidence[:3])
            return Score(value=CORRECT if verdict.passed else INCORRECT, answer=trace.final_answer or "",
                         explanation=", ".join(verdict.errors) + (f": {evidence}" if evidence else "") or "passed",
                         metadata={"errors": list(verdict.errors), "checker": verdict.checker})

        return score

    return make()


def planprobe_task(suite: Path, dataset: Path, message_limit: int | None = None) -> Any:
    """The Inspect ``Task`` for an exported suite."""
    _inspect()
    from inspect_ai import Task
    from inspect_ai.dataset import json_dataset
    from inspect_ai.solver import generate

    cases = load_cases(suite)
    samples = json_dataset(str(dataset))
    unknown = [s.id for s in samples if str(s.id) not in cases]
    if unknown:
        raise PlanprobeError(f"{dataset}: sample {unknown[0]!r} is not a case of {suite}")
    return Task(dataset=samples, solver=[planprobe_tools(cases), generate(tool_calls="loop")],
                scorer=planprobe_scorer(cases), message_limit=message_limit, name="planprobe")


def dataset_record(case: Case) -> str:
    """One line of the exported dataset, in Inspect's sample fields."""
    return json.dumps({"id": case.id, "input": case.task, "target": "",
                       "metadata": {"family": case.family}}, sort_keys=True, ensure_ascii=False)
