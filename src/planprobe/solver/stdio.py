"""The solver over stdin/stdout: ``python -m planprobe.solver.stdio``.

One JSON object per input line, ``{"messages": [...], "tools": [...] | null}`` (OpenAI shapes),
one JSON line back: the assistant message. For scaffolds in other processes or languages, and for
the independence test (tests/solver/test_independence.py): a fresh process that holds no case,
suite or run store answers every call from the call alone. A line that is not such an object
gets ``{"error": "..."}`` back; the loop goes on.
"""

from __future__ import annotations

import json
import sys
from typing import TextIO

from ..schema import Message, ToolSpec
from .backend import answer


def serve(inp: TextIO, out: TextIO) -> None:
    for line in inp:
        if not line.strip():
            continue
        try:
            call = json.loads(line)
            messages = [Message.model_validate(m) for m in call["messages"]]
            tools = [ToolSpec.model_validate(t) for t in call.get("tools") or []] or None
        except (ValueError, KeyError, TypeError) as exc:
            out.write(json.dumps({"error": f"not a chat call: {type(exc).__name__}: {exc}"[:500]}) + "\n")
        else:
            out.write(json.dumps(answer(messages, tools).wire()) + "\n")
        out.flush()


if __name__ == "__main__":  # pragma: no cover - exercised through a subprocess in the tests
    serve(sys.stdin, sys.stdout)
