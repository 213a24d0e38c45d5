"""Model backends by the kind in ``--model KIND[:NAME]``: the built-ins (``local``,
``openai``), those added with ``register_model``, and plug-ins from the entry-point
group ``planprobe.models``. What the runner must know about a backend (it serves one
call at a time) is part of its entry, not a check of its name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import PlanprobeError
from ..plugins import Registry, checked_entry
from .base import Model

if TYPE_CHECKING:
    from . import ModelOptions

GROUP = "planprobe.models"

ModelFactory = Callable[[str, "ModelOptions"], Model]


@dataclass(frozen=True)
class ModelEntry:
    """``factory(name, options)`` builds the model for ``--model kind:name`` (name "" when
    ``takes_name`` is False). ``serial``: the backend answers one call at a time, so cases
    run one at a time (waiting would count against each case's time limit). ``cacheable``:
    wrap it in the record/replay cache (off for backends that answer instantly and offline,
    where a cache would only cost disk and time)."""

    kind: str
    factory: ModelFactory
    takes_name: bool = True
    serial: bool = False
    help: str = ""
    cacheable: bool = True

    @property
    def usage(self) -> str:
        return f"{self.kind}:<model>" if self.takes_name else self.kind


def _as_entry(kind: str, obj: object) -> ModelEntry:
    return checked_entry("model", kind, obj, ModelEntry, "kind", "its entry is for kind")


BUILTIN_MODELS = {
    "local": "planprobe.models.builtin:LOCAL",
    "openai": "planprobe.models.builtin:OPENAI",
    "litellm": "planprobe.models.builtin:LITELLM",
    "solver": "planprobe.solver.backend:ENTRY",  # a string, not an import: models/ never imports solver/
}
_REGISTRY: Registry[ModelEntry] = Registry("model", GROUP, BUILTIN_MODELS, _as_entry)


def register_model(kind: str | ModelEntry, factory: ModelFactory | None = None, *, takes_name: bool = True,
                   serial: bool = False, help: str = "") -> Any:
    """Add a ``--model`` kind: ``register_model(ModelEntry(...))``, ``register_model("x", factory, …)``
    or ``@register_model("x")`` on the factory. The kind must be new (built-ins always stay)."""
    if isinstance(kind, ModelEntry):
        return _REGISTRY.register(kind.kind, kind)
    if factory is None:
        def decorate(fn: ModelFactory) -> ModelFactory:
            register_model(kind, fn, takes_name=takes_name, serial=serial, help=help)
            return fn

        return decorate
    _REGISTRY.register(kind, ModelEntry(kind, factory, takes_name, serial, help))
    return factory


def unregister_model(kind: str) -> None:
    """Remove a registered model kind (tests, notebooks); built-ins always stay."""
    _REGISTRY.unregister(kind)


def model_choices(separator: str = " or ", described: bool = False) -> str:
    """The kinds as the help and errors show them, importing no plug-in."""
    out = []
    for kind in _REGISTRY.names():
        entry = _REGISTRY.peek(kind)
        text = entry.usage if entry is not None else f"{kind}[:<model>]"
        out.append(f"{text} ({entry.help})" if described and entry is not None and entry.help else text)
    return separator.join(out)


def model_entry(spec: str) -> ModelEntry:
    """The entry for a ``--model`` value; the name part is checked against ``takes_name``."""
    kind, sep, name = spec.partition(":")
    entry = _REGISTRY.get(kind)
    if entry is None or (entry.takes_name and not name) or (not entry.takes_name and sep):
        raise PlanprobeError(f"unknown model {spec!r}: use {model_choices()} (openai: with --base-url for other "
                             "servers)")
    return entry


def model_entries() -> dict[str, ModelEntry]:
    return _REGISTRY.all()


def serves_one_call_at_a_time(spec: str | None) -> bool:
    """Whether the backend named by ``--model`` answers one call at a time."""
    if not spec:
        return False
    entry = _REGISTRY.get(spec.partition(":")[0])
    return entry is not None and entry.serial


def build_model(spec: str, options: ModelOptions) -> Model:
    entry = model_entry(spec)
    model = entry.factory(spec.partition(":")[2], options)
    if not isinstance(getattr(model, "name", None), str) or not callable(getattr(model, "chat", None)) \
            or not callable(getattr(model, "aclose", None)):
        raise PlanprobeError(f"model {entry.kind!r}: its factory returned {type(model).__name__}, not a Model "
                             "(a 'name' string, 'async def chat(messages, tools, params)' and 'async def aclose()')")
    return model
