"""Errors of the PDDL family.

Each one is a ``PlanprobeError``: the CLI prints its one-line message and exits
non-zero. They carry structured fields too, so callers (validators, response
parsers, the CLI's ``--json``) can report them without parsing the text.
"""

from __future__ import annotations

from ..errors import PlanprobeError


class PDDLSyntaxError(PlanprobeError):
    """A domain or problem file that is not valid (supported) PDDL.

    The message reads ``file:line:column: what was expected, what was found``.
    """

    def __init__(self, filename: str, line: int, column: int, message: str):
        self.filename, self.line, self.column, self.detail = filename, line, column, message
        super().__init__(f"{filename}:{line}:{column}: {message}")


class PlanStepError(PlanprobeError):
    """A plan step that does not name a ground action of the problem.

    ``kind`` is one of ``syntax``, ``unknown_action``, ``arity``, ``unknown_object``,
    ``type`` (and ``inapplicable`` from ``simulator.run``); ``step`` is the text as given.
    """

    def __init__(self, kind: str, step: str, reason: str):
        self.kind, self.step, self.reason = kind, step, reason
        super().__init__(f"{step}: {reason}" if step else reason)


class PlannerError(PlanprobeError):
    """The planner could not return a plan (see the subclasses for why)."""


class UnsolvableError(PlannerError):
    """The problem has no plan: the search space was exhausted (or the goal is
    unreachable even when delete effects are ignored)."""


class PlannerTimeoutError(PlannerError):
    """The planner hit its time or node limit before finding a plan."""


class NodeLimitError(PlannerTimeoutError):
    """The built-in planner hit its node (expansion) limit; a deterministic bound, unlike
    the time limit, so a caller may hand the task to another planner (``auto_planner``).
    ``limit`` is the limit in expansions, ``expanded`` how many states were expanded."""

    def __init__(self, message: str, *, limit: int = 0, expanded: int = 0):
        self.limit, self.expanded = limit, expanded
        super().__init__(message)


class PlannerUnavailableError(PlannerError):
    """An optional planner (Fast Downward) is not installed."""
