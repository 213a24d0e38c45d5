"""Checking a case's stored skeleton when the suite is loaded.

The skeleton (``spec.skeleton``) is what error dissection and the error anatomy
re-read long after the suite was written. A malformed one — hand-edited, cut,
or from another tool — must be refused with the field named when the suite is
loaded, not surface as a traceback in ``anatomy`` or ``dissect``. A skeleton is
accepted when every sentence parses, renders with the case's action names into
exactly the end of the task text, and states exactly the constraints of
``spec.constraints`` (so a mutation of it keeps the meaning the oracle checks).
"""

from __future__ import annotations

from ...errors import PlanprobeError
from ...schema import Case
from .grammar import derive, sentence_from_json
from .render import render_sentence
from .spec import ConstraintSpec

_MALFORMED = (KeyError, IndexError, TypeError, ValueError, AttributeError)


def check_skeleton(case: Case, spec: ConstraintSpec) -> None:
    if not spec.skeleton:
        return  # hand-written cases may leave it out; dissection then says so
    names = [a.name for a in spec.actions]
    index_of = {a.id: i for i, a in enumerate(spec.actions)}
    stated: set[tuple] = set()
    texts = []
    for k, raw in enumerate(spec.skeleton):
        try:
            sentence = sentence_from_json(raw)
            if len(sentence.conjs) != len(sentence.parts) - 1 or not sentence.parts:
                raise ValueError("needs one conjunction between consecutive parts")
            text, _ = render_sentence(sentence, names)
            stated.update((kind, a, b) for kind, a, b in derive(sentence))
        except _MALFORMED as exc:
            detail = f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)
            raise PlanprobeError(f"field 'spec.skeleton.{k}': malformed sentence ({detail[:160]})") from None
        texts.append(text)
    wanted = {(c.kind, index_of[c.a], index_of[c.later()] if c.kind == "order" else c.hour) for c in spec.constraints}
    if stated != wanted:
        raise PlanprobeError(
            f"field 'spec.skeleton': states {len(stated - wanted)} constraint(s) that 'spec.constraints' lacks and "
            f"misses {len(wanted - stated)} it has; dissection would mutate a different task"
        )
    if not case.task.endswith(" ".join(texts)):
        raise PlanprobeError("field 'spec.skeleton': does not render to the task's requirement text")
