"""Reading JSON out of model replies, which are untrusted text: written once.

Why one module: models wrap JSON in code fences, put prose around it, leave
trailing commas, use single quotes or Python literals, or get cut off; the judge,
the planning protocols, the PMC manager, the modular agent and the debugger's
detectors all read such replies. Every reader here only calls ``json.loads`` /
``raw_decode`` on (repaired) text — never ``eval`` — and bounds its work.

* ``fenced_blocks`` / ``braced_spans`` / ``outermost_object``: where the JSON is.
* ``load_lenient``: JSON-like text to a value, with the list of repairs made.
* ``find_json``: the first value in a reply that a caller accepts, or why none.
* ``first_object``: the first ``{...}`` that decodes as-is.
* ``loads`` / ``raw_decode``: ``json``'s, refusing nesting deeper than ``MAX_DEPTH``
  with ``NestedTooDeep`` (a ``JSONDecodeError``). ``json`` itself raises ``RecursionError``
  at a depth that depends on how deep the caller's stack already is, which is neither
  a ``ValueError`` nor the same from one caller to the next; every reader of model
  output decodes through these two.

Readers that reproduce another project's exact behaviour (APB's ``json.loads``
reader in ``judge/apb.py``) stay with that project's code on purpose.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript|js|python)?[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
TRAILING_COMMA = re.compile(r",\s*([}\]])")
MAX_CHARS = 100_000  # characters of a reply ``find_json`` reads
MAX_STARTS = 400  # '{' / '[' positions ``find_json`` tries when the JSON is buried in prose
MAX_DEPTH = 100  # nesting levels a decoded value may have: far beyond any real reply, far below the stack
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]')  # a JSON string (maybe unterminated) or a bracket


class NestedTooDeep(json.JSONDecodeError):
    """JSON nested deeper than ``MAX_DEPTH`` levels: a ``JSONDecodeError``, so every reader
    that handles bad JSON handles it the same way."""

    def __init__(self, doc: str, pos: int):
        super().__init__(f"nested deeper than {MAX_DEPTH} levels", doc, pos)

    def __reduce__(self) -> tuple[Any, ...]:
        return self.__class__, (self.doc, self.pos)


def _check_depth(text: str, start: int = 0) -> None:
    """Raise ``NestedTooDeep`` when the value at ``start`` nests deeper than ``MAX_DEPTH``.
    Few brackets: nothing to scan; else brackets outside strings are counted to the
    value's end (the scan stops where the value closes)."""
    if text.count("[", start) + text.count("{", start) <= MAX_DEPTH:
        return
    depth = 0
    for m in _TOKEN.finditer(text, start):
        ch = m.group()
        if ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise NestedTooDeep(text, m.start())
        elif ch in "]}":
            depth -= 1
            if depth <= 0:
                return


def loads(text: str, **kwargs: Any) -> Any:
    """``json.loads`` for untrusted text: too deep a value is a ``NestedTooDeep``."""
    _check_depth(text, len(text) - len(text.lstrip()))
    try:
        return json.loads(text, **kwargs)
    except RecursionError:  # cannot happen after the check; kept so no caller ever sees one
        raise NestedTooDeep(text, 0) from None


def raw_decode(text: str, start: int = 0, decoder: json.JSONDecoder | None = None) -> tuple[Any, int]:
    """``JSONDecoder.raw_decode`` for untrusted text, with ``loads``'s depth limit."""
    _check_depth(text, start)
    try:
        return (decoder or _DECODER).raw_decode(text, start)
    except RecursionError:
        raise NestedTooDeep(text, start) from None


def fenced_blocks(text: str) -> list[str]:
    """The contents of the code fences in ``text`` (an unclosed fence runs to the end)."""
    return [m.group(1) for m in FENCE.finditer(text)]


def braced_spans(text: str, limit: int = 20) -> list[str]:
    """Every balanced top-level ``{...}`` in prose (or the rest of the text where one is
    cut off), at most ``limit``; quotes of either kind are skipped as strings."""
    found: list[str] = []
    i, n = 0, len(text)
    while i < n and len(found) < limit:
        start = text.find("{", i)
        if start < 0:
            break
        depth, quote, j = 0, None, start
        while j < n:
            ch = text[j]
            if quote:
                if ch == "\\":
                    j += 1
                elif ch == quote:
                    quote = None
                elif ch == "\n" and quote == "'":
                    quote = None  # an apostrophe in prose, not a string
            elif ch in "\"'":
                quote = ch
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        found.append(text[start:j + 1])
        # a truncated object may have started at a stray brace: look inside it too
        i = j + 1 if j < n else start + 1
    return found


# Lenient JSON: single quotes, Python literals, bare keys, trailing commas, truncation

_LITERALS = {"true": "true", "false": "false", "null": "null", "none": "null", "nan": "null"}
_DANGLING_KEY = re.compile(r'[{,]\s*"(?:[^"\\]|\\.)*"$')
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def load_lenient(text: str) -> tuple[Any, list[str]]:
    """The value of JSON-like text and the repairs it needed (none for valid JSON);
    ``(None, repairs)`` when even the repaired text is not JSON (or nests too deeply)."""
    try:
        return loads(text, parse_constant=lambda _: None), []
    except NestedTooDeep:
        return None, []
    except ValueError:
        pass
    fixed, repairs = normalize(text)
    try:
        return loads(fixed, parse_constant=lambda _: None), repairs
    except ValueError:
        return None, repairs


