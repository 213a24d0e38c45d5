"""Error anatomy (seed PDoctor Tables 3, 5, 6): where and how planning fails.

Per run (agent/model): the distribution of primary error classes among failures,
and failures and pass rates per topic and per difficulty — always per run, since
adding an oracle run to a model's run would describe neither. Per constraint shape — the
grammar production that stated a constraint, e.g. "P< O, S VP0" — how often it
was stated in the cases run and how often an agent violated it: which phrasings
trip agents up. Per connective word — "after", "prior", "by" … (``constraints.connectives``)
— the same count over the constraints stated with a phrase containing the word, ranked by
the lower bound of the violation rate's 95% Wilson interval, so a word stated twice and
broken twice does not outrank one stated a hundred times and broken ninety.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, cast

from ..errors import PlanprobeError
from ..runner.store import RunStore
from ..schema import Case
from ..suites.base import ShapesConstraints, WordsConstraints, has_capability
from ..suites.registry import get_family
from .stats import wilson_interval
from .summary import Tally


@dataclass
class RunAnatomy:
    name: str
    overall: Tally = field(default_factory=Tally)
    by_topic: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    by_actions: dict[int, Tally] = field(default_factory=lambda: defaultdict(Tally))

    def to_json(self) -> dict[str, Any]:
        t = self.overall
        failed = t.cases - t.passed
        dist = {k: round(v / failed, 6) for k, v in sorted(t.errors.items())} if failed else {}
        return {
            "run": self.name, **t.to_json(), "error_distribution": dist,
            "by_topic": {k: v.to_json() for k, v in sorted(self.by_topic.items())},
            "by_actions": {str(k): v.to_json() for k, v in sorted(self.by_actions.items())},
        }


@dataclass
class Anatomy:
    runs: list[RunAnatomy] = field(default_factory=list)
    shape_total: Counter = field(default_factory=Counter)  # over all runs: how often each phrasing was stated
    shape_violated: Counter = field(default_factory=Counter)
    word_total: Counter = field(default_factory=Counter)  # constraints stated with a phrase saying the word
    word_violated: Counter = field(default_factory=Counter)
    word_company: dict[str, set[str]] = field(default_factory=dict)  # words stated with it every time

    def add_words(self, words: list[str]) -> None:
        """Count one constraint stated with these words."""
        self.word_total.update(words)
        for w in words:
            self.word_company[w] = self.word_company.get(w, set(words)) & set(words)

    def to_json(self) -> dict[str, Any]:
        return {
            "runs": [r.to_json() for r in self.runs],
            "constraint_shapes": [
                {"shape": s, "stated": n, "violated": self.shape_violated[s],
                 "violation_rate": round(self.shape_violated[s] / n, 6)}
                for s, n in sorted(self.shape_total.items(), key=lambda kv: (-self.shape_violated[kv[0]] / kv[1], kv[0]))
            ],
            "connective_words": self.word_table(),
        }


    def word_table(self) -> list[dict[str, Any]]:
        """Each connective word: constraints stated with it, violated, the rate with its 95%
        Wilson interval, and the words every phrase saying it also says ("only" is always with
        "after": its rate cannot be told from theirs here; dissection's minimal pairs can);
        highest lower bound first."""
        rows = []
        for w, n in self.word_total.items():
            v = self.word_violated[w]
            lo, hi = wilson_interval(v, n)
            rows.append({"word": w, "stated": n, "violated": v, "violation_rate": round(v / n, 6),
                         "ci95": [round(lo, 6), round(hi, 6)],
                         "always_with": sorted(self.word_company.get(w, set()) - {w})})
        rows.sort(key=lambda r: (-r["ci95"][0], -r["violation_rate"], r["word"]))
        return rows


def _shapes(name: str, cid: str, family: Any, case: Case, capability: type) -> dict[str, list[str]]:
    """constraint id -> labels (shapes or words) of a case, or a one-line error naming it."""
    try:  # a run stored before suites were checked on load may hold a malformed skeleton
        if capability is ShapesConstraints:
            return cast(ShapesConstraints, family).constraint_shapes(case)
        return cast(WordsConstraints, family).constraint_words(case)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        raise PlanprobeError(f"{name}: case {cid!r}: malformed 'spec.skeleton' "
                             f"({type(exc).__name__}: {str(exc)[:160]})") from None


def anatomy(stores: list[tuple[str, RunStore]]) -> Anatomy:
    out = Anatomy()
    for name, store in stores:
        run = RunAnatomy(name)
        cases = {cid: Case.model_validate_json(raw) for cid, raw in store.db.execute("SELECT case_id, json FROM cases")}
        shapes_of: dict[str, dict[str, list[str]]] = {}
        words_of: dict[str, dict[str, list[str]]] = {}
        rows = store.db.execute("SELECT case_id, passed, primary_error, infra, verdict, status FROM results")
        for cid, passed, primary, infra, verdict_json, status in rows:
            if infra or cid not in cases:
                continue
            case = cases[cid]
            run.overall.add(bool(passed), primary, status)
            if case.meta.topic:
                run.by_topic[case.meta.topic].add(bool(passed), primary, status)
            if "actions" in case.meta.difficulty:
                run.by_actions[int(case.meta.difficulty["actions"])].add(bool(passed), primary, status)
            family = get_family(case.family)
            has_shapes, has_words = has_capability(family, ShapesConstraints), has_capability(family, WordsConstraints)
            if not has_shapes and not has_words:
                continue
            shapes = words = {}
            if has_shapes:
                shapes = shapes_of.get(cid) or shapes_of.setdefault(cid, _shapes(name, cid, family, case,
                                                                                  ShapesConstraints))
                for cid_shapes in shapes.values():
                    out.shape_total.update(cid_shapes)
            if has_words:
                words = words_of.get(cid) or words_of.setdefault(cid, _shapes(name, cid, family, case,
                                                                               WordsConstraints))
                for cid_words in words.values():
                    out.add_words(cid_words)
            if not passed:
                violated = {c for ev in json.loads(verdict_json).get("evidence", [])
                            if ev.get("kind") in ("violated_constraint", "unextendable")
                            for c in ev.get("constraint_ids", [])}
                for c in violated:
                    out.shape_violated.update(shapes.get(c, []))
                    out.word_violated.update(words.get(c, []))
        out.runs.append(run)
    return out
