"""The ``toy`` model kind: a backend that always answers in text and never calls a tool,
so ``--model toy --agent tools`` runs offline through the whole model path."""

from __future__ import annotations

from planprobe import Message, ModelEntry, ModelOptions, ToolSpec
from planprobe.models import ChatParams, ChatResult


class ToyModel:
    name = "toy"

    async def chat(self, messages: list[Message], tools: list[ToolSpec] | None, params: ChatParams) -> ChatResult:
        return ChatResult(message=Message(role="assistant", content="I will not switch anything on."))

    async def aclose(self) -> None:
        return None


def _build(name: str, options: ModelOptions) -> ToyModel:
    return ToyModel()


TOY = ModelEntry("toy", _build, takes_name=False, help="always answers in text (test plug-in)")
