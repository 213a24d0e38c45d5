"""Critical-error detectors over AgentDebug trajectories (``errorbench`` records).

Each detector reads one trajectory (``messages`` + ``metadata``; never the formal
labels, except ``oracle``) and picks the critical step, its module and error type,
as AgentDebug's stage 2 answers (``critical_step``, ``critical_module``,
``error_type``, ``root_cause``, ``evidence``, ``correction_guidance``).

* ``oracle`` — the formal label (the upper bound: it must score 100%);
* ``random`` — a step, module and type drawn uniformly (seeded per trajectory): chance;
* ``direct`` — one prompt with the whole trajectory (the paper's Direct Prompting);
* ``agentdebug`` — stage 1: every module of every step checked against its
  taxonomy types (one prompt per step and module, as the official
  ``fine_grained_analysis.py``); stage 2: the annotated trajectory and one prompt
  for the earliest step whose correction would have flipped the outcome;
* ``brute-force`` / ``binary-search`` — the paper's search baselines, with a
  yes/no question to the model standing in for the re-rollout ("would the run
  succeed if the steps up to t were right?"): sequential from step 1, or halving.

Model replies are read as JSON leniently (the first ``{…}`` object); nothing a
model writes is ever evaluated. Prompts are this project's paraphrase of the
official ones, not copies.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import PlanprobeError
from ..lenient_json import first_object
from .taxonomy import TAXONOMY, find, modules, types_of

DETECTORS = ("agentdebug", "direct", "brute-force", "binary-search", "oracle", "random")
MODEL_DETECTORS = ("agentdebug", "direct", "brute-force", "binary-search")
STEP_MODULES = ("memory", "reflection", "planning", "action")


@dataclass
class Pick:
    step: int | None = None  # None: no readable answer
    module: str = ""
    type: str = ""
    root_cause: str = ""
    evidence: str = ""
    guidance: str = ""
    calls: int = 0  # model calls made
    tokens: int = 0
    stage1: list[dict[str, Any]] = field(default_factory=list)  # agentdebug's per step/module findings

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"critical_step": self.step, "critical_module": self.module, "error_type": self.type,
               "root_cause": self.root_cause, "evidence": self.evidence, "correction_guidance": self.guidance,
               "model_calls": self.calls, "tokens": self.tokens}
        if self.stage1:
            out["stage1"] = self.stage1
        return out


def check_detector(name: str) -> str:
    if name not in DETECTORS:
        raise PlanprobeError(f"unknown detector {name!r}: use one of {', '.join(DETECTORS)}")
    return name


def steps_of(record: dict[str, Any]) -> list[tuple[str, str]]:
    """(assistant text, the observation after it) per step, in order."""
    out: list[tuple[str, str]] = []
    msgs = record["messages"]
    for i, m in enumerate(msgs):
        if m["role"] != "assistant":
            continue
        obs = msgs[i + 1]["content"] if i + 1 < len(msgs) and msgs[i + 1]["role"] != "assistant" else ""
        out.append((m["content"], obs))
    return out


def last_step(record: dict[str, Any]) -> int:
    """The last step a critical step can name: the trajectory's last assistant message. On an
    answered run that is the answer (step T+1 after T actions); on a run stopped by the limit or
    a crash it is step T, where AgentDebug attributes the stop (``step_limit``) — errorbench caps
    the truth the same way, so a pick and the truth range over the same 1..n. 0 when the
    trajectory has no step (a run that never answered nor acted)."""
    return len(steps_of(record))


def task_of(record: dict[str, Any]) -> str:
    meta = record.get("metadata") or {}
    if meta.get("task"):
        return str(meta["task"])
    first = next((m["content"] for m in record["messages"] if m["role"] == "user"), "")
    return first


def _as_step(value: Any, last: int) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and re.fullmatch(r"\s*\d+\s*", value):
        value = int(value)
    return value if isinstance(value, int) and 1 <= value <= last else None


def pick_from(obj: dict[str, Any] | None, last: int) -> Pick:
    """A stage-2 style answer read field by field; unknown module/type kept empty."""
    if obj is None:
        return Pick()
    module = str(obj.get("critical_module", "")).strip().lower()
    etype = str(obj.get("error_type", "")).strip().lower()
    if module not in modules():
        module = ""
    if not module or find(module, etype) is None:
        etype = ""
    return Pick(step=_as_step(obj.get("critical_step"), last), module=module, type=etype,
                root_cause=str(obj.get("root_cause", ""))[:2000], evidence=str(obj.get("evidence", ""))[:2000],
                guidance=str(obj.get("correction_guidance", ""))[:2000])


# -- the detectors --------------------------------------------------------------------


def oracle_pick(record: dict[str, Any]) -> Pick:
    crit = record.get("critical_error")
    if crit is None and record.get("labels") is not None:
        return Pick()  # labelled, but the trajectory has no step to name (no action, no answer)
    if crit is None:
        raise PlanprobeError(f"trajectory {record.get('metadata', {}).get('task_id')!r}: the oracle detector needs "
                             "formal labels (write the file with planprobe errorbench)")
    t = find(crit["critical_module"], crit["error_type"])
    guidance = f"Avoid {t.paper_name or t.name}: {t.definition}" if t else ""
    return Pick(step=crit["critical_step"], module=crit["critical_module"], type=crit["error_type"],
                root_cause=crit.get("evidence", ""), evidence=crit.get("evidence", ""), guidance=guidance)


def random_pick(record: dict[str, Any], seed: int) -> Pick:
    """Uniform over the trajectory's steps 1..n (see ``last_step``) and over the taxonomy's (module, type)
    pairs; seeded per trajectory. No pick when there is no step."""
    if last_step(record) == 0:
        return Pick()
    key = f"{seed}:{record.get('metadata', {}).get('task_id')}:{len(record['messages'])}"
    rng = random.Random(int(hashlib.sha256(key.encode()).hexdigest()[:16], 16))
    t = rng.choice(TAXONOMY)
    return Pick(step=rng.randint(1, last_step(record)), module=t.module.value, type=t.name)


def _definitions(module: str) -> str:
    return "\n".join(f"- {t.name}: {t.definition}" for t in TAXONOMY if t.module.value == module)


def _all_definitions() -> str:
    return "\n".join(f"[{m}]\n{_definitions(m)}" for m in modules())


def _trajectory_text(record: dict[str, Any], notes: dict[int, list[str]] | None = None) -> str:
    parts = []
    for k, (act, obs) in enumerate(steps_of(record), start=1):
        parts.append(f"Step {k}:\nAgent: {act}\nEnvironment: {obs}")
        for n in (notes or {}).get(k, []):
            parts.append(f"  Error found: {n}")
    return "\n\n".join(parts)


ANSWER_FORMAT = ('{"critical_step": <number>, "critical_module": "<module>", "error_type": "<type>", '
                 '"root_cause": "<why this step made the task fail>", "evidence": "<words from the trajectory>", '
                 '"correction_guidance": "<what the agent should do instead>"}')


def direct_prompt(record: dict[str, Any]) -> str:
    return (f"An agent failed this task.\nTask: {task_of(record)}\n\nTrajectory:\n{_trajectory_text(record)}\n\n"
            f"Error types by module:\n{_all_definitions()}\n\n"
            "Name the earliest step whose mistake caused the failure, its module and its error type. "
            f"Reply with JSON only:\n{ANSWER_FORMAT}")


def module_prompt(record: dict[str, Any], step: int, module: str) -> str:
    """Stage 1: one module of one step, against that module's error types."""
    act, obs = steps_of(record)[step - 1]
    return (f"Task: {task_of(record)}\nYou check one part of step {step} of an agent's work.\n"
            f"What the agent wrote at this step:\n{act}\nWhat the environment answered:\n{obs}\n\n"
            f"Part to check: {module}\nIts possible errors:\n{_definitions(module)}\n\n"
            "Decide whether this part of the step shows one of these errors. Reply with JSON only: "
            '{"error_detected": true or false, "error_type": "<type or no_error>", "evidence": "<quote>", '
            '"reasoning": "<why>"}')


