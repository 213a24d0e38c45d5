"""The AgentDebug study's tables, from what its steps wrote (``FamilyResult`` per family): the error
bench, Table 1 (detection), planprobe's formal scores, Fig. 7b, Fig. 5 and the repairs paired
against Best-of-N, Fig. 7c, and the data of Fig. 7a's plot. Reading only: nothing here runs a model.
"""

from __future__ import annotations

from typing import Any

from .agentdebug_setup import (
    FAMILIES,
    METRICS,
    NO_FAILURE,
    PAPER_DETECTORS,
    PLANPROBE_DETECTORS,
    PLANPROBE_REPAIRS,
    REPAIRS,
    SIZES,
    FamilyResult,
)
from .base import Measure, Missing, StudyContext, StudyTable, TableRow, yours
from .paper_data import add_published_rows, find_published, norm


def bench_table(ctx: StudyContext, results: dict[str, FamilyResult]) -> StudyTable:
    from collections import Counter

    t = StudyTable(id="agentdebug.bench", where="planprobe", row_header="family (in the place of)",
                   title="planprobe's error bench: the failures of your agent, labelled formally",
                   columns=["cases", "first-attempt success", "failures labelled", "with a step to name",
                            "E by module"])
    for fam, title, env in FAMILIES:
        r = results[fam]
        mods = Counter(x["critical_error"]["critical_module"] for x in r.scored)
        t.rows.append(TableRow(f"{title} ({env})", {
            "cases": str(r.cases), "first-attempt success": Measure(r.passed, r.cases),
            "failures labelled": str(len(r.bench or [])), "with a step to name": str(len(r.scored)),
            "E by module": ", ".join(f"{m} {k}" for m, k in sorted(mods.items(), key=lambda kv: (-kv[1], kv[0])))
            or "—"}, source="planprobe"))
    total = sum(len(r.scored) for r in results.values())
    t.notes.append("E: the earliest formally detectable error of each failed trace (planprobe label); a failure "
                   "with no step (no action, no answer) is labelled but has no step to name, as in errorbench")
    t.reading = (f"{yours(ctx)}: {total} failed trajectories with a step to name make the bench" if total else
                 f"{yours(ctx)}: no failed trajectory with a step: the detection tables have nothing to score")
    return t

def table1(ctx: StudyContext, results: dict[str, FamilyResult], why_no_model: str) -> StudyTable:
    from ..debug.detectors import MODEL_DETECTORS

    cols = [f"{env} / {title} {m}" for _, title, env in FAMILIES for m, _ in METRICS]
    cols += [f"Average {m}" for m, _ in METRICS]
    t = StudyTable(id="agentdebug.table1", where="Table 1", row_header="Method",
                   title="critical-error detection accuracy: Step (S), Step+Module (S+M), All correct (ALL)",
                   columns=cols)
    published = find_published("agentdebug.table1")
    if published is not None:  # the paper's "ALFWorld S" goes under "ALFWorld / Blocksworld S"
        place = {norm(f"{env} {m}"): f"{env} / {title} {m}" for _, title, env in FAMILIES for m, _ in METRICS}
        place.update({norm(f"Average {m}"): f"Average {m}" for m, _ in METRICS})
        for prow in published.rows:
            cells: dict[str, Any] = {place[norm(k)]: v.text for k, v in prow.cells.items() if norm(k) in place}
            t.rows.append(TableRow(prow.label, cells, source="paper"))
    else:
        add_published_rows(t)  # says it is not shipped
    for det, title in PAPER_DETECTORS + PLANPROBE_DETECTORS:
        label = f"yours: {title} ({ctx.config.model or 'no model'})" if det in MODEL_DETECTORS else title
        cells = {}
        for fam, ftitle, env in FAMILIES:
            scores = _score(results[fam], det)
            for m, key in METRICS:
                cells[f"{env} / {ftitle} {m}"] = _cell(scores, key, det, why_no_model, results[fam])
        pooled = _pooled(results, det)
        for m, key in METRICS:
            cells[f"Average {m}"] = (Missing(why_no_model) if pooled is None and det in MODEL_DETECTORS else
                                     Missing(NO_FAILURE) if pooled is None or not pooled.n else
                                     Measure(getattr(pooled, key), pooled.n))
        t.rows.append(TableRow(label, cells, source="yours" if det in MODEL_DETECTORS else "planprobe"))
    t.notes.append("the paper's rows: its environments (left of each '/'), human-annotated truth; yours: "
                   "planprobe's family in that place (right), the formal labels as truth")
    t.notes.append("planprobe's Brute Force and Binary Search name a step only (a yes/no question per prefix, "
                   "docs/debugging.md): their S+M and ALL are 0 by construction")
    t.notes.append("Average: the paper averages the three environments' rates; planprobe pools the trajectories "
                   "(each figure with its 95% Wilson interval)")
    chance = _chance(results)
    if chance is not None:
        t.notes.append(f"chance: a uniform pick names the step with probability {100 * chance:.1f}% on average "
                       "(1/n over each trajectory's n steps)")
    t.reading = _reading_table1(ctx, results)
    return t

