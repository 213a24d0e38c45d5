"""Named tables of extensions (families, agents, model backends) with plug-ins.

One ``Registry`` per kind. Built-ins are listed as ``"module:attribute"`` strings and
imported on first use, so the table imports none of them (no import cycles, a fast
start). Third-party packages add entries through an entry-point group
(``planprobe.families`` …), read the first time a name is not found or the whole
table is listed. A name is taken once: registering it again, built-in or not, is an
error, so a plug-in can never shadow a built-in or silently replace another plug-in.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable, Iterable
from importlib import metadata
from typing import Any, Generic, TypeVar

from .errors import PlanprobeError

T = TypeVar("T")
E = TypeVar("E")


class Registry(Generic[T]):
    """``kind`` names the entries in messages ("family"); ``check(name, obj)`` validates an
    object against the kind's Protocol and returns the entry to keep (it may build one
    from a class); ``builtins`` maps names to ``"module:attribute"``."""

    def __init__(self, kind: str, group: str, builtins: dict[str, str], check: Callable[[str, object], T]):
        self.kind = kind
        self.group = group
        self._builtins = dict(builtins)
        self._check = check
        self._entries: dict[str, T] = {}
        self._origin: dict[str, str] = {}  # name -> where it came from, for duplicate errors
        self._plugins_loaded = False

    # -- registering ----------------------------------------------------------

    def register(self, name: str, obj: object, origin: str = "register") -> T:
        if not isinstance(name, str) or not name:
            raise PlanprobeError(f"cannot register {self.kind} {name!r}: the name must be a non-empty string")
        if name in self._builtins:
            raise PlanprobeError(f"cannot register {self.kind} {name!r} ({origin}): a built-in {self.kind} has "
                                 "that name")
        if name in self._entries:
            raise PlanprobeError(f"cannot register {self.kind} {name!r} ({origin}): already registered by "
                                 f"{self._origin[name]}")
        entry = self._check(name, obj)
        self._entries[name] = entry
        self._origin[name] = origin
        return entry

    def unregister(self, name: str) -> None:
        """Remove a registered entry (tests, notebooks); built-ins always stay."""
        if name in self._builtins:
            raise PlanprobeError(f"{self.kind} {name!r} is built in and cannot be removed")
        self._entries.pop(name, None)
        self._origin.pop(name, None)

    # -- looking up -------------------------------------------------------------

    def get(self, name: str) -> T | None:
        """The entry, or None when no built-in, registered or installed plug-in has the name."""
        if name in self._builtins and name not in self._entries:
            self._load_builtin(name)
        if name not in self._entries and not self._plugins_loaded:
            self._load_plugins(self._entry_points(name))
        return self._entries.get(name)

    def all(self) -> dict[str, T]:
        """Every entry: built-ins first (in their order), then the rest as registered."""
        for name in self._builtins:
            if name not in self._entries:
                self._load_builtin(name)
        self.load_plugins()
        ordered = {name: self._entries[name] for name in self._builtins}
        ordered.update((name, entry) for name, entry in self._entries.items() if name not in ordered)
        return ordered

    def peek(self, name: str) -> T | None:
        """The entry if it is already loaded (a built-in is loaded now); never loads a plug-in."""
        if name in self._builtins and name not in self._entries:
            self._load_builtin(name)
        return self._entries.get(name)

    def names(self) -> list[str]:
        """Every name, without importing anything (for help texts): built-ins, registered
        entries, then installed plug-ins not loaded yet."""
        out = list(self._builtins)
        out += [n for n in self._entries if n not in out]
        out += [ep.name for ep in self._entry_points() if ep.name not in out]
        return out

    def builtin(self, name: str) -> bool:
        return name in self._builtins

    def load_plugins(self) -> None:
        if not self._plugins_loaded:
            self._plugins_loaded = True
            self._load_plugins(self._entry_points())

    # -- internals ----------------------------------------------------------------

    def _load_builtin(self, name: str) -> None:
        obj = _import(self._builtins[name])
        self._entries[name] = self._check(name, obj)
        self._origin[name] = "planprobe"

    def _entry_points(self, name: str | None = None) -> list[metadata.EntryPoint]:
        found = _installed_entry_points().select(group=self.group)
        return [ep for ep in found if name is None or ep.name == name]

    def _load_plugins(self, entry_points: Iterable[metadata.EntryPoint]) -> None:
        for ep in entry_points:
            dist = getattr(ep, "dist", None)
            origin = f"plug-in {ep.value} from {dist.name if dist is not None else '?'}"
            if self._origin.get(ep.name) == origin:
                continue  # already loaded (by name, before the whole group was)
            try:
                obj = ep.load()
            except Exception as exc:  # noqa: BLE001 -- a broken plug-in is named, never a traceback
                raise PlanprobeError(f"{self.kind} plug-in {ep.name!r} ({origin}, entry-point group {self.group}): "
                                     f"cannot be loaded: {type(exc).__name__}: {exc}") from None
            self.register(ep.name, obj, origin)


def _import(target: str) -> object:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def missing_members(obj: object, members: Iterable[str]) -> list[str]:
    """The members of a Protocol an object lacks, to say what a plug-in must add."""
    out = []
    for m in members:
        try:
            inspect.getattr_static(obj, m)
        except AttributeError:
            out.append(m)
    return out


def checked_entry(kind: str, name: str, obj: object, entry_type: type[E], key: str, mismatch: str) -> E:
    """``obj`` as an entry of ``entry_type`` registered under ``name``: its ``key`` field
    equals the name, the name has no ':' and no surrounding spaces, its factory is
    callable. The one-line errors name the kind and the name ("agent 'x': ...")."""
    if not isinstance(obj, entry_type):
        article = "an" if entry_type.__name__[:1] in "AEIOU" else "a"
        raise PlanprobeError(f"{kind} {name!r}: expected {article} {entry_type.__name__} "
                             f"(planprobe.{entry_type.__name__}), got {type(obj).__name__} (see docs/extending.md)")
    value = getattr(obj, key)
    if value != name:
        raise PlanprobeError(f"{kind} {name!r}: {mismatch} {value!r}; the two must be equal")
    if ":" in name or not name.strip() or name != name.strip():
        raise PlanprobeError(f"{kind} {name!r}: a {key} has no ':' and no surrounding spaces")
    if not callable(getattr(obj, "factory", None)):
        raise PlanprobeError(f"{kind} {name!r}: its factory is not callable")
    return obj


_SCANNED: dict[tuple[str, ...], Any] = {}  # EntryPoints (SelectableGroups on Python 3.10)


def _installed_entry_points() -> Any:
    """Every installed distribution's entry points, read once per ``sys.path``: each read scans
    every distribution (~50 ms in a large environment), and the agents', models' and families'
    registries all ask at start-up (issue #30)."""
    key = tuple(sys.path)
    if key not in _SCANNED:
        _SCANNED.clear()
        _SCANNED[key] = metadata.entry_points()
    return _SCANNED[key]
