"""The solver's task reader for constraint cases (PDoctor's family: both styles, both modes, and
the robustness variants built on them).

From the chat view alone — the task text, the tool schemas and the calls made so far with their
results — it finds the tasks and their tools (``constraints_tools``), reads the requirement
(``constraints_text``), learns durations from tool results as a model does, and plans the next
call (``constraints_plan``):

* basic mode: the next task of an order that keeps every "before";
* extended mode: the next task and its start hour, planned with the durations seen so far (a
  guess for one not yet seen); when what this attempt ran can no longer be completed even if every
  unseen task takes 1 hour, it calls the restart tool; when the durations it knows make the
  requirement impossible, it refuses;
* variants: a tool that failed is replaced by its twin (same description); a task no tool carries
  out, a parameter whose value the text says is not known, or a requirement that contradicts
  itself is refused; with prices, the cheapest plan (composites included), restarting once the
  durations are known if the attempt it ran was not the cheapest;
* when every task has run: a final answer listing what ran.

It imports nothing of the family, the agents or the runner (``tests/solver``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .base import ChatView, Decision, Observed, Step
from .constraints_plan import (
    Bounds,
    cheapest_completion,
    order_completion,
    prefix_problem,
    schedule_completion,
)
from .constraints_protocol import (
    Protocol,
    holistic_answer,
    read_protocol,
    stepwise_answer,
)
from .constraints_text import read_requirement
from .constraints_tools import START, Setting, setting

GUESS = 2  # hours guessed for a task whose duration no result has shown yet ("one or more")
# errors about the call itself (unknown tool, arguments that are not JSON or do not fit the schema):
# the call was wrong, the tool is not broken
_CALL_ERRORS = ("Error: there is no tool", "Error: the arguments of", "Error: invalid arguments")
_DURATION = re.compile(r"\b(?:took|takes) (\d+) hours?\b")


@dataclass
class Attempt:
    """What the current attempt ran (task, start, duration; basic mode 0, 0), what it cost, every
    duration seen in any attempt, and the tools that failed."""

    runs: list[tuple[int, int, int]]
    cost: int
    durations: dict[int, int]
    failed: set[str]


def _granted(o: Observed) -> bool:
    text = o.result.lower()
    return not text.startswith("error") and ("granted" in text or "start over" in text)


def _start(o: Observed) -> int | None:
    value = o.step.arguments.get(START)
    try:
        return int(value) if value is not None and not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None


def _duration_of(result: str, name: str, alone: bool) -> int | None:
    m = re.search(re.escape(name[:1].upper() + name[1:]) + r" (?:took|takes) (\d+) hours?\b", result)
    if m is None and alone:
        m = _DURATION.search(result)
    return int(m.group(1)) if m else None


def read_history(s: Setting, history: Sequence[Observed]) -> Attempt:
    task_of = s.task_of()
    combos = {tool: (a, b) for tool, a, b in s.composites}
    at = Attempt([], 0, dict(s.durations), set())
    for o in history:
        if s.restart is not None and o.step.tool == s.restart:
            if _granted(o):
                at.runs, at.cost = [], 0
            continue
        if o.result.lower().startswith("error"):
            if not o.result.startswith(_CALL_ERRORS):  # the service failed, not the call's form
                at.failed.add(o.step.tool)
            continue
        tasks = combos.get(o.step.tool) or ((task_of[o.step.tool],) if o.step.tool in task_of else ())
        if not tasks:
            continue
        at.cost += s.costs.get(o.step.tool, 0)
        if not s.extended:
            at.runs += [(k, 0, 0) for k in tasks]
            continue
        start = _start(o)
        for k in tasks:
            d = _duration_of(o.result, s.names[k], len(tasks) == 1)
            if d is None or start is None:
                break
            at.durations[k] = d
            at.runs.append((k, start, d))
            start += d
    return at


def _simulated(s: Setting, step: Step) -> str:
    """What a tool answers when it runs, as far as the view tells (planning protocols)."""
    tasks = [a for tool, a, b in s.composites if tool == step.tool] + [
        b for tool, a, b in s.composites if tool == step.tool]
    task_of = s.task_of()
    if step.tool in task_of:
        tasks = [task_of[step.tool]]
    out = []
    for k in tasks:
        name = s.names[k][:1].upper() + s.names[k][1:]
        d = s.durations.get(k)
        out.append(f"{name} took {d} hour{'s' if d != 1 else ''}." if s.extended and d else f"{name} has been done.")
    return " ".join(out)


def _hour(h: int) -> str:
    return f"{h:02d}:00"


class ConstraintReader:
    """The ``TaskReader`` for constraint cases."""

    name = "constraints"

    def claims(self, view: ChatView) -> bool:
        protocol = read_protocol(view.task or "")
        tools = protocol.tools if protocol is not None and not view.tools else view.tools
        return isinstance(setting(view.system, view.task, tools), Setting)

    def decide(self, view: ChatView) -> Decision:
        protocol = read_protocol(view.task or "")
        if protocol is None:
            return self.execute(view)
        return self.plan_ahead(view, protocol)

    def plan_ahead(self, view: ChatView, protocol: Protocol) -> Decision:
        """A planning protocol: play the plan forward on the durations the descriptions state
        (each call's result is what the tool says it does) and write it down."""
        tools = view.tools or protocol.tools
        s = setting(view.system, view.task, tools)
        if not isinstance(s, Setting):
            return Decision(underspecified=s)
        history = protocol.prefix
        failed = {o.step.tool for o in history if o.result.lower().startswith("error")}
        twins = [n for n, c in zip(s.names, s.choices) if len([t for t in c if t not in failed]) > 1]
        if twins:
            return Decision(underspecified=(
                f'several tools carry out "{twins[0]}" and nothing runs to show which of them works'))
        untimed = [n for k, n in enumerate(s.names) if s.extended and s.choices[k] and k not in s.durations]
        if untimed:
            return Decision(underspecified=(
                "nothing runs and no tool description states how long these tasks take: "
                + ", ".join(f'"{n}"' for n in untimed)))
        calls: list[Step] = []
        for _ in range(4 * len(s.names) + 4):
            d = self.execute(ChatView(view.system, view.task, tools, history))
            if d.refuse is not None and s.refuse is not None:  # the refusal is a step of the plan
                calls.append(Step(s.refuse, {"reason": d.refuse}))
                break
            if not d.calls:
                if d.answer is None:
                    return d
                break
            for step in d.calls:
                calls.append(step)
                history = (*history, Observed(step, _simulated(s, step)))
        if protocol.mode == "holistic":
            return Decision(answer=holistic_answer(calls, "Run every task once, in an order (and at hours) that "
                                                          "meets every requirement."))
        return Decision(answer=stepwise_answer(calls[:protocol.steps]))

    def execute(self, view: ChatView) -> Decision:
        s = setting(view.system, view.task, view.tools)
        if not isinstance(s, Setting):
            return Decision(underspecified=s)
        reading = read_requirement(s.requirement, s.names)
        if reading.problem:
            return Decision(underspecified=reading.problem)
        if reading.unnamed:
            return Decision(refuse=f'The requirement names "{reading.unnamed[0]}", which no tool carries out.')
        gone = [n for n, c in zip(s.names, s.choices) if not c]
        if gone:
            return Decision(refuse=f'No tool carries out the task "{gone[0]}".')
        # a text that does not list its tasks (the paper's templates) gives every task a tool named
        # after it and nothing else: each tool that reads as an activity is a task, mentioned by the
        # requirement or not (a variant that adds other tools lists the tasks)
        at = read_history(s, view.history)
        tools: list[str] = []
        for name, choice in zip(s.names, s.choices):
            usable = [t for t in choice if t not in s.unknown_args]
            if not usable:
                return Decision(refuse=f'"{name}" needs {s.unknown_args[choice[0]]}, and the task says it is '
                                       "not known (or never gives it).")
            working = [t for t in usable if t not in at.failed]
            if not working:
                return Decision(refuse=f'Every tool that carries out "{name}" failed.')
            tools.append(working[0])
        bounds = Bounds.of(len(s.names), reading.atoms)
        plan = _Plan(s, bounds, at, tools)
        return plan.timed() if s.extended else plan.basic()


class _Plan:
    """The next move, given the setting, the constraints and the attempt so far."""

    def __init__(self, s: Setting, bounds: Bounds, at: Attempt, tools: list[str]):
        self.s, self.bounds, self.at, self.tools = s, bounds, at, tools
        self.priced = bool(s.costs)
        self.combos = [(a, b, s.costs.get(tool, 0)) for tool, a, b in s.composites if s.costs]
        self.price = [s.costs.get(t, 0) for t in tools]

    def call(self, move: tuple[int, int]) -> Decision:
        k, start = move
        tool = self.tools[k] if k >= 0 else self.s.composites[-1 - k][0]
        args: dict[str, object] = dict(self.s.extra_args.get(tool, {}))
        if self.s.extended:
            args[START] = start
        return Decision(calls=(Step(tool, args),))

    def restart(self, why: str) -> Decision:
        if self.s.restart is None:
            return Decision(refuse=f"{why}, and no restart is offered.")
        return Decision(calls=(Step(self.s.restart, {}),))

    def done(self) -> Decision:
        if not self.s.extended:
            return Decision(answer="All tasks have been executed, in this order: " + "; ".join(
                f"{i + 1}. {self.s.names[k]}" for i, (k, _, _) in enumerate(self.at.runs)) + ".")
        return Decision(answer="All tasks have been executed: " + "; ".join(
            f"{self.s.names[k]} from {_hour(a)} to {_hour(a + d)}" for k, a, d in self.at.runs) + ".")

    def basic(self) -> Decision:
        if order_completion(self.bounds, []) is None:
            return Decision(refuse="The requirement cannot be met: its order constraints form a cycle.")
        done = list(dict.fromkeys(k for k, _, _ in self.at.runs))
        if self.priced:
            found = cheapest_completion(self.bounds, [1] * len(self.tools), done, 0, self.price, self.combos,
                                        timed=False)
            if found is not None and found[1]:
                return self.call(found[1][0])
        rest = order_completion(self.bounds, done)
        if rest is None:  # what ran already broke an order; the remaining tasks still run once
            rest = [k for k in range(len(self.tools)) if k not in done]
        return self.call((rest[0], 0)) if rest else self.done()

    def timed(self) -> Decision:
        n, at = len(self.tools), self.at
        known = [at.durations.get(k, 1) for k in range(n)]
        if schedule_completion(self.bounds, known, [], 0) is None:
            what = "with the durations the tools revealed" if at.durations else "by any schedule"
            return Decision(refuse=f"The requirement cannot be met {what}.")
        done = [k for k, _, _ in at.runs]
        now = at.runs[-1][1] + at.runs[-1][2] if at.runs else 0
        problem = prefix_problem(self.bounds, at.runs)
        if problem:
            return self.restart("The requirement can no longer be met")
        if len(done) == n:
            if self.priced and len(at.durations) == n:
                best = cheapest_completion(self.bounds, known, [], 0, self.price, self.combos, timed=True)
                if best is not None and best[0] < at.cost and self.s.restart is not None:
                    return self.restart("A cheaper plan exists")
            return self.done()
        top = max(max(at.durations.values(), default=1), GUESS)
        for guess in range(top, 0, -1):  # long guesses first: orders that survive longer tasks
            durations = [at.durations.get(k, guess) for k in range(n)]
            if self.priced:
                found = cheapest_completion(self.bounds, durations, done, now, self.price, self.combos, timed=True)
                if found is not None:
                    return self.call(found[1][0])
                continue
            plan = schedule_completion(self.bounds, durations, done, now)
            if plan:
                return self.call(plan[0])
        return self.restart("The requirement can no longer be met")


READER = ConstraintReader()
