"""APB's scores, computed exactly as APB's ``score()`` computes them.

For every judged record, the record joins the groups ``overall``, its
``split``, ``planning_regime``, ``task_family`` and ``task_category`` (empty
values skipped). Per group: ``records`` (rows in the group), ``accuracy`` (the
mean of ``bool(is_correct)`` over rows whose judgement has that key) and
``average_grade`` (the mean of numeric grades; a JSON ``true`` counts as 1, as
in Python). Means are ``statistics.mean`` over the same values, so the file
``scores.json`` is byte-identical to APB's for the same judgements.

Two consequences of APB's flat group keys are kept (the figures must match)
and pointed out by ``collisions``: a record whose family and category (or any
two of its keys) are equal joins that group twice, and a family named like a
split or category pools the two.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from statistics import mean
from typing import Any

from ..suites.judged.apb_format import SPLITS

DIMENSIONS = ("split", "planning_regime", "task_family", "task_category")


def score(records: Iterable[dict[str, Any]], splits: Iterable[str] = SPLITS) -> dict[str, Any]:
    """APB's summary: ``{"total_records": n, "groups": {name: {records, accuracy, average_grade}}}``."""
    wanted = set(splits)
    rows = [r for r in records if r.get("split") in wanted]
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        for key in ("overall", *(r.get(d, "") for d in DIMENSIONS)):
            if key:
                groups.setdefault(str(key), []).append(r)
    summary: dict[str, Any] = {"total_records": len(rows), "groups": {}}
    for name, members in groups.items():
        correct: list[bool] = []
        grades: list[float] = []
        for r in members:
            verdict = counted_correct(r)
            if verdict is not None:
                correct.append(verdict)
            j = r.get("judgement", {})
            if isinstance(j, dict) and isinstance(j.get("grade"), (int, float)):
                grades.append(float(j["grade"]))
        summary["groups"][name] = {"records": len(members), "accuracy": mean(correct) if correct else None,
                                   "average_grade": mean(grades) if grades else None}
    return summary


def counted_correct(row: dict[str, Any]) -> bool | None:
    """What a judged row adds to APB's accuracy: ``bool(is_correct)``, or None when the
    judgement has no ``is_correct`` (APB leaves such rows out of the mean, not counts them wrong)."""
    j = row.get("judgement", {})
    if not isinstance(j, dict) or "is_correct" not in j:
        return None
    return bool(j["is_correct"])


def scores_json(summary: dict[str, Any]) -> str:
    """The text APB writes to its scores file."""
    return json.dumps(summary, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def collisions(records: Iterable[dict[str, Any]]) -> list[str]:
    """Group names that APB's flat keys merge or double count, each explained once."""
    seen: dict[str, set[str]] = {}
    doubled: set[str] = set()
    for r in records:
        keys = [(d, str(r.get(d, ""))) for d in DIMENSIONS if r.get(d, "")]
        names = [k for _, k in keys]
        doubled.update(n for n in names if names.count(n) > 1 or n == "overall")
        for d, k in keys:
            seen.setdefault(k, set()).add(d)
    out = [f"'{n}' is two of a record's keys at once: APB counts such records twice in it" for n in sorted(doubled)]
    out += [f"'{n}' names a {' and a '.join(sorted(ds))}: APB pools them in one group"
            for n, ds in sorted(seen.items()) if len(ds) > 1 and n not in doubled]
    return out


def group_dimension(records: Iterable[dict[str, Any]]) -> dict[str, str]:
    """For display: which dimension(s) each group name comes from ("overall" for overall)."""
    dims: dict[str, list[str]] = {"overall": ["overall"]}
    for r in records:
        for d in DIMENSIONS:
            v = r.get(d, "")
            if v and d not in dims.setdefault(str(v), []):
                dims[str(v)].append(d)
    return {k: "+".join(v) for k, v in dims.items()}