def formal(ctx: StudyContext, results: dict[str, FamilyResult]) -> StudyTable:
    t = StudyTable(id="agentdebug.formal", where="planprobe", row_header="detector",
                   title="planprobe's: the detectors against the formal labels beyond Table 1",
                   columns=["answered", "within [E, PNR]", "mean |distance| from E", "model calls", "tokens"])
    best = None
    for det, title in PAPER_DETECTORS + PLANPROBE_DETECTORS:
        pooled = _pooled(results, det)
        if pooled is None:
            continue
        label = f"{title} ({ctx.config.model})" if not title.startswith("planprobe") else title
        if not pooled.n:
            t.rows.append(TableRow(label, {c: Missing(NO_FAILURE) for c in t.columns}, source="planprobe"))
            continue
        dist = (f"{sum(pooled.distances) / len(pooled.distances):.2f} steps" if pooled.distances
                else Missing("no pick answered"))
        t.rows.append(TableRow(label, {"answered": Measure(pooled.answered, pooled.n),
                                       "within [E, PNR]": Measure(pooled.within, pooled.n),
                                       "mean |distance| from E": dist, "model calls": str(pooled.calls),
                                       "tokens": str(pooled.tokens)}, source="planprobe"))
        if det != "oracle" and (best is None or pooled.within > best[1]):
            best = (title, pooled.within, pooled.n)
    overflow = sum(1 for r in results.values() for rows in (r.picks or {}).values() for p in rows
                   if p.get("no_answer"))
    if overflow:
        t.notes.append(f"{overflow} pick(s) without an answer: the trajectory did not fit the model's context "
                       "window; counted in n, never guessed")
    t.notes.append("within [E, PNR]: the pick lies between the earliest error and the point of no return (or the "
                   "budget PNR) — every step there still leads to the loss; the paper has no such notion")
    t.reading = (f"closest to the formal labels (within [E, PNR], the oracle aside): {best[0]} "
                 f"({Measure(best[1], best[2]).text()})" if best and best[2] else NO_FAILURE)
    return t

def figure7b(ctx: StudyContext, results: dict[str, FamilyResult], why_no_model: str) -> StudyTable:
    t = StudyTable(id="agentdebug.figure7b", where="Fig. 7b", row_header="Base Model",
                   title="AgentDebug's detection accuracy by its base model: Step, Error (type), Step+M, All",
                   columns=["Step", "Error", "Step+M", "All"])
    add_published_rows(t)
    pooled = _pooled(results, "agentdebug")
    label = f"yours: {ctx.config.model or 'no model'}"
    if pooled is None:
        t.rows.append(TableRow(label, {c: Missing(why_no_model) for c in t.columns}))
        t.reading = "no model: AgentDebug's detector was not run"
    elif not pooled.n:
        t.rows.append(TableRow(label, {c: Missing(NO_FAILURE) for c in t.columns}))
        t.reading = NO_FAILURE
    else:
        rows = [p for fam in results.values() for p in (fam.picks or {}).get("agentdebug", [])]
        error = sum(1 for p in rows if p["pick"].get("error_type") and p["truth"] and
                    p["pick"]["error_type"] == p["truth"]["error_type"])
        t.rows.append(TableRow(label, {"Step": Measure(pooled.step, pooled.n), "Error": Measure(error, pooled.n),
                                       "Step+M": Measure(pooled.step_module, pooled.n),
                                       "All": Measure(pooled.all_correct, pooled.n)}))
        t.reading = (f"{label} as AgentDebug's detector: step {Measure(pooled.step, pooled.n).text()}, all correct "
                     f"{Measure(pooled.all_correct, pooled.n).text()}"
                     + _paper("agentdebug.figure7b", "GPT-4.1", ("Step", "All"), "GPT-4.1 in the paper"))
    t.notes.append("pooled over the three families; Error: the error type alone right, at any step")
    return t

