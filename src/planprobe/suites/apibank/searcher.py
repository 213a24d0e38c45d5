"""ToolSearcher without a model download.

API-Bank's ToolSearcher embeds the keywords and every API's "search text" (the class
name split at capitals and lower-cased, glued to its description — e.g. ``"get user
tokenGet the user token by username and password."``) with
``paraphrase-MiniLM-L3-v2`` and returns the API of highest cosine similarity; an API
that takes a ``token`` comes back as ``[GetUserToken, api]``, GetUserToken still
carrying its ``desc_for_search`` (API-Bank never removes it from that entry).

planprobe ranks offline, in two steps:

1. **Recorded keywords.** Keywords that API-Bank's own dialogues searched for
   (``keywords -> API`` pairs read from the data at import time, stored in each case)
   give the API the embedding search returned for them, so the data set's own searches
   resolve as they did when it was recorded.
2. **Lexical ranking** for any other keywords: TF-IDF over each API's name words and
   description words (split at non-letters and capitals, lower-cased, cut to five
   letters); score = 2 x cosine(name words) + cosine(description words), the first API
   in catalogue order on a tie. Keywords sharing no word with any API fail with
   API-Bank's own error for an empty match (``'NoneType' object has no attribute 'pop'``).

The answer is built from planprobe's API catalogue exactly as API-Bank builds it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from .catalog import catalog, public_definition

_SPLIT = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def search_text(name: str, description: str) -> str:
    """API-Bank's ``desc_for_search``: "AddAgenda" -> "add agenda" + description."""
    spaced = "".join(" " + c.lower() if c.isupper() else c for c in name).strip()
    return spaced + description


def words(text: str) -> list[str]:
    """Lower-cased words, split at non-letters and capitals, cut to their first five
    letters (a crude stem: "deleting"/"delete", "calculate"/"calculator" meet)."""
    return [w.lower()[:5] for w in _SPLIT.findall(text)]


def split_by_uppercase(text: str) -> str:
    """lv3_evaluator's keyword clean-up before searching: a space before each capital."""
    return "".join(" " + c if c.isupper() else c for c in text).strip()


class LexicalIndex:
    """TF-IDF vectors of each API's name words and of its description words; a query
    scores ``2 × cosine(name) + cosine(description)``, so the API whose name the
    keywords spell wins over one whose description merely repeats them."""

    def __init__(self, entries: list[tuple[str, str, str]]):
        self.names = [n for n, _, _ in entries]
        name_docs = [words(w) for _, w, _ in entries]
        desc_docs = [words(d) for _, _, d in entries]
        df: dict[str, int] = {}
        for d in name_docs + desc_docs:
            for w in set(d):
                df[w] = df.get(w, 0) + 1
        n = len(name_docs) + len(desc_docs)
        self.idf = {w: math.log((1 + n) / (1 + k)) + 1.0 for w, k in df.items()}
        self.name_vectors = [self._vector(d) for d in name_docs]
        self.desc_vectors = [self._vector(d) for d in desc_docs]

    def _vector(self, ws: list[str]) -> dict[str, float]:
        tf: dict[str, float] = {}
        for w in ws:
            if w in self.idf:
                tf[w] = tf.get(w, 0.0) + 1.0
        vec = {w: c * self.idf[w] for w, c in tf.items()}
        norm = math.sqrt(sum(v * v for v in vec.values()))
        return {w: v / norm for w, v in vec.items()} if norm else {}

    def best(self, query: str) -> str | None:
        q = self._vector(words(query))
        best_name, best_score = None, 0.0
        for name, nv, dv in zip(self.names, self.name_vectors, self.desc_vectors):
            score = 2.0 * sum(v * nv.get(w, 0.0) for w, v in q.items()) + sum(v * dv.get(w, 0.0) for w, v in q.items())
            if score > best_score + 1e-12:
                best_name, best_score = name, score
        return best_name


def _level12_index() -> LexicalIndex:
    entries = [(d["name"], d["name"], d["description"]) for d in catalog().values() if d["name"] != "ToolSearcher"]
    return LexicalIndex(entries)


_INDEX: dict[str, LexicalIndex] = {}


class EmptyMatch(Exception):
    pass


def level12_searcher(recorded: dict[str, str]) -> Callable[[Any], Any]:
    """ToolSearcher over the level-1/2 catalogue; ``recorded`` maps keywords to the API
    API-Bank's search returned for them."""
    if "l12" not in _INDEX:
        _INDEX["l12"] = _level12_index()
    index = _INDEX["l12"]
    defs = catalog()

    def search(keywords: Any) -> Any:
        if not isinstance(keywords, str):
            raise TypeError("keywords must be text")
        name = recorded.get(keywords) or index.best(keywords)
        if name is None or name not in defs:
            raise EmptyMatch("'NoneType' object has no attribute 'pop'")
        best = public_definition(defs[name])
        if "token" in best["input_parameters"]:
            token = public_definition(defs["GetUserToken"])
            token["desc_for_search"] = search_text("GetUserToken", token["description"])
            return [token, best]
        return best

    return search


@lru_cache(maxsize=8)
def _index_of(entries: tuple[tuple[str, str, str], ...]) -> LexicalIndex:
    return LexicalIndex(list(entries))


def level3_searcher(definitions: dict[str, dict[str, Any]], recorded: dict[str, str]) -> Callable[[Any], Any]:
    """ToolSearcher over the level-3 APIs (their definitions as the data set's recorded
    searches show them). Keywords are split at capitals first, as lv3_evaluator does."""
    index = _index_of(tuple((n, n, str(d.get("description", ""))) for n, d in definitions.items()))

    def search(keywords: Any) -> Any:
        if not isinstance(keywords, str):
            raise TypeError("keywords must be text")
        name = recorded.get(keywords) or recorded.get(split_by_uppercase(keywords)) or \
            index.best(split_by_uppercase(keywords))
        if name is None or name not in definitions:
            raise EmptyMatch("'NoneType' object has no attribute 'pop'")
        return dict(definitions[name])

    return search
