"""Results as terminal tables (rich)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ..analysis.summary import RunSummary, Tally


def _rate(t: Tally) -> str:
    if not t.cases:
        return "-"
    lo, hi = t.to_json()["ci95"]
    return f"{100 * t.passed / t.cases:5.1f}%  [{100 * lo:.0f}-{100 * hi:.0f}]"


LIMIT_WORDS = {"time_limit": "time limit", "iteration_limit": "iteration limit"}


def _error_text(t: Tally, error: str, count: int) -> str:
    text = f"{error} {count}"
    if error == "timeout" and t.timeouts:
        text += " (" + ", ".join(f"{LIMIT_WORDS.get(k, k)} {n}" for k, n in sorted(t.timeouts.items())) + ")"
    return text


def _errors(t: Tally) -> str:
    return ", ".join(_error_text(t, k, v) for k, v in t.errors.most_common()) or "-"


# difficulty measures shown per action count (means over the suite's cases), when the family records them
DIFFICULTY_COLUMNS = {"constraints": "constraints", "restatements": "restated", "unconstrained": "unconstrained",
                      "words": "words"}


def difficulty_table(summary: RunSummary) -> Table | None:
    """Per action count, the mean of each difficulty measure the cases record; None if none do."""
    shown = [key for key in DIFFICULTY_COLUMNS if any(key in d for d in summary.difficulty.values())]
    if not shown:
        return None
    table = Table(title="difficulty per case (means)", title_justify="left")
    table.add_column("actions", justify="right")
    for key in shown:
        table.add_column(DIFFICULTY_COLUMNS[key], justify="right")
    for k, d in sorted(summary.difficulty.items()):
        table.add_row(str(k), *[f"{d[key]:.1f}" if key in d else "-" for key in shown])
    return table


def summary_table(summary: RunSummary, title: str | None = None) -> Table:
    agent = summary.meta.get("agent", "?")
    model = summary.meta.get("model")
    table = Table(title=title or f"agent {agent}" + (f" · model {model}" if model else ""), title_justify="left")
    table.add_column("actions", justify="right")
    table.add_column("cases", justify="right")
    table.add_column("passed", justify="right")
    table.add_column("pass rate [95% CI]", justify="right")
    table.add_column("failures by primary class")
    for k, t in sorted(summary.by_actions.items()):
        table.add_row(str(k), str(t.cases), str(t.passed), _rate(t), _errors(t))
    o = summary.overall
    table.add_row("all", str(o.cases), str(o.passed), _rate(o), _errors(o), style="bold", end_section=True)
    notes = []
    u = summary.usage
    if u.get("model_calls") or u.get("cached_calls"):
        tokens = (u["prompt_tokens"] or 0) + (u["completion_tokens"] or 0)  # counts, never None
        notes.append(f"{u['model_calls']} model calls ({u['cached_calls']} replayed from cache), {tokens:,} tokens"
                     + (f", ${u['cost_usd']:.4f}" if u.get("cost_usd") is not None else ""))
    if summary.infra:
        notes.append(f"{summary.infra} infrastructure failures excluded")
    if summary.pending:
        notes.append(f"{summary.pending} results pending (resume with the same --out)")
    if notes:
        table.caption = "; ".join(notes)
    return table


def comparison_table(rows: list[tuple[str, RunSummary]], title: str = "") -> Table:
    """One row per agent: the main job's results table."""
    table = Table(title=title or None, title_justify="left")
    table.add_column("agent")
    table.add_column("cases", justify="right")
    table.add_column("pass rate [95% CI]", justify="right")
    table.add_column("failures by primary class")
    for name, s in rows:
        table.add_row(name, str(s.overall.cases), _rate(s.overall), _errors(s.overall))
    return table


def print_table(table: Table, console: Console | None = None) -> None:
    (console or Console()).print(table)
