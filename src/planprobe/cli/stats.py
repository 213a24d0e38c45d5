"""``planprobe trials``, ``compare``, ``gate`` and ``anatomy``: statistics over finished runs
(pass@k, paired comparison, the CI regression gate, error anatomy)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ..atomic import write_text_atomic
from ..errors import PlanprobeError
from ..option_checks import check
from .common import labelled, out_console


def trials(
    run_dir: Path = typer.Argument(..., help="A run made with --trials k."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """pass@k and pass^k over repeated trials, with 95% bootstrap CIs, and the flaky cases."""
    from ..analysis.compare import trial_stats
    from ..runner.store import RunStore

    store = RunStore(run_dir)
    stats = trial_stats(store)
    store.close()
    if as_json:
        print(json.dumps(stats.to_json(), indent=2, sort_keys=True))
        return
    out_console.print(f"{stats.cases} cases, {stats.trials} trials each (fewest finished)")
    for k in stats.pass_at:
        (v, (lo, hi)), (w, (lo2, hi2)) = stats.pass_at[k], stats.pass_hat[k]
        out_console.print(f"k={k:<3} pass@k {100 * v:5.1f}% [{100 * lo:.1f}-{100 * hi:.1f}]   "
                          f"pass^k {100 * w:5.1f}% [{100 * lo2:.1f}-{100 * hi2:.1f}]")
    out_console.print(f"flaky cases (trials disagree): {len(stats.flaky)}")
    for cid, c, n in stats.flaky[:20]:
        out_console.print(f"  {cid}: {c}/{n} passed")


def compare(
    run_a: Path = typer.Argument(..., help="The first run (e.g. the baseline)."),
    run_b: Path = typer.Argument(..., help="The second run, of the same suite."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Paired comparison of two runs: pass rates, exact McNemar test, bootstrap CI of the difference."""
    from ..analysis.compare import compare_runs
    from ..analysis.role_usage import usage_per_case
    from ..runner.store import RunStore

    a, b = RunStore(run_a), RunStore(run_b)
    try:
        c = compare_runs(a, b)
        paired = [(cid, t) for cid, trials in c.results_b.items() for t in trials]
        usage = {"a": usage_per_case(a, paired), "b": usage_per_case(b, paired)}  # per role, over the pairs
    finally:
        a.close()
        b.close()
    if as_json:
        print(json.dumps(c.to_json() | {"usage_per_case": usage}, indent=2, sort_keys=True))
        return
    for note in c.notes:
        labelled("note:", note)
    lo, hi = c.diff_ci
    out_console.print(f"{c.pairs} paired results over {c.shared_cases} cases")
    out_console.print(f"A {run_a}: {100 * c.rate_a:.1f}%   B {run_b}: {100 * c.rate_b:.1f}%")
    out_console.print(f"difference B - A: {100 * c.diff:+.1f} pp, 95% CI [{100 * lo:+.1f}, {100 * hi:+.1f}] "
                      "(paired bootstrap)")
    out_console.print(f"only A passed: {c.a_only}, only B passed: {c.b_only}, McNemar exact p = {c.p_value:.4g}")
    for name, roles in (("A", usage["a"]), ("B", usage["b"])):
        for role, u in roles.items():
            cost = "" if u["cost_usd"] is None else f", ${u['cost_usd']:.4f}"
            out_console.print(f"{name} per case, {role}: {u['model_calls']:g} model calls, "
                              f"{u['prompt_tokens']:g} + {u['completion_tokens']:g} tokens{cost}", highlight=False)


def gate(
    run_dir: Path = typer.Argument(..., help="The run to check."),
    baseline: Path = typer.Option(..., help="The baseline run of the same suite."),
    max_drop: str = typer.Option("2pp", help="Allowed drop in pass rate, in percentage points (e.g. 2pp)."),
    alpha: float = typer.Option(0.05, help="Significance level of the exact McNemar test."),
    junit: Path | None = typer.Option(None, help="Write JUnit XML here (one test for the gate, one per case)."),
) -> None:
    """Exit 1 when the pass rate dropped by more than --max-drop and the drop is significant."""
    from ..analysis.compare import gate as run_gate
    from ..analysis.compare import junit_xml, parse_points
    from ..runner.store import RunStore

    limit = parse_points(max_drop)
    if not 0 < alpha < 1:
        raise PlanprobeError("--alpha must be between 0 and 1")
    run_store, base_store = RunStore(run_dir), RunStore(baseline)
    try:
        result = run_gate(run_store, base_store, limit, alpha)
    finally:
        run_store.close()
        base_store.close()
    for note in result.comparison.notes:
        labelled("note:", note)
    if junit is not None:
        write_text_atomic(junit, junit_xml(result))
    out_console.print(result.reason)
    if not result.passed:
        raise typer.Exit(1)


