"""ROUGE-L F as API-Bank computes it.

API-Bank scores responses with ``Rouge().get_scores(hyp, ref)[0]['rouge-l']['f']``
from the ``rouge`` package (1.0.1). That is not textbook ROUGE-L: it is the
*summary-level* union-LCS score over sentences made by splitting on ``"."``,
counted over *distinct* words (the package's default ``exclusive=True``), with
``F = 2PR / (P + R + 1e-8)``. Tokens are the text split on single spaces after
whitespace is collapsed per sentence; case and punctuation other than ``.`` are
kept. This module re-implements exactly that (iteratively, so long texts do not
hit Python's recursion limit as the package does); tests pin it to hand-computed
values and, when the package is installed, to the package itself.
"""

from __future__ import annotations


class EmptyText(ValueError):
    """The package raises ValueError when either side has no sentence."""


def _sentences(text: str) -> list[str]:
    # the package keeps a part when it is non-empty *before* collapsing whitespace,
    # so " " between two dots becomes an empty sentence whose one token is ""
    return [" ".join(part.split()) for part in text.split(".") if len(part) > 0]


def _words(sentences: list[str]) -> list[str]:
    out: list[str] = []
    for s in sentences:
        out.extend(s.split(" "))
    return out


def _lcs_words(ref: list[str], hyp: list[str]) -> list[str]:
    """The LCS of ``ref`` and ``hyp`` chosen by the package's back-tracking rule
    (prefer dropping the last ``ref`` word only when that keeps a strictly longer LCS)."""
    n, m = len(ref), len(hyp)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        row, prev = table[i], table[i - 1]
        ri = ref[i - 1]
        for j in range(1, m + 1):
            row[j] = prev[j - 1] + 1 if ri == hyp[j - 1] else max(prev[j], row[j - 1])
    out: list[str] = []
    i, j = n, m
    while i > 0 and j > 0:
        if ref[i - 1] == hyp[j - 1]:
            out.append(ref[i - 1])
            i, j = i - 1, j - 1
        elif table[i - 1][j] > table[i][j - 1]:
            i -= 1
        else:
            j -= 1
    out.reverse()
    return out


def rouge_l_f(hypothesis: str, reference: str) -> float:
    """ROUGE-L F of ``hypothesis`` against ``reference`` (the package's argument order
    is hypothesis first). Raises ``EmptyText`` where the package raises ValueError."""
    hyp = _sentences(hypothesis)
    ref = _sentences(reference)
    if not hyp or not ref:
        raise EmptyText("Collections must contain at least 1 sentence.")
    m = len(set(_words(ref)))
    n = len(set(_words(hyp)))
    union: set[str] = set()
    total = 0
    for ref_sentence in ref:
        before = len(union)
        ref_words = _words([ref_sentence])
        for hyp_sentence in hyp:
            union.update(_lcs_words(ref_words, _words([hyp_sentence])))
        total += len(union) - before
    r = total / m
    p = total / n
    return 2.0 * ((p * r) / (p + r + 1e-8))


def response_score(prediction: str, reference: str, level: int) -> float:
    """A response's score as API-Bank's evaluators give it.

    Levels 1-2 (``evaluator.py``): an empty prediction scores 0, otherwise the F value
    rounded to 4 places. Level 3 (``lv3_evaluator.py``): ``User:`` and ``AI:`` are
    removed and the text stripped first; empty scores 0; not rounded. A text the
    package cannot score (only dots) would crash the official scripts; it scores 0 here.
    """
    if level == 3:
        prediction = prediction.replace("User:", "").replace("AI:", "").strip()
    if not prediction:
        return 0.0
    try:
        score = rouge_l_f(prediction, reference)
    except EmptyText:
        return 0.0
    return round(score, 4) if level != 3 else score
