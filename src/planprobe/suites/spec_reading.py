"""Reading a case's ``spec`` into its family's pydantic model, written once.

Why: every family keeps its task as a plain dict in ``Case.spec`` (so suites stay
JSON) and reads it back into a strict model before using it. A bad field must be
reported the same way by every family — one line naming the case and the field
(``case ID: field 'spec.x.y': message``) — so the reading and the message live here.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import PlanprobeError
from ..schema import Case

M = TypeVar("M", bound=BaseModel)


class StrictModel(BaseModel):
    """A spec model that rejects fields it does not know (a typo is an error, not a default)."""

    model_config = ConfigDict(extra="forbid")


def field_error(exc: ValidationError, prefix: tuple[str, ...] = ("spec",)) -> str:
    """The first error of a validation, as ``field 'PREFIX.loc': message``."""
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in prefix + tuple(err.get("loc", ())))
    return f"field '{loc}': {err.get('msg', 'invalid')}"


def read_spec(case: Case, model: type[M], family: str | None = None, *, data: Any = None,
              prefix: tuple[str, ...] = ("spec",)) -> M:
    """``case.spec`` (or ``data``, a part of it found at ``prefix``) validated as ``model``.

    ``family``: the family the case must belong to, checked first. Raises
    ``PlanprobeError`` naming the case and the first bad field.
    """
    if family is not None and case.family != family:
        raise PlanprobeError(f"case {case.id}: family {case.family!r} is not {family!r}")
    try:
        return model.model_validate(case.spec if data is None else data)
    except ValidationError as exc:
        raise PlanprobeError(f"case {case.id}: {field_error(exc, prefix)}") from None