def critical_prompt(record: dict[str, Any], notes: dict[int, list[str]]) -> str:
    """Stage 2: the annotated trajectory; the earliest step whose correction flips the outcome."""
    return (f"An agent failed this task.\nTask: {task_of(record)}\n\n"
            f"Trajectory, with the errors found in each step:\n{_trajectory_text(record, notes)}\n\n"
            f"Error types by module:\n{_all_definitions()}\n\n"
            "For each step, imagine its errors corrected: would the task then have succeeded? The critical error is "
            "the EARLIEST step whose correction would have been enough; later errors that only follow from it are "
            f"not critical. Reply with JSON only:\n{ANSWER_FORMAT}")


def probe_prompt(record: dict[str, Any], upto: int) -> str:
    """The search baselines' question: is everything up to step ``upto`` still on a path to success?"""
    return (f"Task: {task_of(record)}\n\nThe first {upto} steps of an agent's attempt:\n"
            f"{_trajectory_text({'messages': _first_steps(record, upto)})}\n\n"
            f"If the agent acted perfectly from here on, could it still complete the task? Reply with JSON only: "
            '{"recoverable": true or false}')


def _first_steps(record: dict[str, Any], upto: int) -> list[dict[str, str]]:
    out, seen = [], 0
    for m in record["messages"]:
        if m["role"] == "assistant":
            seen += 1
            if seen > upto:
                break
        out.append(m)
    return out


