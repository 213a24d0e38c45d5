"""What API-Bank's APIs share: failures, its date handling, its BM25 search, call keys.

Why a module of its own: the API groups (``api_*``) and the checks of recorded
calls (``checks``) read dates and search the way API-Bank does, from one place."""

from __future__ import annotations

import datetime
import json
import math
import random
import re
from collections.abc import Callable
from typing import Any, Protocol


class ApiWorld(Protocol):
    """What an API may use of the world it runs in (``apis.World``). Declared here, the module both
    the API groups and ``apis`` import, so that the groups need not import the world that
    dispatches to them."""

    rng: random.Random
    recorded: dict[str, Any]  # canonical_input -> recorded result (offline web APIs)
    searcher: Callable[[Any], Any] | None
    verification_code: int | None
    reset_user: str | None
    bank_accounts: dict[int, dict[str, str]]

    def username_of(self, token: Any) -> str: ...

    def table(self, name: str) -> Any: ...


Handler = Callable[[ApiWorld, dict[str, Any]], Any]  # an API: (world, converted arguments) -> output

TODAY = "2023-03-31"  # GetToday's fixed answer in API-Bank
DATETIME = "%Y-%m-%d %H:%M:%S"
DATE = "%Y-%m-%d"


class ApiFailure(Exception):
    """An API's own refusal; its text is the result's ``exception``."""


def fail(message: str) -> ApiFailure:
    return ApiFailure(message)


def strptime(text: Any, fmt: str) -> datetime.datetime:
    return datetime.datetime.strptime(text, fmt)


def pad_year(text: str) -> str:
    """API-Bank's date clean-up: strip, and left-pad a short year when there are three
    dash-separated parts."""
    text = text.strip()
    parts = text.split("-")
    if len(parts) == 3 and len(parts[0]) != 4:
        parts[0] = parts[0].zfill(4)
        text = "-".join(parts)
    return text


def normalise_time(text: Any, fmt: str) -> Any:
    """The normalised text, or the parsing exception itself (API-Bank's ``format_check``)."""
    try:
        return strptime(pad_year(text), fmt).strftime(fmt)
    except Exception as exc:  # noqa: BLE001  (the exception is the value, as in API-Bank)
        return exc


def normalised_or_raise(text: Any, fmt: str) -> str:
    """The normalised text; an unreadable one raises the parsing exception (the APIs
    that check a date or time before anything else)."""
    value = normalise_time(text, fmt)
    if isinstance(value, Exception):
        raise value
    return value


def history_date(text: Any) -> Any:
    """QueryHistoryToday's date reading: %Y-%m-%d or %m-%d, returned as %m-%d."""
    text = pad_year(text)
    try:
        return strptime(text, DATE).strftime("%m-%d")
    except Exception:  # noqa: BLE001
        try:
            return strptime(text, "%m-%d").strftime("%m-%d")
        except Exception as exc:  # noqa: BLE001
            return exc


def tokenize(text: str) -> list[str]:
    """Words and punctuation marks apart (stand-in for NLTK's word_tokenize)."""
    return re.findall(r"\w+(?:'\w+)?|[^\w\s]", text)


def bm25_scores(corpus: list[list[str]], query: list[str], k1: float = 1.5, b: float = 0.75,
                epsilon: float = 0.25) -> list[float]:
    """BM25 Okapi scores of each document, computed as ``rank_bm25.BM25Okapi`` does."""
    n = len(corpus)
    lengths = [len(d) for d in corpus]
    avgdl = sum(lengths) / n if n else 0.0
    df: dict[str, int] = {}
    freqs = []
    for doc in corpus:
        f: dict[str, int] = {}
        for w in doc:
            f[w] = f.get(w, 0) + 1
        freqs.append(f)
        for w in f:
            df[w] = df.get(w, 0) + 1
    idf: dict[str, float] = {}
    total = 0.0
    negative = []
    for w, k in df.items():
        value = math.log(n - k + 0.5) - math.log(k + 0.5)
        idf[w] = value
        total += value
        if value < 0:
            negative.append(w)
    floor = epsilon * (total / len(idf)) if idf else 0.0
    for w in negative:
        idf[w] = floor
    scores = [0.0] * n
    for q in query:
        for i, f in enumerate(freqs):
            tf = f.get(q, 0)
            scores[i] += idf.get(q, 0.0) * (tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths[i] / avgdl)))
    return scores


def canonical_input(api: str, args: dict[str, Any]) -> str:
    """A recorded call's key: the API and its arguments as canonical JSON."""
    return api + json.dumps(args, sort_keys=True, ensure_ascii=False)
