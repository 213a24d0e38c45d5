"""Plug in your own agent: any ``async def agent(case, env) -> str | None``.

``--agent python:my_module:my_agent`` or ``--agent python:path/to/file.py:my_agent``
imports it. The callable acts through ``env.call(name, arguments)`` and should
call ``env.step()`` once per iteration; what it returns is the final answer.
A plain (non-async) function is accepted too and runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import inspect
from pathlib import Path
from typing import Any, Callable, Optional

from ..environment import Environment
from ..errors import PlanprobeError
from ..schema import Case


class CallableAgent:
    def __init__(self, fn: Callable[..., Any], name: Optional[str] = None):
        self.fn = fn
        self.name = name or f"python:{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', 'agent')}"

    async def __call__(self, case: Case, env: Environment) -> Optional[str]:
        if inspect.iscoroutinefunction(self.fn) or inspect.iscoroutinefunction(getattr(self.fn, "__call__", None)):
            return await self.fn(case, env)
        result = await asyncio.to_thread(self.fn, case, env)
        if inspect.isawaitable(result):
            return await result
        return result


def load_callable(spec: str) -> CallableAgent:
    """'module:function' or 'path/to/file.py:function'."""
    target, sep, attr = spec.rpartition(":")
    if not sep or not target or not attr:
        raise PlanprobeError(f"--agent python:{spec}: expected python:<module or file.py>:<function>")
    if target.endswith(".py"):
        path = Path(target)
        if not path.exists():
            raise PlanprobeError(f"--agent python:{spec}: file not found: {path}")
        mod_spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(mod_spec)
        try:
            mod_spec.loader.exec_module(module)
        except Exception as exc:
            raise PlanprobeError(f"--agent python:{spec}: importing {path} failed: {exc}") from None
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as exc:
            raise PlanprobeError(f"--agent python:{spec}: cannot import {target!r}: {exc}") from None
    fn = getattr(module, attr, None)
    if fn is None or not callable(fn):
        raise PlanprobeError(f"--agent python:{spec}: {target} has no callable {attr!r}")
    return CallableAgent(fn, name=f"python:{spec}")
