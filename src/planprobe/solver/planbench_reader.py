"""The solver's task reader for PlanBench's eight text tasks (family ``planbench``).

From the prompt alone: the domain is rebuilt from its description (``planbench_domain``), the
query — the last ``[STATEMENT]`` — is read with the domain's fact and plan-line phrases, and the
PDDL toolkit (parser, planner, validator) answers what the query asks, in the layout the worked
examples show:

* a plan (t1, t4, t5, t8: greedy search, any valid plan; t2, which asks to "minimize the time
  taken": optimal A*): its lines, then ``[PLAN END]``; a goal the planner proves unreachable (both
  searches are complete) is refused (``REFUSE:``);
* t6: the state after the executed prefix changed by the unexpected event, and a plan from there;
* t3: the verdict, with the unmet goal facts or the failing step and its unmet preconditions;
* t7: every fact of the state the executed sequence leads to.

A description or statement it cannot read gives ``underspecified`` naming what (a finding about
the family). It imports nothing of the family, its renderer or its reply parser.
"""

from __future__ import annotations

import re

from ..errors import PlanprobeError
from ..pddl.errors import UnsolvableError
from ..pddl.grounding import GroundProblem, ground
from ..pddl.model import Atom
from ..pddl.parser import parse_domain, parse_problem
from ..pddl.planner import solve
from ..pddl.satisficing import greedy_plan
from ..pddl.validator import Outcome, validate
from .base import ChatView, Decision
from .planbench_domain import Reading, Unreadable, read_domain

_FACTS_END = re.compile(r"\.\s*(?:I want to minimize[^\n]*)?\s*$")


class _Query:
    """The query's problem, read with the domain's phrases; objects get PDDL-safe names."""

    def __init__(self, reading: Reading):
        self.r = reading
        self.names: dict[str, str] = {}  # text name → pddl name
        self.text: dict[str, str] = {}

    def obj(self, name: str) -> str:
        key = name.lower()
        if key not in self.names:
            self.names[key] = f"o{len(self.names)}"
            self.text[self.names[key]] = name
        return self.names[key]

    def fact(self, item: str) -> Atom:
        for pred, phrase in self.r.facts.items():
            m = phrase.regex().match(item.strip())
            if m:
                slots = phrase.slots()
                args = [""] * len(slots)
                for k, s in enumerate(slots):
                    args[s] = m.group(k + 1)
                return Atom(pred, tuple(self.obj(a) for a in args))
        raise Unreadable(f"a fact the domain's description does not define: {item!r}")

    def facts(self, text: str) -> list[Atom]:
        items = [t for t in re.split(r",\s*|\s+and\s+", text.strip().rstrip(".")) if t.strip()]
        return [self.fact(t) for t in items]

    def step(self, line: str) -> str:
        for name, (phrase, _) in self.r.actions.items():
            m = phrase.regex().match(" ".join(line.split()).rstrip("."))
            if m:
                slots = phrase.slots()
                args = [""] * len(slots)
                for k, s in enumerate(slots):
                    args[s] = self.obj(m.group(k + 1))
                if self.r.typed and any(self._type(a) != t for a, t in zip(args, self.r.actions[name][1].params)):
                    continue
                return f"({name} {' '.join(args)})"
        raise Unreadable(f"a plan line that names no action of the description: {line!r}")

    def _type(self, pddl_name: str) -> str:
        prefix = re.match(r"[a-z]+", self.text[pddl_name].lower())
        t = self.r.type_of.get(prefix.group(0)) if prefix else None
        if t is None:
            raise Unreadable(f"the type of object {self.text[pddl_name]!r} is not stated")
        return t

    def ground(self, init: list[Atom], goal: list[Atom]) -> GroundProblem:
        domain = parse_domain(self.r.pddl(), "read-from-prompt")

        def lit(a: Atom) -> str:
            return f"({a.predicate}{''.join(' ' + x for x in a.args)})"

        objs = " ".join(f"{o} - {self._type(o)}" if self.r.typed else o for o in sorted(self.text))
        text = (f"(define (problem query) (:domain solver-read) (:objects {objs})\n (:init {' '.join(map(lit, init))})"
                f"\n (:goal (and {' '.join(map(lit, goal))})))")
        return ground(parse_problem(text, domain, "read-from-prompt"))

    def say_fact(self, a: Atom) -> str:
        return self.r.facts[a.predicate].render(tuple(self.text[x] for x in a.args))

    def say_step(self, step: str) -> str:
        words = step.strip("()").split()
        return self.r.actions[words[0]][0].render(tuple(self.text[x] for x in words[1:]))


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _between(text: str, start: str, end: str) -> str:
    i = text.index(start) + len(start)
    return text[i:text.index(end, i)]