def success(results: dict[str, FamilyResult], fams: list[str], cond: str,
             rounds: int) -> Measure | None:
    total = sum(results[f].cases for f in fams)
    passed = sum(results[f].passed for f in fams)
    fixed = 0
    for f in fams:
        rows = (results[f].repairs or {}).get(cond)
        if rows is None:
            if results[f].bench:  # failures, and this condition was not run
                return None
            continue
        fixed += sum(1 for r in rows if r["fixed_at"] is not None and r["fixed_at"] <= rounds)
    return Measure(passed + fixed, total)

def figure5(ctx: StudyContext, results: dict[str, FamilyResult], why_no_model: str, why_no_repair: str,
             rounds: int) -> StudyTable:

    t = StudyTable(id="agentdebug.figure5_text", where="Fig. 5", row_header="agent backbone",
                   title=f"task success: first attempt and after up to {_times(rounds)}",
                   columns=["First attempt", "AgentDebug", "Best-of-N", "Self-Refine"])
    add_published_rows(t)
    for row in t.rows:
        for c in ("Best-of-N", "Self-Refine"):
            row.cells[c] = Missing("the paper's baselines are only plotted (Fig. 5): not shipped")
    fams = [[f] for f, _, _ in FAMILIES] + [[f for f, _, _ in FAMILIES]]
    for group in fams:
        name = (next(f"{title}, in {env}'s place" for f, title, env in FAMILIES if f == group[0])
                if len(group) == 1 else "all families")
        cells: dict[str, Any] = {"First attempt": Measure(sum(results[f].passed for f in group),
                                                          sum(results[f].cases for f in group))}
        for cond, col in REPAIRS:
            m = success(results, group, cond, rounds)
            cells[col] = m if m is not None else Missing(why_not_run(ctx, cond, why_no_model, why_no_repair))
        t.rows.append(TableRow(f"{yours(ctx)} ({name})", cells))
    t.notes.append("the paper's figures are ALFWorld's (read from its text: 'from 21 (first attempt) to 55'); its "
                   "Blocksworld row stands in for ALFWorld; success counts a case passed at the first attempt or "
                   "fixed within the re-rollouts")
    first = t.rows[-1].cells["First attempt"]
    after = t.rows[-1].cells["AgentDebug"]
    if isinstance(first, Measure) and isinstance(after, Measure):
        t.reading = f"{yours(ctx)}: {first.text()} at the first attempt, {after.text()} with AgentDebug"
    elif isinstance(first, Measure):
        t.reading = f"{yours(ctx)}: {first.text()} at the first attempt; no AgentDebug repair (see '—')"
    return t


def why_not_run(ctx: StudyContext, cond: str, why_no_model: str, why_no_repair: str) -> str:
    """Why a repair condition has no figure: the agent cannot continue from a step, the size does not
    run it, or (the only other way) there was no model to detect with."""
    from ..agents.prefix import can_resume

    if not can_resume(ctx.agent):
        return why_no_repair
    if cond not in SIZES[ctx.size].repairs:
        return f"not run at size {ctx.size} (its repairs: {', '.join(SIZES[ctx.size].repairs)})"
    return why_no_model


