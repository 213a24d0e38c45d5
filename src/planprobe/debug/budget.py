"""A run's iteration budget, in the unit its limit counts: iterations (``env.step()``).

The iteration limit (``--max-iterations``) counts iterations — a model call, or one
action of a scripted agent — not tool calls: an agent may make several calls in one
iteration, and a model agent spends one more iteration on its answer. The budget
point of no return and the minimum correction both ask "can the run still end
within its limit?", and both answer it here, in iterations, over the whole trace:

* each call keeps the iteration it was made in (``ToolCall.step``);
* played on perfectly, the run makes its further calls at its own best pace (the
  most calls it made in one iteration), filling the iteration it is in first;
* then it answers: one iteration for an agent that answers by a model reply (its
  trace has assistant messages), none for a scripted agent (it stops without one);
* a corrected run saves every iteration whose calls are all removed.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass

from ..schema import Trace, TraceStatus


@dataclass(frozen=True)
class Budget:
    limit: int | None  # the run's iteration limit; None: unknown, nothing is over it
    iteration: tuple[int, ...]  # the iteration of each call of the whole trace (1-based)
    pace: int  # the most calls made in one iteration (at least 1)
    answer: int  # iterations the answer costs after the last call (1: a model reply; 0: scripted)
    spent: int  # iterations the run spent before it ended (its answer, or where it was cut off)
    finished: bool  # the run stopped by itself (it was not cut off by a limit or a failure)

    @classmethod
    def of(cls, trace: Trace, limit: int | None) -> Budget:
        from ..runner.steps import with_steps

        calls = with_steps(trace).tool_calls
        running: list[int] = []
        for c in calls:  # iterations never go back (a hand-written trace could say so)
            running.append(max(1, c.step or 1, running[-1] if running else 1))
        iteration = tuple(running)
        pace = max(Counter(iteration).values(), default=1)
        answer = 1 if any(m.role == "assistant" for m in trace.messages) else 0
        last = iteration[-1] if iteration else 0
        finished = trace.status == TraceStatus.COMPLETED
        # a finished run spent all but its answer; a run cut off lost the iteration it was cut off in
        spent = max(last, trace.iterations - answer if finished else trace.iterations - 1)
        if limit is not None and not finished:
            spent = min(spent, max(limit, last))
        return cls(limit=limit, iteration=iteration, pace=pace, answer=answer, spent=spent, finished=finished)

    def slot(self, k: int) -> int:
        """Where call ``k`` (0-based) sits when every iteration holds ``pace`` calls: the
        calls before it in its iteration, after all the iterations before."""
        it = self.iteration[k]
        rank = sum(1 for j in range(k, -1, -1) if self.iteration[j] == it)
        return (it - 1) * self.pace + rank

    def over_after(self, k: int, more: float | None) -> bool:
        """After call ``k`` (0-based), with ``more`` calls still needed: can the run no longer
        end within the limit, even played perfectly? (``None``: undecided, so not over.)"""
        if self.limit is None or more is None:
            return False
        if math.isinf(more):
            return True
        return math.ceil((self.slot(k) + more) / self.pace) + self.answer > self.limit

    def saved(self, removed: Collection[int]) -> int:
        """Iterations a correction saves: those whose calls (0-based, whole trace) are all removed."""
        per = Counter(self.iteration)
        gone = Counter(self.iteration[k] for k in removed)
        return sum(1 for it, n in gone.items() if n == per[it])

    def needed(self, removed: Collection[int], more: int) -> int:
        """Iterations a corrected run needs: the calls kept, ``more`` further calls at the
        run's pace, and the answer."""
        return self.spent - self.saved(removed) + math.ceil(more / self.pace) + self.answer

    def fits(self, removed: Collection[int], more: int) -> bool:
        return self.limit is None or self.needed(removed, more) <= self.limit
