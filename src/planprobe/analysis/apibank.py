"""API-Bank's official figures, and PMC's whole-run ones, for a run of API-Bank cases.

Per level, from the verdict labels (infrastructure failures left out, as everywhere):

* **API accuracy** (``api`` and level-3 ``step`` cases): correct calls / calls judged —
  API-Bank's "Accuracy"; with its error categories (both in the corrected reading),
  beside the same figure in API-Bank's own reading (``official``: list arguments reach
  the API as text, so such calls fail as in API-Bank's evaluator). Levels 1-2 also give it on the
  cases whose recorded call planprobe's implementation reproduces (``gold_consistent``).
* **Sample accuracy** (level 3): requirements all of whose steps were correct / the
  requirements judged — lv3_evaluator's "Sample Accuracy".
* **ROUGE-L** (``response`` cases): the mean score — API-Bank's "Dialog score"/"Rouge-L".
* **PMC** (level-3 ``run`` cases), summed over runs: correctness = unique correct calls /
  calls made; completeness = unique correct calls / recorded calls; tool repeats = the
  number of correct calls that repeat an already matched recorded call; and the mean
  ROUGE-L of the final replies; runs passed (every call correct and every recorded
  call made) next to runs complete (every recorded call made, wrong calls ignored).
  docs/api-bank.md defines each precisely.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import Any

from ..runner.store import RunStore

FAMILIES = ("apibank", "apibank-response")


def _ratio(k: float, n: float) -> float | None:
    return round(k / n, 6) if n else None


def api_bank_metrics(store: RunStore) -> dict[str, Any]:
    """Empty when the run has no API-Bank cases."""
    families = dict(store.db.execute("SELECT case_id, family FROM cases"))
    if not any(f in FAMILIES for f in families.values()):
        return {}
    calls: dict[int, Counter] = defaultdict(Counter)
    categories: dict[int, Counter] = defaultdict(Counter)
    rouge: dict[int, list[float]] = defaultdict(list)
    steps: dict[tuple[int, Any], bool] = {}
    official_steps: dict[tuple[int, Any], bool] = {}
    run: Counter = Counter()
    run_rouge: list[float] = []
    for cid, infra, verdict_json in store.db.execute("SELECT case_id, infra, verdict FROM results"):
        if infra or families.get(cid) not in FAMILIES:
            continue
        labels = (json.loads(verdict_json).get("labels") or {}).get("api_bank") or {}
        level, kind = int(labels.get("level") or 0), labels.get("kind")
        if kind in ("api", "step"):
            readings = labels.get("readings") or {}
            ok = bool((readings.get("corrected") or labels).get("correct"))
            official = bool((readings.get("official") or labels).get("correct"))
            calls[level]["judged"] += 1
            calls[level]["correct"] += ok
            calls[level]["official_correct"] += official
            category = (readings.get("corrected") or labels).get("category")
            if category:
                categories[level][category] += 1
            if labels.get("gold_consistent"):
                calls[level]["consistent_judged"] += 1
                calls[level]["consistent_correct"] += ok
            if kind == "step":
                step_key = (level, labels.get("sample"))
                steps[step_key] = steps.get(step_key, True) and ok
                official_steps[step_key] = official_steps.get(step_key, True) and official
        elif kind == "response":
            rouge[level].append(float(labels.get("rouge_l") or 0.0))
        elif kind == "run":
            run["runs"] += 1
            complete = int(labels.get("unique_correct") or 0) == int(labels.get("required") or 0)
            run["complete"] += complete
            run["passed"] += complete and not int(labels.get("incorrect") or 0)
            for key in ("predictions", "required", "unique_correct", "repeats"):
                run[key] += int(labels.get(key) or 0)
            run_rouge.append(float(labels.get("rouge_l") or 0.0))
    out: dict[str, Any] = {}
    for level in sorted(set(calls) | set(rouge)):
        entry: dict[str, Any] = {}
        c = calls.get(level)
        if c:
            entry["api"] = {"judged": c["judged"], "correct": c["correct"],
                            "accuracy": _ratio(c["correct"], c["judged"]),
                            "errors": dict(sorted(categories[level].items())),
                            "official": {"correct": c["official_correct"],
                                         "accuracy": _ratio(c["official_correct"], c["judged"])}}
            if c["consistent_judged"]:
                entry["api"]["gold_consistent"] = {
                    "judged": c["consistent_judged"], "correct": c["consistent_correct"],
                    "accuracy": _ratio(c["consistent_correct"], c["consistent_judged"])}
        samples = [ok for (lv, _), ok in steps.items() if lv == level]
        if samples:
            official_samples = [ok for (lv, _), ok in official_steps.items() if lv == level]
            entry["sample_accuracy"] = {"samples": len(samples), "correct": sum(samples),
                                        "accuracy": _ratio(sum(samples), len(samples)),
                                        "official": {"correct": sum(official_samples),
                                                     "accuracy": _ratio(sum(official_samples), len(samples))}}
        if rouge.get(level):
            entry["rouge_l"] = {"responses": len(rouge[level]),
                                "mean": round(sum(rouge[level]) / len(rouge[level]), 6)}
        out[f"level_{level}"] = entry
    if run["runs"]:
        out["pmc"] = {"runs": run["runs"], "runs_passed": run["passed"], "runs_complete": run["complete"],
                      "predictions": run["predictions"], "required": run["required"],
                      "unique_correct": run["unique_correct"], "tool_repeats": run["repeats"],
                      "correctness": _ratio(run["unique_correct"], run["predictions"]),
                      "completeness": _ratio(run["unique_correct"], run["required"]),
                      "rouge_l": round(sum(run_rouge) / len(run_rouge), 6)}
    return out


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.2f}%"


def api_bank_lines(data: dict[str, Any]) -> list[str]:
    """The figures as short lines for the terminal and the report."""
    lines = []
    for name in sorted(k for k in data if k.startswith("level_")):
        e = data[name]
        level = name.split("_", 1)[1]
        parts = []
        if "api" in e:
            a = e["api"]
            parts.append(f"API accuracy {_pct(a['accuracy'])} ({a['correct']}/{a['judged']})")
            if "official" in a:
                parts.append(f"official reading {_pct(a['official']['accuracy'])} "
                             f"({a['official']['correct']}/{a['judged']})")
            if "gold_consistent" in a:
                g = a["gold_consistent"]
                parts.append(f"on gold-consistent calls {_pct(g['accuracy'])} ({g['correct']}/{g['judged']})")
        if "sample_accuracy" in e:
            s = e["sample_accuracy"]
            parts.append(f"sample accuracy {_pct(s['accuracy'])} ({s['correct']}/{s['samples']})")
            if "official" in s:
                parts.append(f"official reading {_pct(s['official']['accuracy'])} "
                             f"({s['official']['correct']}/{s['samples']})")
        if "rouge_l" in e:
            parts.append(f"ROUGE-L {e['rouge_l']['mean']:.4f} ({e['rouge_l']['responses']} responses)")
        lines.append(f"API-Bank level {level}: " + "; ".join(parts))
        if e.get("api", {}).get("errors"):
            errs = ", ".join(f"{k} {v}" for k, v in e["api"]["errors"].items())
            lines.append(f"API-Bank level {level} errors: {errs}")
    p = data.get("pmc")
    if p:
        lines.append(f"PMC (level 3, {p['runs']} runs): correctness {_pct(p['correctness'])} "
                     f"({p['unique_correct']}/{p['predictions']} calls), completeness {_pct(p['completeness'])} "
                     f"({p['unique_correct']}/{p['required']}), tool repeats {p['tool_repeats']}, "
                     f"ROUGE-L {p['rouge_l']:.4f}")
        lines.append(f"PMC runs passed {p['runs_passed']}/{p['runs']} (every call correct, every recorded call "
                     f"made); complete {p['runs_complete']}/{p['runs']} (every recorded call made, wrong calls "
                     "ignored)")
    return lines
