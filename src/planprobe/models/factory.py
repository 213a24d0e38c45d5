"""A model made afresh for each event loop, for commands that run several loops
(``detect``, ``debug``: one ``asyncio.run`` per detector call or repair round).

An HTTP client belongs to the event loop it was made in, so an endpoint model is
built anew each time; the embedded model has no loop inside and its weights take a
moment to load, so it is loaded once and shared, its close deferred to the caller.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import ModelOptions, make_model


class SharedModel:
    """A model shared between loops: ``aclose`` does nothing (the owner closes ``inner``)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name = inner, inner.name

    async def chat(self, *args: Any) -> Any:
        return await self.inner.chat(*args)

    async def aclose(self) -> None:
        pass


def model_factory(spec: str | None, options: ModelOptions) -> Callable[[], Any] | None:
    """A function making the model ``spec`` (None for no model). A bad spec or a missing
    key fails here, before any work."""
    if spec is None:
        return None
    if spec == "local":  # no event loop inside: load the weights once
        loaded = make_model(spec, options)
        return lambda: SharedModel(loaded)
    make_model(spec, options)
    return lambda: make_model(spec, options)