def anatomy(
    run_dirs: list[Path] = typer.Argument(..., help="One or more run directories (e.g. one per agent or model)."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
    top: int = typer.Option(10, help="Rows to show for topics and constraint shapes."),
) -> None:
    """Error anatomy: error classes per run, failures per topic and difficulty, and the
    constraint phrasings and connective words agents violate most."""
    from rich.table import Table

    from ..analysis.anatomy import anatomy as build
    from ..runner.store import RunStore

    check("--top", top, at_least=1)
    stores: list = []
    try:
        for d in run_dirs:
            stores.append((str(d), RunStore(d)))
        result = build(stores)
    finally:
        for _, st in stores:
            st.close()
    data = result.to_json()
    if as_json:
        print(json.dumps(data, indent=2, sort_keys=True))
        return
    classes = sorted({k for r in data["runs"] for k in r["error_distribution"]})
    t = Table(title="error classes among failures (share of failed cases)", title_justify="left")
    for col in ["run", "cases", "failed"] + classes:
        t.add_column(col, justify="left" if col == "run" else "right")
    for r in data["runs"]:
        t.add_row(r["run"], str(r["cases"]), str(r["cases"] - r["passed"]),
                  *[f"{100 * r['error_distribution'].get(k, 0):.1f}%" for k in classes])
    out_console.print(t)
    t = Table(title=f"topics with the most failures (top {top} per run)", title_justify="left")
    for col in ("run", "topic", "cases", "failed", "pass rate"):
        t.add_column(col, justify="left" if col in ("run", "topic") else "right")
    for r in data["runs"]:
        topics = sorted(r["by_topic"].items(), key=lambda kv: (-(kv[1]["cases"] - kv[1]["passed"]), kv[0]))
        for k, (name, v) in enumerate(topics[:top]):
            t.add_row(r["run"] if k == 0 else "", name, str(v["cases"]), str(v["cases"] - v["passed"]),
                      f"{100 * (v['pass_rate'] or 0):.1f}%", end_section=k == min(top, len(topics)) - 1)
    out_console.print(t)
    t = Table(title="by number of actions (per run)", title_justify="left")
    for col in ("run", "actions", "cases", "pass rate", "failures by primary class"):
        t.add_column(col)
    for r in data["runs"]:
        items = list(r["by_actions"].items())
        for k, (n, v) in enumerate(items):
            t.add_row(r["run"] if k == 0 else "", n, str(v["cases"]), f"{100 * (v['pass_rate'] or 0):.1f}%",
                      ", ".join(f"{e} {c}" for e, c in v["errors"].items()) or "-", end_section=k == len(items) - 1)
    out_console.print(t)
    t = Table(title=f"constraint phrasings violated most (top {top}, all runs; < before, > after)",
              title_justify="left")
    for col in ("shape", "stated", "violated", "violation rate"):
        t.add_column(col, justify="left" if col == "shape" else "right")
    for row in data["constraint_shapes"][:top]:
        t.add_row(row["shape"], str(row["stated"]), str(row["violated"]), f"{100 * row['violation_rate']:.1f}%")
    out_console.print(t)
    t = Table(title=f"connective words violated most (top {top}, all runs; ranked by the CI's lower bound)",
              title_justify="left")
    for col in ("word", "stated", "violated", "violation rate [95% CI]", "always stated with"):
        t.add_column(col, justify="left" if col in ("word", "always stated with") else "right")
    for row in data["connective_words"][:top]:
        lo, hi = row["ci95"]
        t.add_row(row["word"], str(row["stated"]), str(row["violated"]),
                  f"{100 * row['violation_rate']:.1f}% [{100 * lo:.1f}-{100 * hi:.1f}]",
                  ", ".join(row["always_with"]) or "-")
    out_console.print(t)


def register(app: typer.Typer) -> None:
    app.command()(trials)
    app.command()(compare)
    app.command()(gate)
    app.command()(anatomy)
