"""How well each surface cue tells unsolvable variants from their solvable controls.

For a refusal cue the strongest shortcut agent is the one with the best threshold
in the better direction; ``best_balanced_accuracy`` finds it by trying every
threshold, so a cue is within chance only if no agent acting on it could do
better than the bound (issue #11: 0.6).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...agents.cues import CUES, Visible
from ...schema import Case
from .spec import spec_of


def best_balanced_accuracy(scores: list[float], positive: list[bool]) -> tuple[float, float]:
    """(the best balanced accuracy of "positive iff score > t" or "iff score <= t" over all t,
    the threshold achieving it). 0.5 when a class is empty."""
    pos = sum(positive)
    neg = len(positive) - pos
    if not pos or not neg:
        return 0.5, 0.0
    best, at = 0.5, 0.0
    pairs = sorted(zip(scores, positive))
    below_pos = below_neg = 0  # cases with score <= t
    i = 0
    while i < len(pairs):
        t = pairs[i][0]
        while i < len(pairs) and pairs[i][0] == t:
            below_pos += pairs[i][1]
            below_neg += not pairs[i][1]
            i += 1
        tpr = (pos - below_pos) / pos  # "score > t" says positive
        tnr = below_neg / neg
        ba = (tpr + tnr) / 2
        if max(ba, 1 - ba) > best:
            best, at = max(ba, 1 - ba), t
    return best, at


@dataclass(frozen=True)
class CueScore:
    cue: str
    balanced_accuracy: float
    threshold: float
    unsolvable: int
    solvable: int


def cue_scores(cases: list[Case]) -> list[CueScore]:
    """Every cue's best balanced accuracy at telling unsolvable variants from controls."""
    visible = [Visible.of(c) for c in cases]
    positive = [spec_of(c).unsolvable is not None for c in cases]
    out = []
    for name, cue in CUES.items():
        ba, t = best_balanced_accuracy([cue(v) for v in visible], positive)
        out.append(CueScore(name, ba, t, sum(positive), len(positive) - sum(positive)))
    return out
