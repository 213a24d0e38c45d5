"""The agent contract.

An agent is an async callable ``agent(case, env) -> final answer | None``. It
reads ``case.task`` and ``env.tools``, acts only through ``env.call`` and calls
``env.step()`` once per iteration; everything it does lands in ``env.trace``.
The runner owns limits, timing and storage, so an agent is just its strategy.
"""

from __future__ import annotations

from typing import Protocol

from ..environment import Environment
from ..schema import Case


class Agent(Protocol):
    name: str

    async def __call__(self, case: Case, env: Environment) -> str | None: ...
