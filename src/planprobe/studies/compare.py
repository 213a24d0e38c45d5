"""``study compare``: several study directories of one study side by side — every figure of
each, lined up by (table, row, column role), and, where two directories ran the same cases (same study, size and seed: the same
suites), paired tests over those cases: exact McNemar on the discordant cases of every run
the two share, per run and pooled over the study."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import PlanprobeError
from .directory import read_study


def compare_studies(directories: list[Path]) -> dict[str, Any]:
    from ..analysis.compare import compare_runs
    from ..analysis.stats import mcnemar_exact
    from ..runner.store import RunStore

    if len(directories) < 2:
        raise PlanprobeError("study compare needs at least two study directories")
    studies = [read_study(d) for d in directories]
    names = {s["study"] for s in studies}
    if len(names) > 1:
        raise PlanprobeError(f"the directories hold different studies ({', '.join(sorted(names))}): compare "
                             "directories of one study")
    for d, s in zip(directories, studies):
        if s.get("status") != "complete":
            raise PlanprobeError(f"{d}: the study is {s.get('status')}; finish it first (run the same command again)")
    labels = [f"{s['identity']['agent']} / {s['identity'].get('model') or 'no model'} ({d})"
              for d, s in zip(directories, studies)]
    # every figure of the first, with the same figure of the others beside it; a row or column
    # named after the study's own agent/model is keyed by its role ("yours …"), so two models'
    # studies of one paper line up row by row
    keyed = [{_figure_key(f, s["identity"]): f for f in s["figures"] if f["source"] != "paper"} for s in studies]
    figures = []
    order: list[tuple[str, str, str]] = []
    for k in keyed:  # every figure any of them has, in the order the first (then the next) prints them
        order += [key for key in k if key not in order]
    for key in order:
        figures.append({"table": key[0], "row": key[1], "column": key[2], "values": [k.get(key) for k in keyed]})
    pairs = []
    base = Path(directories[0])
    for j in range(1, len(directories)):
        other = Path(directories[j])
        shared = sorted(set(studies[0].get("runs", [])) & set(studies[j].get("runs", [])))
        per_run, a_only, b_only, n = [], 0, 0, 0
        for run in shared:
            a, b = RunStore(base / run), RunStore(other / run)
            try:
                c = compare_runs(a, b)
            except PlanprobeError:
                continue  # not the same cases: no pairing for this run
            finally:
                a.close()
                b.close()
            per_run.append({"run": run, "pairs": c.pairs, "rate_a": round(c.rate_a, 6), "rate_b": round(c.rate_b, 6),
                            "a_only": c.a_only, "b_only": c.b_only, "mcnemar_p": _sig(c.p_value)})
            a_only += c.a_only
            b_only += c.b_only
            n += c.pairs
        pairs.append({"a": 0, "b": j, "runs": per_run, "pairs": n, "a_only": a_only, "b_only": b_only,
                      "mcnemar_p": _sig(mcnemar_exact(a_only, b_only)) if n else None})
    return {"study": studies[0]["study"], "labels": labels, "figures": figures, "paired": pairs,
            "sizes": [s["identity"]["size"] for s in studies]}


def _own_labels(identity: dict[str, Any]) -> list[str]:
    """The ways a study names its own row or column (studies.base.yours, pmc's shorter form),
    longest first so the full name is replaced before its prefix."""
    agent, model = identity.get("agent"), identity.get("model")
    names = [f"yours: {agent} / {model or 'no model'}", f"yours: {model}" if model else "", f"yours: {agent}"]
    return sorted({n for n in names if n}, key=len, reverse=True)


def _role(label: str, identity: dict[str, Any]) -> str:
    """A row or column label with the study's own agent/model replaced by "yours"."""
    for own in _own_labels(identity):
        if own in label:
            return label.replace(own, "yours")
    return label


def _figure_key(figure: dict[str, Any], identity: dict[str, Any]) -> tuple[str, str, str]:
    return (figure["table"], _role(str(figure.get("row", "")), identity), _role(str(figure["column"]), identity))


def _sig(p: float) -> float:
    """A p-value to 6 significant digits (rounding to decimals would turn 1e-9 into 0)."""
    return float(f"{p:.6g}")


def render_comparison(data: dict[str, Any]) -> str:
    labels = data["labels"]
    out = [f"study {data['study']}: {len(labels)} directories"]
    out += [f"  [{i + 1}] {lab}" for i, lab in enumerate(labels)]
    if any(s != "full" for s in data["sizes"]):
        out.append("NOTE: quick figures are not comparable with the paper's")
    out.append("figures (each with its 95% interval):")
    names = [" ".join(x for x in (f["table"], f["row"], f["column"]) if x) for f in data["figures"]]
    width = max((len(n) for n in names), default=10)
    for name, f in zip(names, data["figures"]):
        cells = []
        for v in f["values"]:
            if v is None:
                cells.append("—".rjust(22))
            else:
                lo, hi = v["ci95"]
                cells.append(f"{100 * v['value']:5.1f}% [{100 * lo:.0f}-{100 * hi:.0f}] n={v['n']}".rjust(22))
        out.append(f"  {name.ljust(width)}  " + "  ".join(cells))
    for p in data["paired"]:
        head = f"paired [1] vs [{p['b'] + 1}]"
        if not p["pairs"]:
            out.append(f"{head}: no run with the same cases (another size or seed): no paired test")
            continue
        out.append(f"{head}: {p['pairs']} paired cases over {len(p['runs'])} runs; passed only in [1]: {p['a_only']}, "
                   f"only in [{p['b'] + 1}]: {p['b_only']}; exact McNemar p = {p['mcnemar_p']:.3g}")
        for r in p["runs"]:
            if r["a_only"] or r["b_only"]:
                out.append(f"  {r['run']}: {100 * r['rate_a']:.1f}% vs {100 * r['rate_b']:.1f}% "
                           f"({r['pairs']} cases) p = {r['mcnemar_p']:.3g}")
    return "\n".join(out)
