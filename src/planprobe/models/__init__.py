"""Model backends and the ``--model`` names that select them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .base import ChatParams, ChatResult, Model, Prices
from .cache import CachedModel, default_cache_path
from .registry import (
    ModelEntry,
    build_model,
    model_choices,
    model_entry,
    register_model,
    unregister_model,
)
from .retry import RetryPolicy

__all__ = ["ChatParams", "ChatResult", "Model", "ModelEntry", "ModelOptions", "Prices", "RetryPolicy", "make_model",
           "model_choices", "model_entry", "register_model", "unregister_model"]


@dataclass(frozen=True)
class ModelOptions:
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    request_timeout: float = 60.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    prices: Prices | None = None
    tool_result_role: str = "tool"
    model_path: Path | None = None  # local: a GGUF file (default: the embedded SmolLM2-135M)
    threads: int | None = None
    n_ctx: int = 4096
    cache: bool = True
    cache_path: Path | None = None


def make_model(spec: str, options: ModelOptions = ModelOptions()) -> Model:
    """``openai:MODEL`` (any OpenAI-compatible endpoint with --base-url), ``local``, or a
    registered kind (``register_model``); wrapped in the record/replay cache unless off."""
    model = build_model(spec, options)
    if options.cache and model_entry(spec).cacheable:
        model = CachedModel(model, options.cache_path or default_cache_path())
    return model
