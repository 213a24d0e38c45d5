"""What a set of judgements amounts to: judged pass rate and errors, agreement
among the judge's samples, and — on formal cases — agreement with the exact oracle.

Calibration treats the exact oracle as ground truth and the judge as a second
rater of pass/fail: the confusion matrix, raw agreement and Cohen's κ (agreement
beyond chance). A trace the judge could not grade at all counts as a judge
*fail* in the headline figures (that is the verdict a user gets) and the same
figures are also given without those traces.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..analysis.stats import cohen_kappa, fleiss_kappa, wilson_interval
from .judge import UNPARSEABLE_ERROR


def _unparseable(row: dict[str, Any]) -> bool:
    return UNPARSEABLE_ERROR in row["verdict"].get("errors", [])


def summarize_rows(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    passed = sum(bool(r["verdict"]["passed"]) for r in rows)
    scores = [r["verdict"]["score"] for r in rows if r["verdict"].get("score") is not None]
    errors = Counter(e for r in rows for e in r["verdict"].get("errors", []))
    samples = [s for r in rows for s in r.get("samples", [])]
    statuses = Counter(s.get("status") for s in samples)
    agreements = [r["agreement"] for r in rows if r.get("agreement") is not None]
    multi = [r for r in rows if r.get("usable", 0) >= 2]
    full = [r for r in multi if r["usable"] == max(x["usable"] for x in multi)] if multi else []
    fk = fleiss_kappa([[r["pass_votes"], r["usable"] - r["pass_votes"]] for r in full]) if full else None
    lo, hi = wilson_interval(passed, n)
    return {
        "judged": n,
        "passed": passed,
        "pass_rate": passed / n if n else None,
        "pass_rate_ci95": [lo, hi],
        "mean_score": sum(scores) / len(scores) if scores else None,
        "score_distribution": {f"{k:.1f}": v for k, v in sorted(Counter(round(s, 1) for s in scores).items())},
        "errors": dict(sorted(errors.items())),
        "unparseable_traces": sum(_unparseable(r) for r in rows),
        "samples": {"total": len(samples), **{k: v for k, v in sorted(statuses.items())}},
        "sample_agreement": {
            "mean": sum(agreements) / len(agreements) if agreements else None,
            "unanimous": (sum(a >= 1.0 for a in (r["agreement"] for r in multi)) / len(multi)) if multi else None,
            "fleiss_kappa": fk,
            "traces_with_2plus_samples": len(multi),
        },
    }


def calibration(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Judge vs exact oracle on the rows of formal cases; None when there are none."""
    formal = [r for r in rows if r.get("formal") is not None]
    if not formal:
        return None
    out = _agreement(formal)
    parsed = [r for r in formal if not _unparseable(r)]
    out["excluding_unparseable"] = _agreement(parsed) if parsed else None
    by_outcome: dict[str, list[float]] = {"oracle_pass": [], "oracle_fail": []}
    for r in formal:
        if r["verdict"].get("score") is not None:
            by_outcome["oracle_pass" if r["formal"]["passed"] else "oracle_fail"].append(r["verdict"]["score"])
    out["mean_score"] = {k: (sum(v) / len(v) if v else None) for k, v in by_outcome.items()}
    return out


def _agreement(rows: list[dict[str, Any]]) -> dict[str, Any]:
    judge = [bool(r["verdict"]["passed"]) for r in rows]
    oracle = [bool(r["formal"]["passed"]) for r in rows]
    n = len(rows)
    both_pass = sum(j and o for j, o in zip(judge, oracle))
    judge_only = sum(j and not o for j, o in zip(judge, oracle))
    oracle_only = sum(o and not j for j, o in zip(judge, oracle))
    both_fail = n - both_pass - judge_only - oracle_only
    return {
        "cases": n,
        "confusion": {"judge_pass_oracle_pass": both_pass, "judge_pass_oracle_fail": judge_only,
                      "judge_fail_oracle_pass": oracle_only, "judge_fail_oracle_fail": both_fail},
        "agreement": (both_pass + both_fail) / n if n else None,
        "cohen_kappa": cohen_kappa(judge, oracle),
        "judge_pass_rate": sum(judge) / n if n else None,
        "oracle_pass_rate": sum(oracle) / n if n else None,
    }
