"""Reading the data set's stringified values without ``eval``.

TravelPlanner stores lists and dicts as Python ``repr`` strings (the HF CSV's
``date``, ``local_constraint``, ``reference_information``; the training plans) and
its own code reads them with ``eval``. Here they are read as JSON first, then as
Python literals (``ast.literal_eval`` accepts literals only: no names, no calls),
with a size bound so a hostile file cannot make the parser exhaust memory.
"""

from __future__ import annotations

import ast
from typing import Any

from ...lenient_json import NestedTooDeep, loads

MAX_LITERAL_CHARS = 5_000_000


class LiteralError(ValueError):
    """The text is neither JSON nor a Python literal."""


def read_literal(text: str) -> Any:
    """The value a JSON or Python-literal text denotes; raises LiteralError."""
    if len(text) > MAX_LITERAL_CHARS:
        raise LiteralError(f"longer than {MAX_LITERAL_CHARS} characters")
    try:
        return loads(text)
    except NestedTooDeep:
        raise LiteralError("nested too deeply") from None
    except ValueError:
        pass
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise LiteralError(f"not a JSON or Python literal ({type(exc).__name__})") from None
