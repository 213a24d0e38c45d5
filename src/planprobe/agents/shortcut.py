"""``shortcut:<cue>`` reference agents: they act on a surface cue instead of planning.

A shortcut agent looks only at what any agent is shown (``cues.Visible``: task text
and tools). With a refusal cue it refuses when the cue's value is above a
threshold (``shortcut:<cue>`` uses the cue's default, ``shortcut:<cue>@<x>`` sets
it) and otherwise plays the no-planning baseline (the ``random`` agent's plan).
Two cues act instead of refusing: ``mention-order`` carries out the tasks in the
order the text first names them, ``cheapest`` takes every composite tool it can
and otherwise the cheapest-looking tools, in random order.

If a variant transform leaks its class, one of these agents beats chance; the
standing test (``tests/robust/test_shortcuts.py``) fails then.
"""

from __future__ import annotations

import json
import random
import re

from ..environment import Environment
from ..errors import PlanprobeError
from ..lenient_json import loads
from ..schema import Case
from ..suites.base import AnswersInText, PlannedCall, has_capability
from ..suites.registry import get_family
from .cues import CUES, REFUSE_TOOL, Visible
from .reference import FINAL_ANSWER, _answer, _execute, _rng

ACTING_CUES = ("mention-order", "cheapest")
REFUSAL_REASON = "A cue says the tasks cannot be done."
_COST = re.compile(r"Cost: (\d+) credits")


def cue_names() -> list[str]:
    return [*CUES, *ACTING_CUES]


def parse_shortcut(arg: str) -> tuple[str, float]:
    """``<cue>`` or ``<cue>@<threshold>`` → (cue, threshold); the default threshold is 0."""
    cue, _, raw = arg.partition("@")
    if cue not in CUES and cue not in ACTING_CUES:
        raise PlanprobeError(f"unknown cue {cue!r} in --agent shortcut:{arg}: choose one of {', '.join(cue_names())}")
    if not raw:
        return cue, 0.0
    try:
        return cue, float(raw)
    except ValueError:
        raise PlanprobeError(f"--agent shortcut:{arg}: the threshold after '@' must be a number") from None


def mention_order(case: Case, plan: list[PlannedCall]) -> list[PlannedCall]:
    """The plan's calls sorted by where the text first names each tool (unnamed ones last)."""
    low = Visible.of(case).requirement.lower()

    def first(call: PlannedCall) -> int:
        at = low.find(call.name.replace("_", " ").lower())
        return at if at >= 0 else len(low)

    return sorted(plan, key=first)


def _joined(tool_params: dict, first: PlannedCall, second: PlannedCall) -> str:
    """A composite's arguments from its two calls' when its schema prefixes them ``first_`` /
    ``second_`` (pddl composites, as their description says); else none."""
    props = tool_params.get("properties") or {}
    if not props:
        return "{}"
    out: dict = {}
    for prefix, call in (("first_", first), ("second_", second)):
        try:
            args = loads(call.arguments or "{}")
        except json.JSONDecodeError:
            continue
        if isinstance(args, dict):
            out.update({prefix + k: v for k, v in args.items() if prefix + k in props})
    return json.dumps(out)


def cheapest(case: Case, plan: list[PlannedCall], rng: random.Random) -> list[PlannedCall]:
    """Read prices off the descriptions; cover the plan's calls with the composites that say
    they do two of them when that is cheaper, ignoring order; shuffle."""
    tools = {t.name: t for t in case.tools}
    price = {n: int(m.group(1)) for n, t in tools.items() if (m := _COST.search(t.description))}
    needed = list(plan)
    out: list[PlannedCall] = []
    for name, tool in tools.items():
        m = re.match(r"Carries out (\S+) and then, immediately after it, (\S+), in one call", tool.description)
        if not m or name not in price:
            continue
        a, b = m.group(1), m.group(2)
        if price[name] >= price.get(a, 0) + price.get(b, 0):
            continue
        first = next((c for c in needed if c.name == a), None)
        if first is None:
            continue
        rest = list(needed)
        rest.remove(first)
        second = next((c for c in rest if c.name == b), None)
        if second is None:
            continue
        rest.remove(second)
        needed = rest
        out.append(PlannedCall(name, _joined(tool.parameters, first, second)))
    out += [PlannedCall(c.name, c.arguments) for c in needed]
    rng.shuffle(out)
    return out


class ShortcutAgent:
    def __init__(self, arg: str, seed: int = 0):
        self.cue, self.threshold = parse_shortcut(arg)
        self.seed = seed
        self.name = f"shortcut:{arg}"

    def refuses(self, case: Case) -> bool:
        if self.cue not in CUES or not any(t.name == REFUSE_TOOL for t in case.tools):
            return False
        return CUES[self.cue](Visible.of(case)) > self.threshold

    async def __call__(self, case: Case, env: Environment) -> str | None:
        family = get_family(case.family)
        rng = _rng("shortcut", case, env, self.seed)
        env.trace.meta["cue"] = self.cue
        if self.refuses(case):
            env.step()
            env.call(REFUSE_TOOL, json.dumps({"reason": REFUSAL_REASON}))
            env.finish(FINAL_ANSWER)
            return FINAL_ANSWER
        if has_capability(family, AnswersInText):
            return _answer(env, family.random_answer(case, rng))
        plan = family.random_plan(case, rng)
        if self.cue == "mention-order":
            plan = mention_order(case, plan)
        elif self.cue == "cheapest":
            plan = cheapest(case, plan, rng)
        return await _execute(env, plan)
