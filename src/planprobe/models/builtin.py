"""The built-in ``--model`` kinds as registry entries (backends imported only when used)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Model
from .registry import ModelEntry

if TYPE_CHECKING:
    from . import ModelOptions


def _local(name: str, options: ModelOptions) -> Model:
    from .local import LocalModel

    return LocalModel(options.model_path, options.threads, options.n_ctx)


def _openai(name: str, options: ModelOptions) -> Model:
    from .openai_backend import OpenAIModel

    return OpenAIModel(name, options.base_url, options.api_key_env, options.request_timeout, options.retry,
                       options.prices, options.tool_result_role)


LOCAL = ModelEntry("local", _local, takes_name=False, serial=True,
                   help="the embedded model, offline")
OPENAI = ModelEntry("openai", _openai, help="any OpenAI-compatible endpoint, see --base-url")


def _litellm(name: str, options: ModelOptions) -> Model:
    from .litellm_backend import LiteLLMModel

    return LiteLLMModel(name, options.base_url, options.api_key_env, options.request_timeout, options.retry,
                        options.prices, options.tool_result_role)


LITELLM = ModelEntry("litellm", _litellm, help="any LiteLLM provider/model (the litellm extra)")