def normalize(text: str) -> tuple[str, list[str]]:
    """Rewrite JSON-like text into JSON, noting each kind of repair made."""
    out: list[str] = []
    repairs: set[str] = set()
    stack: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "\"'":
            if ch == "'":
                repairs.add("single quotes")
            j, buf = i + 1, []
            closed = False
            while j < n:
                c = text[j]
                if c == "\\" and j + 1 < n:
                    nxt = text[j + 1]
                    buf.append("'" if nxt == "'" else c + nxt)
                    j += 2
                    continue
                if c == ch:
                    closed = True
                    break
                if c == '"':
                    buf.append('\\"')
                elif c == "\n":
                    buf.append("\\n")
                elif c == "\t":
                    buf.append("\\t")
                elif ord(c) < 0x20:
                    buf.append(" ")
                else:
                    buf.append(c)
                j += 1
            if not closed:
                repairs.add("unterminated string")
            out.append('"' + "".join(buf) + '"')
            i = j + 1
            continue
        if ch in "{[":
            stack.append("}" if ch == "{" else "]")
            out.append(ch)
        elif ch in "}]":
            _drop_trailing_comma(out, repairs)
            if stack:
                stack.pop()
            out.append(ch)
        elif ch.isalpha() or ch == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] in "_-"):
                j += 1
            word = text[i:j]
            k = j
            while k < n and text[k] in " \t\r\n":
                k += 1
            if k < n and text[k] == ":":
                out.append(json.dumps(word))
                repairs.add("unquoted keys")
            elif word.lower() in _LITERALS:
                literal = _LITERALS[word.lower()]
                if word != literal:
                    repairs.add("Python literals")
                out.append(literal)
            else:
                out.append(json.dumps(word))
                repairs.add("unquoted values")
            i = j
            continue
        elif ch in "-+.0123456789":
            m = _NUMBER.match(text, i)
            if m:
                j = m.end()
                if j < n and text[j] == "%":
                    out.append(json.dumps(m.group(0) + "%"))
                    repairs.add("percent values")
                    j += 1
                else:
                    out.append(m.group(0).lstrip("+"))
                i = j
                continue
            out.append(ch)
        else:
            out.append(ch)
        i += 1
    if stack:
        repairs.add("truncated object")
        _drop_trailing_comma(out, repairs)
        tail = "".join(out).rstrip()
        if tail.endswith(":"):
            out.append(" null")
        elif stack[-1] == "}" and _DANGLING_KEY.search(tail):
            out.append(": null")
        out.extend(reversed(stack))
    return "".join(out), sorted(repairs)


def _drop_trailing_comma(out: list[str], repairs: set[str]) -> None:
    k = len(out) - 1
    while k >= 0 and out[k].isspace():
        k -= 1
    if k >= 0 and out[k] == ",":
        del out[k]
        repairs.add("trailing commas")


def outermost_object(text: str) -> str | None:
    """The text from the first ``{`` to the last ``}`` (inside a fenced block when there
    is one), or None when there is no such span."""
    fence = re.search(r"```(?:json)?\s*(\{.*\})\s*```", text, re.DOTALL)
    if fence:
        text = fence.group(1)
    start, end = text.find("{"), text.rfind("}")
    return text[start:end + 1] if 0 <= start < end else None


_DECODER = json.JSONDecoder()


def first_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in a reply (code fences and prose around it ignored), or
    None when the first value that decodes is not an object or none does."""
    start = text.find("{")
    while start != -1:
        try:
            obj, _ = raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        return obj if isinstance(obj, dict) else None
    return None


def describe_error(exc: Exception) -> str:
    """A JSON decoding error in words an evidence line can quote."""
    if isinstance(exc, (NestedTooDeep, RecursionError)):
        return "nested too deeply"
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
    return str(exc)


def find_json(text: str, accept: Callable[[Any], bool], *, max_chars: int = MAX_CHARS,
              max_starts: int = MAX_STARTS) -> tuple[Any, str | None]:
    """The first JSON value in ``text`` that ``accept`` takes, and None; else the first
    non-empty object found (the caller says what it lacks), and None; else None and
    why not. Tried in order: the whole text, each fenced block (each also with
    trailing commas dropped), then every ``{``/``[`` position in the text."""
    text = (text or "")[:max_chars]
    first_error: str | None = None
    candidates = [text.strip()] + [block.strip() for block in fenced_blocks(text)]
    for candidate in candidates:
        for attempt in (candidate, TRAILING_COMMA.sub(r"\1", candidate)):
            try:
                value = loads(attempt)
            except ValueError as exc:
                if first_error is None and attempt.lstrip().startswith(("{", "[")):
                    first_error = describe_error(exc)
                continue
            if accept(value):
                return value, None
            break
    fallback = None
    sources: tuple[str | None, ...] = (text, None) if TRAILING_COMMA.search(text) else (text,)
    for k, m in enumerate(re.finditer(r"[{\[]", text)):
        if k >= max_starts:
            break
        for source in sources:
            try:
                if source is None:  # the same position, with trailing commas dropped
                    value, _ = raw_decode(TRAILING_COMMA.sub(r"\1", text[m.start():]))
                else:
                    value, _ = raw_decode(source, m.start())
            except ValueError as exc:
                if first_error is None and source is not None and m.group() == "{":
                    first_error = describe_error(exc)
                continue
            if accept(value):
                return value, None
            if fallback is None and isinstance(value, dict) and value:
                fallback = value
            break
    if fallback is not None:
        return fallback, None
    if first_error:
        return None, f"the JSON in it is not valid ({first_error})"
    return None, "it contains no JSON object"
