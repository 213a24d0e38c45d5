"""Plug in your own agent: any ``async def agent(case, env) -> str | None``.

``--agent python:my_module:my_agent`` or ``--agent python:path/to/file.py:my_agent``
imports it. The callable acts through ``env.call(name, arguments)`` and should
call ``env.step()`` once per iteration; what it returns is the final answer.
A plain (non-async) function is accepted too and runs in a worker thread.

Optional keyword parameters, passed only to a function that declares them by name:
``models`` (the ``--model`` role map, ``models.roles.RoleModels``, or None), ``params``
(the sampling settings, ``ChatParams``) and ``prefix`` (an ``agents.prefix.Prefix`` when
the episode is a re-rollout, else None: continue from ``prefix.messages``, whose last one
is the inserted guidance, if any).
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..environment import Environment
from ..errors import PlanprobeError
from ..schema import Case

OPTIONAL_KEYWORDS = ("models", "params", "prefix")


def _declared(fn: Callable[..., Any]) -> frozenset[str]:
    """The optional keywords ``fn`` names in its signature."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return frozenset()
    return frozenset(k for k in OPTIONAL_KEYWORDS if k in params)


class CallableAgent:
    def __init__(self, fn: Callable[..., Any], name: str | None = None, models: Any = None, params: Any = None):
        self.fn = fn
        self.name = name or f"python:{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', 'agent')}"
        self.models = models
        self.params = params
        self.declared = _declared(fn)

    @property
    def resumable(self) -> bool:
        """Whether it can continue a re-rollout: it takes ``prefix``."""
        return "prefix" in self.declared

    async def __call__(self, case: Case, env: Environment) -> str | None:
        return await self._run(case, env, None)

    async def resume(self, case: Case, env: Environment, prefix: Any) -> str | None:
        return await self._run(case, env, prefix)

    async def _run(self, case: Case, env: Environment, prefix: Any) -> str | None:
        values = {"models": self.models, "params": self.params, "prefix": prefix}
        kwargs = {k: values[k] for k in self.declared}
        # an object with an async __call__ is awaited too (the bound method itself is inspected)
        if inspect.iscoroutinefunction(self.fn) or inspect.iscoroutinefunction(getattr(self.fn, "__call__", None)):  # noqa: B004
            return await self.fn(case, env, **kwargs)
        result = await asyncio.to_thread(self.fn, case, env, **kwargs)
        if inspect.isawaitable(result):
            return await result
        return result


def import_named_module(target: str) -> Any:
    """The module the user named on the command line, found as ``python -m`` would find it:
    with the current directory first on the import path (the ``planprobe`` script's own
    path does not have it), for this import only, so ``my_agents`` next to the user's shell
    is found and nothing else planprobe imports later is looked up there."""
    cwd = str(Path.cwd())
    added = cwd not in sys.path and "" not in sys.path
    if added:
        sys.path.insert(0, cwd)
        importlib.invalidate_caches()
    try:
        return importlib.import_module(target)
    finally:
        if added and cwd in sys.path:
            sys.path.remove(cwd)


def load_attribute(spec: str, kind: str = "python", shape: str = "<module or file.py>:<function>") -> Any:
    """The object ``spec`` ('module:name' or 'path/to/file.py:name') names, for ``--agent
    KIND:spec``; one line naming the spec when the module or the name is not there."""
    target, sep, attr = spec.rpartition(":")
    if not sep or not target or not attr:
        raise PlanprobeError(f"--agent {kind}:{spec}: expected {kind}:{shape}")
    if target.endswith(".py"):
        path = Path(target)
        if not path.exists():
            raise PlanprobeError(f"--agent {kind}:{spec}: file not found: {path}")
        mod_spec = importlib.util.spec_from_file_location(path.stem, path)
        if mod_spec is None or mod_spec.loader is None:
            raise PlanprobeError(f"--agent {kind}:{spec}: cannot load {path}")
        module = importlib.util.module_from_spec(mod_spec)
        try:
            mod_spec.loader.exec_module(module)
        except Exception as exc:  # noqa: BLE001 -- whatever the user's file raises becomes one line
            raise PlanprobeError(f"--agent {kind}:{spec}: importing {path} failed: {exc}") from None
    else:
        try:
            module = import_named_module(target)
        except ImportError as exc:
            raise PlanprobeError(f"--agent {kind}:{spec}: cannot import {target!r}: {exc}") from None
    if not hasattr(module, attr):
        raise PlanprobeError(f"--agent {kind}:{spec}: {target} has no {attr!r}")
    return getattr(module, attr)


def load_callable(spec: str, models: Any = None, params: Any = None) -> CallableAgent:
    """'module:function' or 'path/to/file.py:function'."""
    fn = load_attribute(spec)
    if fn is None or not callable(fn):
        raise PlanprobeError(f"--agent python:{spec}: {spec.rpartition(':')[0]} has no callable "
                             f"{spec.rpartition(':')[2]!r}")
    return CallableAgent(fn, name=f"python:{spec}", models=models, params=params)