class ModelDetector:
    """The detectors that ask a model; ``ask(prompt) -> (reply, tokens)`` is the only way out."""

    def __init__(self, name: str, ask):
        self.name, self.ask = name, ask

    async def _ask(self, pick: Pick, prompt: str) -> dict[str, Any] | None:
        text, tokens = await self.ask(prompt)
        pick.calls += 1
        pick.tokens += tokens
        return first_object(text)

    async def detect(self, record: dict[str, Any]) -> Pick:
        last = last_step(record)
        acc = Pick()
        if last == 0:
            return acc  # no step to name: nothing to ask
        if self.name == "direct":
            out = pick_from(await self._ask(acc, direct_prompt(record)), last)
        elif self.name == "agentdebug":
            notes: dict[int, list[str]] = {}
            for k in range(1, last + 1):  # every step the trajectory shows
                for module in STEP_MODULES:
                    obj = await self._ask(acc, module_prompt(record, k, module)) or {}
                    etype = str(obj.get("error_type", "")).strip().lower()
                    if obj.get("error_detected") is True and etype in types_of(module):
                        notes.setdefault(k, []).append(f"{module}/{etype}: {str(obj.get('reasoning', ''))[:300]}")
                        acc.stage1.append({"step": k, "module": module, "error_type": etype,
                                           "evidence": str(obj.get("evidence", ""))[:300]})
            out = pick_from(await self._ask(acc, critical_prompt(record, notes)), last)
        else:
            out = Pick(step=await self._search(acc, record, last))
        out.calls, out.tokens, out.stage1 = acc.calls, acc.tokens, acc.stage1
        return out

    async def _recoverable(self, acc: Pick, record: dict[str, Any], upto: int) -> bool:
        obj = await self._ask(acc, probe_prompt(record, upto)) or {}
        return obj.get("recoverable") is not False  # unreadable: no evidence of a dead end

    async def _search(self, acc: Pick, record: dict[str, Any], last: int) -> int:
        """The first step after which the run is judged unrecoverable; the last step when none
        before it is (the step that stopped the run, as AgentDebug attributes a stop)."""
        if self.name == "brute-force":
            for k in range(1, last):
                if not await self._recoverable(acc, record, k):
                    return k
            return last
        lo, hi = 1, last  # the answer lies in [lo, hi]
        while lo < hi:
            mid = (lo + hi) // 2
            if await self._recoverable(acc, record, mid):
                lo = mid + 1
            else:
                hi = mid
        return lo


class ModelAsker:
    """``ask`` over a planprobe model: temperature 0, no tools. Counts the calls answered from the
    record/replay cache, whose tokens are not spent again (so not counted), to say so in the summary."""

    def __init__(self, model: Any, max_tokens: int = 400):
        from ..models.base import ChatParams

        self.model = model
        self.params = ChatParams(temperature=0.0, seed=0, max_tokens=max_tokens, tool_choice="none")
        self.replayed = 0

    async def __call__(self, prompt: str) -> tuple[str, int]:
        from ..schema import Message

        result = await self.model.chat([Message(role="user", content=prompt)], None, self.params)
        self.replayed += bool(result.cached)
        usage = result.usage
        return result.message.content or "", (usage.prompt_tokens or 0) + (usage.completion_tokens or 0)


async def detect_one(name: str, record: dict[str, Any], seed: int = 0, ask=None) -> Pick:
    if name == "oracle":
        return oracle_pick(record)
    if name == "random":
        return random_pick(record, seed)
    if ask is None:
        raise PlanprobeError(f"--detector {name} needs a model: add --model local or --model openai:<model>")
    return await ModelDetector(name, ask).detect(record)


def run_detector(name: str, record: dict[str, Any], seed: int = 0, make_model=None) -> Pick:
    """One trajectory in its own event loop; ``make_model()`` gives a model bound to it (closed after)."""

    async def go() -> Pick:
        model = make_model() if make_model is not None and name in MODEL_DETECTORS else None
        try:
            return await detect_one(name, record, seed, ModelAsker(model) if model is not None else None)
        finally:
            if model is not None:
                await model.aclose()

    return asyncio.run(go())
