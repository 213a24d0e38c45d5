"""A constraint case in the form the environment, oracle and planners work on.

Built once per ``Case`` instance (``prepare(case)`` caches it on the case):
action indices instead of ids, constraints as tuples, and the words each
constraint came from, ready to quote in evidence.
"""

from __future__ import annotations

from ...errors import PlanprobeError
from ...schema import Case
from .solver import OrderClosure, predecessors, schedule
from .spec import RESTART_TOOL, ConstraintSpec, parse_spec
from .vocabulary import format_hour


class PreparedCase:
    def __init__(self, spec: ConstraintSpec, tool_params: dict[str, dict] | None = None, task: str = ""):
        self.spec = spec
        self.task = task
        self.tool_params = tool_params or {}  # tool name -> JSON schema of its arguments
        self.extended = spec.extended
        self.paper = spec.paper
        self.horizon = spec.horizon
        self.n = len(spec.actions)
        self.ids = [a.id for a in spec.actions]
        self.names = [a.name for a in spec.actions]
        self.tools = [a.tool for a in spec.actions]
        self.tool_index = {a.tool: i for i, a in enumerate(spec.actions)}
        self.durations = [a.duration or 0 for a in spec.actions]
        index = {a.id: i for i, a in enumerate(spec.actions)}
        self.orders: list[tuple[str, int, int]] = []
        self.windows: list[tuple[str, str, int, int]] = []
        self.by_id = {}
        for c in spec.constraints:
            self.by_id[c.id] = c
            if c.kind == "order":
                self.orders.append((c.id, index[c.a], index[c.later()]))
            else:
                self.windows.append((c.id, c.kind, index[c.a], c.bound()))
        self.index_of = index
        self.restart_tool = RESTART_TOOL if self.extended else None
        self._words: dict[str, tuple[str, str, str]] = {}

    # -- solving ----------------------------------------------------------

    def closure(self) -> OrderClosure:
        closure = OrderClosure.empty(self.n).extended((a, b) for _, a, b in self.orders)
        if closure is None:
            raise ValueError("the case's order constraints are contradictory")
        return closure

    def windows_arrays(self) -> tuple[list[int], list[int]]:
        release, deadline = [0] * self.n, [self.horizon] * self.n
        for _, kind, a, hour in self.windows:
            if kind == "start_ge":
                release[a] = max(release[a], hour)
            else:
                deadline[a] = min(deadline[a], hour)
        return release, deadline

    def solution(self) -> list[tuple[int, int | None]]:
        """A valid plan: [(action, start time or None), ...] in execution order."""
        if not self.extended:
            return [(a, None) for a in self.closure().linear_extension()]
        return list(self.timed_solution())

    def timed_solution(self) -> list[tuple[int, int]]:
        """A valid plan of an extended case: [(action, start time), ...] in execution order."""
        release, deadline = self.windows_arrays()
        plan = schedule(predecessors(self.closure().after), release, deadline, self.durations)
        if plan is None:
            raise ValueError("the case has no valid schedule")
        return plan

    # -- words --------------------------------------------------------------

    def words(self, cid: str) -> tuple[str, str, str]:
        """(symbolic, meaning, quote) of a constraint, built once: failing verdicts need them."""
        w = self._words.get(cid)
        if w is None:
            w = self._words[cid] = (self.symbolic(cid), self.meaning(cid), self.quote(cid))
        return w

    def symbolic(self, cid: str) -> str:
        c = self.by_id[cid]
        if c.kind == "order":
            if self.extended:
                return f"{c.a}_end <= {c.b}_start"
            return f"pos({c.a}) < pos({c.b})"
        if c.kind == "start_ge":
            return f"{c.a}_start >= {c.hour}"
        return f"{c.a}_end <= {c.hour}"

    def meaning(self, cid: str) -> str:
        c = self.by_id[cid]
        a = self.names[self.index_of[c.a]]
        if c.kind == "order":
            b = self.names[self.index_of[c.later()]]
            return f'"{a}" must come before "{b}"'
        if c.kind == "start_ge":
            return f'"{a}" must start at {format_hour(c.bound())} or later'
        return f'"{a}" must end by {format_hour(c.bound())}'

    def clause_text(self, k: int) -> str:
        start, end = self.spec.clauses[k]
        return self.task[start:end]

    def quote(self, cid: str) -> str:
        """Where the requirement says it, in its own words."""
        n = len(self.spec.clauses)
        return " / ".join(f'"{self.clause_text(k)}"' for k in self.by_id[cid].clauses if 0 <= k < n)


def prepare(case: Case) -> PreparedCase:
    return case.derived("constraints.prepared", _compile)


def _compile(case: Case) -> PreparedCase:
    try:
        spec = parse_spec(case)
    except PlanprobeError as exc:
        raise PlanprobeError(f"case {case.id!r}: {exc}") from None
    return PreparedCase(spec, {t.name: t.parameters for t in case.tools}, case.task)