def repair_table(ctx: StudyContext, results: dict[str, FamilyResult], why_no_model: str,
                  why_no_repair: str, rounds: int) -> StudyTable:
    from ..analysis.stats import mcnemar_exact

    t = StudyTable(id="agentdebug.repair", where="planprobe", row_header="repair",
                   title=f"planprobe's: failed cases fixed within {_times(rounds)}, paired against Best-of-N",
                   columns=[title for _, title, _ in FAMILIES] + ["all", "tokens", "vs Best-of-N (McNemar p)"])
    failed = sum(len(r.bench or []) for r in results.values())
    base = fixed_set(results, "none", rounds)
    for cond, title in REPAIRS + PLANPROBE_REPAIRS:
        why = why_not_run(ctx, cond, why_no_model, why_no_repair)
        cells: dict[str, Any] = {}
        fixed_all, n_all, tokens, ran = 0, 0, 0, True
        for fam, ftitle, _ in FAMILIES:
            rows = (results[fam].repairs or {}).get(cond)
            if rows is None:
                ran = ran and not results[fam].bench
                cells[ftitle] = Missing(why) if results[fam].bench else Missing("no failure to repair")
                continue
            k = sum(1 for r in rows if r["fixed_at"] is not None)
            fixed_all, n_all = fixed_all + k, n_all + len(rows)
            tokens += sum(x.get("tokens", 0) for r in rows for x in r["rounds"])
            cells[ftitle] = Measure(k, len(rows)) if rows else Missing("no failure to repair")
        cells["all"] = Measure(fixed_all, n_all) if ran and n_all else Missing(why if not ran else
                                                                               "no failure to repair")
        cells["tokens"] = str(tokens) if ran and n_all else Missing(why if not ran else "no failure to repair")
        mine = fixed_set(results, cond, rounds)
        if cond == "none":
            cells["vs Best-of-N (McNemar p)"] = "—"
        elif not failed:
            cells["vs Best-of-N (McNemar p)"] = Missing("no failure to repair")
        elif mine is None or base is None or not n_all:
            cells["vs Best-of-N (McNemar p)"] = Missing("both repairs are needed for the paired test")
        else:
            b, c = len(mine - base), len(base - mine)
            cells["vs Best-of-N (McNemar p)"] = f"{mcnemar_exact(b, c):.3g} (+{b} / −{c})"
        t.rows.append(TableRow(title, cells, source="yours" if not title.startswith("planprobe") else "planprobe"))
    t.notes.append("each failed case is re-rolled out under every repair (its attempts stored in its run, "
                   "planprobe debug); paired: the cases one repair fixes and the other does not (+ / −)")
    if not failed:
        t.reading = "no failure: nothing to repair"
    else:
        m = fixed_set(results, "agentdebug", rounds)
        t.reading = (f"AgentDebug fixed {len(m)} of {failed} failed cases, Best-of-N {len(base)}"
                     if m is not None and base is not None else
                     "AgentDebug's repair did not run (see '—')")
    return t

def fixed_set(results: dict[str, FamilyResult], cond: str, rounds: int) -> set[str] | None:
    out: set[str] = set()
    for fam, r in results.items():
        rows = (r.repairs or {}).get(cond)
        if rows is None:
            if r.bench:
                return None
            continue
        out |= {f"{fam}:{x['case_id']}#{x['trial']}" for x in rows
                if x["fixed_at"] is not None and x["fixed_at"] <= rounds}
    return out

def figure7c(ctx: StudyContext, results: dict[str, FamilyResult]) -> StudyTable:
    t = StudyTable(id="agentdebug.figure7c", where="Fig. 7c", row_header="Rollout Strategy",
                   title="first-attempt success by rollout strategy (the paper's: ALFWorld, zero-shot)",
                   columns=["Success Rate"])
    add_published_rows(t)
    bw = results["blocksworld"]
    t.rows.append(TableRow(f"{yours(ctx)} (Blocksworld)", {"Success Rate": Measure(bw.passed, bw.cases)}))
    t.notes.append("the paper's figures are fractions of ALFWorld's tasks; yours: Blocksworld in its place. Run "
                   "the study with another --agent (react, tools, modular) for another strategy's row")
    t.reading = f"{yours(ctx)}: {Measure(bw.passed, bw.cases).text()} of the Blocksworld cases at the first attempt"
    return t