class PlanBenchReader:
    """The ``TaskReader`` for PlanBench's text tasks."""

    name = "planbench"

    def claims(self, view: ChatView) -> bool:
        return not view.tools and "[STATEMENT]" in view.task and "As initial conditions I have that" in view.task

    def decide(self, view: ChatView) -> Decision:
        try:
            return self._decide(view.task)
        except Unreadable as exc:
            return Decision(underspecified=str(exc))

    def _decide(self, task: str) -> Decision:
        description, _, _ = task.partition("[STATEMENT]")
        q = _Query(read_domain(description))
        query = task[task.rindex("[STATEMENT]"):]
        m = re.search(r"As initial conditions I have that, (.*?)\.\s*\n", query)
        if m is None:
            raise Unreadable("the query states no initial conditions")
        init = q.facts(m.group(1))
        g = re.search(r"My goal is to have that (.*?)\.(?: I want to minimize[^\n]*)?\s*\n", query)
        goal = q.facts(g.group(1)) if g else []
        # the kind of question, from the query's own markers (text a scaffold appends does not matter)
        if "[ACTION SEQUENCE]" in query and "[RESULTING STATE]" in query:
            steps = [q.step(s) for s in _between(query, "[ACTION SEQUENCE]", "[ACTION SEQUENCE END]").splitlines()
                     if s.strip()]
            result = validate(q.ground(init, goal), steps)
            return Decision(answer=_join([q.say_fact(a) for a in sorted(result.state_atoms, key=str)]))
        if g is None:
            raise Unreadable("the query states no goal")
        if "[VERIFICATION]" in query:
            steps = [q.step(s) for s in _between(query, "[PLAN]", "[PLAN END]").splitlines() if s.strip()]
            return Decision(answer=self._verify(q, q.ground(init, goal), steps))
        if "[PLAN]" not in query:
            raise Unreadable("the query asks for none of a plan, a verification or a resulting state")
        gp = q.ground(init, goal)
        if "unexpected event" in query:
            gp = q.ground(self._after_event(q, gp, query), goal)
        optimal = "I want to minimize" in query  # t2: the fastest plan, all actions taking the same time
        try:
            plan = (solve(gp, heuristic="lmcut", time_limit=60) if optimal else greedy_plan(gp, time_limit=60)).steps
        except UnsolvableError:
            return Decision(refuse="No plan can achieve the goal: it cannot be reached from the initial conditions.")
        except PlanprobeError as exc:
            raise Unreadable(f"the planner found no plan: {exc}") from exc
        return Decision(answer="\n".join([q.say_step(s) for s in plan] + ["[PLAN END]"]))

    def _verify(self, q: _Query, gp: GroundProblem, steps: list[str]) -> str:
        result = validate(gp, steps)
        if result.outcome is Outcome.VALID:
            return "The above plan is valid."
        if result.outcome is Outcome.GOAL_NOT_REACHED:
            unmet = [q.say_fact(lit.atom) for lit in result.unmet_goals if lit.positive]
            return "The above plan is invalid. This is the unmet goal condition:\n" + _join(unmet)
        unmet = [q.say_fact(lit.atom) for lit in result.unmet_preconditions if lit.positive]
        return (f"The above plan is invalid. The following action at step {result.step} has unmet preconditions:\n"
                f"{q.say_step(steps[(result.step or 1) - 1])}\nThe unmet preconditions are:\n{_join(unmet)}")

    def _after_event(self, q: _Query, gp: GroundProblem, query: str) -> list[Atom]:
        steps = [q.step(s) for s in _between(query, "[PLAN]", "[PLAN END]").splitlines() if s.strip()]
        m = re.search(r'After executing the action "(.*?)" at step (\d+) in the plan, the following facts '
                      r"unexpectedly became true: (.*?)\n", query)
        f = re.search(r"The following facts became unexpectedly false: (.*?)\n", query)
        if m is None:
            raise Unreadable("the unexpected event is not stated in a form the reader knows")
        k = int(m.group(2))
        state = set(validate(gp, steps[:k]).state_atoms)
        gone = set(q.facts(f.group(1))) if f else set()
        return sorted((state | set(q.facts(m.group(3)))) - gone, key=str)


READER = PlanBenchReader()
