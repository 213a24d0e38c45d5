"""Where a re-rolled-out agent starts: the kept prefix of an earlier episode.

A re-rollout (``runner/rollout.py``) replays the first steps of a trace into a fresh
environment and hands the agent a ``Prefix``: the conversation as it stood after
those steps — with the guidance already appended as the last message, when there is
some — so the agent rebuilds its context from it and carries on. An agent that can
do this has ``resume(case, env, prefix)``; others cannot be re-rolled out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from ..environment import Environment
from ..schema import DEFAULT_ROLE, Case, Message, SubEpisode, ToolCall


@dataclass(frozen=True)
class Prefix:
    steps: int  # iterations already done (the environment's count starts from here)
    messages: list[Message]  # the episode's own messages so far, as logged (annotations kept)
    tool_calls: list[ToolCall]  # the calls replayed, with their results
    episodes: list[SubEpisode] = field(default_factory=list)  # sub-episodes begun in the prefix
    guidance: str | None = None  # the text inserted (also the last of ``messages`` for its role)

    def context(self, role: str = DEFAULT_ROLE) -> list[Message]:
        """One role's conversation as a model is sent it: its messages without annotations."""
        return [Message.model_validate(m.wire()) for m in self.messages if (m.agent or DEFAULT_ROLE) == role]


@runtime_checkable
class ResumableAgent(Protocol):
    name: str

    async def resume(self, case: Case, env: Environment, prefix: Prefix) -> str | None: ...


def can_resume(agent: object) -> bool:
    """Whether ``agent`` can continue from a prefix (a python: agent only if it takes ``prefix``)."""
    return isinstance(agent, ResumableAgent) and bool(getattr(agent, "resumable", True))