def plot(ctx: StudyContext, results: dict[str, FamilyResult], rounds: int) -> dict[str, Any]:
    fams = [f for f, _, _ in FAMILIES]
    series = []
    for cond, title in REPAIRS + PLANPROBE_REPAIRS:
        pts = []
        for k in range(rounds + 1):
            m = (Measure(sum(results[f].passed for f in fams), sum(results[f].cases for f in fams)) if k == 0
                 else success(results, fams, cond, k))
            if m is None:
                break
            lo, hi = m.ci95
            pts.append({"x": k, "y": m.value, "lo": lo, "hi": hi})
        if len(pts) > 1:
            series.append({"label": title, "points": pts})
    return {"id": "agentdebug-attempts", "title": "Task success over re-rollouts (Fig. 7a)",
            "x": "re-rollouts", "series": series}


def _paper(table_id: str, row: str, columns: tuple[str, ...], what: str) -> str:
    """" (what: a and b)" from the published data; empty when it is not shipped."""
    published = find_published(table_id)
    try:
        texts = [published.cell(row, c).text for c in columns] if published is not None else []
    except LookupError:
        texts = []
    return f" ({what}: {' and '.join(texts)})" if texts else ""


def _times(rounds: int) -> str:
    return f"{rounds} re-rollout{'s' if rounds != 1 else ''}"


def _key(metadata: dict[str, Any]) -> str:
    return f"{metadata.get('task_id')}#{metadata.get('trial', 0)}"


def _score(result: FamilyResult, det: str) -> Any | None:
    """The detector's Score on the family (None when it did not run)."""
    from ..debug.detect_score import Score
    from ..debug.detectors import Pick

    rows = (result.picks or {}).get(det)
    if rows is None:
        return None
    labels = {_key(r["metadata"]): r.get("labels") for r in result.bench or []}
    score = Score()
    for row in rows:
        p = row["pick"]
        score.add(row["truth"], labels.get(f"{row['task_id']}#{row['trial']}"),
                  Pick(step=p.get("critical_step"), module=p.get("critical_module", ""), type=p.get("error_type", ""),
                       calls=p.get("model_calls", 0), tokens=p.get("tokens", 0)))
    return score


def _pooled(results: dict[str, FamilyResult], det: str) -> Any | None:
    from ..debug.detect_score import Score

    scores = [_score(r, det) for r in results.values()]
    if any(s is None for s in scores):
        return None
    total = Score()
    for s in scores:
        assert s is not None
        for f in ("n", "step", "step_module", "all_correct", "within", "answered", "calls", "tokens"):
            setattr(total, f, getattr(total, f) + getattr(s, f))
        total.distances += s.distances
    return total


def _cell(score: Any | None, key: str, det: str, why_no_model: str, result: FamilyResult) -> Any:
    if score is None:
        return Missing(why_no_model)
    if not score.n:
        return Missing(NO_FAILURE)
    return Measure(getattr(score, key), score.n)


def _chance(results: dict[str, FamilyResult]) -> float | None:
    from ..debug.detectors import last_step

    ns = [last_step(r) for fam in results.values() for r in fam.scored]
    return sum(1 / n for n in ns) / len(ns) if ns else None


def _reading_table1(ctx: StudyContext, results: dict[str, FamilyResult]) -> str:
    n = sum(len(r.scored) for r in results.values())
    if not n:
        return f"{yours(ctx)}: {NO_FAILURE}"
    mine = _pooled(results, "agentdebug")
    rnd = _pooled(results, "random")
    parts = []
    if mine is not None:
        parts.append(f"AgentDebug with {ctx.config.model}: S {Measure(mine.step, mine.n).text()}, ALL "
                     f"{Measure(mine.all_correct, mine.n).text()}"
                     + _paper("agentdebug.table1", "AgentDebug", ("Average S", "Average ALL"), "the paper's average"))
    else:
        parts.append("no model: the paper's detectors were not run")
    if rnd is not None:
        parts.append(f"random: S {Measure(rnd.step, rnd.n).text()}")
    return f"{n} failed trajectories scored; " + "; ".join(parts)

