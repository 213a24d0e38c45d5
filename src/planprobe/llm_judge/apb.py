"""APB's judge as APB runs it: one call per prediction, APB's prompt, APB's reply reader.

``planprobe judge --style apb`` sends the judge exactly what APB's runner
sends: a system message chosen by split and regime (``judge_system_prompt``)
and the ``judge_payload`` JSON (task, tools, prefix, reference, the model's
reply) as the user message; temperature 0, JSON mode, 2,048 tokens. The reply
is read the way APB reads it — code fences stripped, ``json.loads``, else the
outermost ``{…}`` — and stored as the record's ``judgement`` unchanged,
whatever fields it has, because APB's scorer reads ``is_correct`` and
``grade`` from exactly that object. (planprobe's own rubric, its lenient
parser and its median of several samples are ``--style planprobe``.)

A reply APB's reader cannot read, or one holding a lone surrogate (JSON may
escape one; UTF-8 cannot hold it, so APB's runner stops writing it), would
stop APB's runner; here it is kept out of the judgement file, recorded with
its raw text (ASCII-escaped), and counted. The judge
prompt texts are APB's own, read from the user's checkout of APB's code
(``importers.apb_prompts``); planprobe ships none.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..importers.apb_prompts import ApbPrompts
from ..models.base import ChatParams, Model
from ..schema import Message
from ..suites.judged.apb_format import dumps, judge_payload, judge_system_prompt

JUDGE_MAX_TOKENS = 2048  # APB's --judge-max-tokens default


def judge_messages(record: dict[str, Any], prompts: ApbPrompts) -> list[Message]:
    return [Message(role="system", content=judge_system_prompt(record, prompts.texts)),
            Message(role="user", content=dumps(judge_payload(record)))]


def parse_json_object(text: str) -> dict[str, Any]:
    """APB's reader: ValueError when it cannot read the reply; a JSON value that is
    not an object becomes ``{"value": …}``."""
    cleaned = text.strip()
    for fence in ("```json", "```"):
        if cleaned.startswith(fence):
            cleaned = cleaned[len(fence):].strip()
            break
    if cleaned.endswith("```"):
        cleaned = cleaned[:-3].strip()
    try:
        value = json.loads(cleaned)
    except ValueError:
        match = re.search(r"\{.*\}", cleaned, flags=re.DOTALL)
        if not match:
            raise
        value = json.loads(match.group(0))
    return value if isinstance(value, dict) else {"value": value}


@dataclass
class ApbJudgement:
    judgement: dict[str, Any] | None  # None: APB's reader could not read the reply
    raw: str
    problem: str = ""


async def judge_record(model: Model, record: dict[str, Any], prompts: ApbPrompts, *,
                       max_tokens: int = JUDGE_MAX_TOKENS, json_mode: bool = True,
                       seed: int | None = None) -> ApbJudgement:
    """One prediction record (with ``model_response``) judged once, at temperature 0."""
    params = ChatParams(temperature=0.0, seed=seed, max_tokens=max_tokens,
                        response_format="json_object" if json_mode else None)
    result = await model.chat(judge_messages(record, prompts), None, params)
    raw = result.message.content or "{}"  # APB reads an empty reply as "{}"
    try:
        judgement = parse_json_object(raw)
    except (ValueError, RecursionError) as exc:
        return ApbJudgement(None, raw, f"not JSON ({getattr(exc, 'msg', exc)})")
    surrogate = lone_surrogate(judgement)
    if surrogate:
        return ApbJudgement(None, raw, f"holds a lone surrogate ({surrogate}), which is not UTF-8: APB's runner "
                                       "stops writing it")
    return ApbJudgement(judgement, raw)


def lone_surrogate(value: Any) -> str:
    """The first lone surrogate in the value's text (e.g. ``\\ud800``, which JSON escapes allow),
    as an escape; "" when the value can be written as UTF-8, as APB's judgement file is."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.object[exc.start:exc.end].encode("unicode_escape").decode("ascii")
    return ""
