"""One offline HTML page for a debug run: per failed case, the step timeline with the formal
labels (E, the point of no return, the budget PNR), the detector's pick, and the repair rounds
side by side. Everything shown comes from traces or models and is escaped."""

from __future__ import annotations

from html import escape
from typing import Any

STYLE = """body{font:14px sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;
padding:3px 6px;vertical-align:top}.e{background:#fdd}.pnr{outline:3px solid #a00}.pick{background:#ddf}
.e.pick{background:#dbf}.ok{color:#070}.bad{color:#a00}pre{white-space:pre-wrap;max-width:60em;margin:0}"""


def _cell(k: int, e: Any, pnr: Any, budget: Any, pick: Any) -> str:
    cls = " ".join(c for c, on in (("e", k == e), ("pnr", k in (pnr, budget)), ("pick", k == pick)) if on)
    marks = [m for m, on in (("E", k == e), ("PNR", k == pnr), ("budget PNR", k == budget), ("pick", k == pick))
             if on]
    return f'<td class="{cls}" title="{escape(", ".join(marks))}">{k}<br>{escape(" ".join(marks))}</td>'


def render(run: str, detector: str, cases: list[dict[str, Any]]) -> str:
    """``cases``: per case {labels: FormalLabels json, repair: CaseRepair json}."""
    out = [f"<!doctype html><meta charset=utf-8><title>{escape(f'debug {run}')}</title><style>{STYLE}</style>",
           f"<h1>Debugging {escape(run)} with {escape(detector)}</h1>"]
    for c in cases:
        lab, rep = c["labels"], c["repair"]
        crit = lab.get("critical") or {}
        e = crit.get("step")
        pnr = (lab.get("pnr") or {}).get("step")
        budget = (lab.get("budget_pnr") or {}).get("step")
        pick = (rep.get("pick") or {}).get("critical_step")
        out.append(f"<h2>{escape(str(lab['case_id']))} (trial {int(lab.get('trial', 0))})</h2>")
        out.append(f"<p>E: step {escape(str(e))} {escape(str(crit.get('module', '')))}/"
                   f"{escape(str(crit.get('type', '')))} — {escape(str(crit.get('evidence', '')))}<br>"
                   f"detector pick: step {escape(str(pick))} {escape(str((rep.get('pick') or {}).get('critical_module', '')))}"
                   f"/{escape(str((rep.get('pick') or {}).get('error_type', '')))}</p>")
        steps = int(lab.get("steps", 0)) + 1
        out.append("<table><tr>" + "".join(_cell(k, e, pnr, budget, pick) for k in range(1, steps + 1))
                   + "</tr></table>")
        if lab.get("labels"):
            out.append("<ul>" + "".join(f"<li>step {int(x['step'])}: {escape(x['module'])}/{escape(x['type'])} "
                                        f"({escape(x['how'])}) {escape(x.get('evidence', ''))}</li>"
                                        for x in lab["labels"]) + "</ul>")
        rounds = rep.get("rounds") or []
        if rounds:
            out.append("<table><tr>" + "".join(f"<th>round {int(r['round'])}</th>" for r in rounds) + "</tr><tr>")
            for r in rounds:
                verdict = ('<span class="ok">passed</span>' if r["passed"] else
                           f'<span class="bad">failed: {escape(", ".join(r["errors"]))}</span>')
                out.append(f"<td>{verdict}<br>from step {int(rep.get('from_step', 0))}, {int(r.get('tokens', 0))} "
                           f"tokens<pre>{escape(str(r.get('guidance') or '(no feedback)'))}</pre></td>")
            out.append("</tr></table>")
    return "\n".join(out) + "\n"
