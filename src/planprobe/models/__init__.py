"""Model backends and the ``--model`` names that select them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..errors import PlanprobeError
from .base import ChatParams, ChatResult, Model, Prices
from .cache import CachedModel, default_cache_path
from .retry import RetryPolicy

__all__ = ["ChatParams", "ChatResult", "Model", "ModelOptions", "Prices", "RetryPolicy", "make_model"]


@dataclass(frozen=True)
class ModelOptions:
    base_url: Optional[str] = None
    api_key_env: str = "OPENAI_API_KEY"
    request_timeout: float = 60.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    prices: Optional[Prices] = None
    tool_result_role: str = "tool"
    model_path: Optional[Path] = None  # local: a GGUF file (default: the embedded SmolLM2-135M)
    threads: Optional[int] = None
    n_ctx: int = 4096
    cache: bool = True
    cache_path: Optional[Path] = None


def make_model(spec: str, options: ModelOptions = ModelOptions()) -> Model:
    """``openai:MODEL`` (any OpenAI-compatible endpoint with --base-url) or ``local``."""
    kind, _, name = spec.partition(":")
    if kind == "local":
        from .local import LocalModel

        model: Model = LocalModel(options.model_path, options.threads, options.n_ctx)
    elif kind == "openai" and name:
        from .openai_backend import OpenAIModel

        model = OpenAIModel(name, options.base_url, options.api_key_env, options.request_timeout, options.retry,
                            options.prices, options.tool_result_role)
    else:
        raise PlanprobeError(f"unknown model {spec!r}: use openai:<model> (with --base-url for other servers) or local")
    if options.cache:
        model = CachedModel(model, options.cache_path or default_cache_path())
    return model
