"""The study section of ``planprobe report DIR`` for a study directory: the paper's tables as
``planprobe study`` prints them (published figures beside yours, 95% intervals, "—" with why,
the reading) and the paper's plots (e.g. PDoctor's success rate vs |A| with the 20% line),
from ``DIR/study.json`` alone. One self-contained HTML file; every text is escaped."""

from __future__ import annotations

import html
from typing import Any

from ..version import __version__
from .plots import COLORS, _plain, _pyplot, _save, _text, svg_inline


def plot_svg(plot: dict[str, Any]) -> str:
    """One study plot: a line per series with Wilson 95% error bars (and the threshold, if any)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.6, 3.1))
    for k, s in enumerate(plot["series"]):
        pts = s["points"]
        xs = [p["x"] for p in pts]
        ys = [100 * p["y"] for p in pts]
        lo = [max(0.0, 100 * (p["y"] - p["lo"])) for p in pts]
        hi = [max(0.0, 100 * (p["hi"] - p["y"])) for p in pts]
        ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", ms=4, capsize=3, lw=1.5, color=COLORS[k % len(COLORS)],
                    label=_text(s["label"]))
    if plot.get("threshold") is not None:
        ax.axhline(100 * plot["threshold"], ls="--", lw=1, color="#6b7280")
    if plot.get("xticks"):
        ax.set_xticks(range(len(plot["xticks"])), [_text(t) for t in plot["xticks"]])
    else:
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # action numbers
    ax.set_ylim(-2, 102)
    ax.set_xlabel(_plain(plot["x"]))
    ax.set_ylabel("success rate (%)")
    ax.set_title(_text(plot["title"]))
    ax.grid(alpha=0.3)
    ax.legend(frameon=False, loc="best", fontsize=7)
    return svg_inline(_save(fig, "svg")) or ""


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, dict):
        if "missing" in value:
            return f'<span title="{html.escape(str(value["missing"]))}">—</span>'
        return html.escape(str(value.get("text", "")))
    return html.escape(str(value))


def table_html(table: dict[str, Any]) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in [table.get("row_header") or "", *table["columns"]])
    rows = []
    for r in table["rows"]:
        cells = "".join(f"<td>{_cell(r['cells'].get(c))}</td>" for c in table["columns"])
        rows.append(f'<tr class="{html.escape(r["source"])}"><th>{html.escape(r["label"])}</th>{cells}</tr>')
    whys: dict[str, list[str]] = {}
    for r in table["rows"]:
        for c in table["columns"]:
            v = r["cells"].get(c)
            if isinstance(v, dict) and "missing" in v:
                whys.setdefault(str(v["missing"]), [])
                if c not in whys[str(v["missing"])]:
                    whys[str(v["missing"])].append(c)
    notes = [f"— {', '.join(cols)}: {why}" for why, cols in whys.items()] + list(table.get("notes", []))
    where = "" if table["where"] == "planprobe" else f"{table['where']}: "
    return (f'<section class="table"><h3>{html.escape(where + table["title"])} '
            f'<small>[{html.escape(table["id"])}]</small></h3><table><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>"
            + "".join(f'<p class="note">{html.escape(n)}</p>' for n in notes)
            + (f'<p class="reading"><b>reading:</b> {html.escape(table["reading"])}</p>' if table.get("reading") else "")
            + "</section>")


CSS = ("body{font-family:system-ui,sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse;margin:.5em 0}"
       "td,th{border:1px solid #d1d5db;padding:.2em .5em;text-align:right}tbody th{text-align:left}"
       "tr.paper{color:#4b5563}tr.planprobe{background:#eff6ff}.note{font-size:.85em;color:#4b5563;margin:.1em 0}"
       ".warn{background:#fef3c7;padding:.4em}")


def render_study_report(data: dict[str, Any]) -> str:
    ident = data["identity"]
    parts = [f"<h1>planprobe study {html.escape(data['study'])}</h1>",
             f"<p>{html.escape(data['paper'])}</p>",
             (f"<p>agent {html.escape(str(ident['agent']))}, model {html.escape(str(ident.get('model') or 'none'))}, "
             f"size {html.escape(str(ident['size']))}, seed {int(ident['seed'])}; status "
             f"{html.escape(str(data['status']))}</p>")]
    if data.get("note"):
        parts.append(f'<p class="warn">{html.escape(data["note"])}</p>')
    parts.append("<h2>Plots</h2>")
    parts += [f'<figure>{plot_svg(p)}</figure>' for p in data.get("plots", [])]
    parts.append("<h2>Tables</h2>")
    parts += [table_html(t) for t in data.get("tables", [])]
    parts += [f'<p class="note">note: {html.escape(n)}</p>' for n in data.get("notes", [])]
    parts.append("<h2>Settings</h2><table><thead><tr><th>setting</th><th>value</th><th>where in the paper</th></tr>"
                 "</thead><tbody>" + "".join(
                     f"<tr><th>{html.escape(s['name'])}</th><td>{html.escape(str(s['value']))}</td>"
                     f"<td>{'chosen: ' if s['chosen'] else ''}{html.escape(s['where'])}</td></tr>"
                     for s in data["settings"]) + "</tbody></table>")
    parts.append("<p class=\"note\">every run of the study is an ordinary run directory: "
                 + html.escape(", ".join(data.get("runs", [])[:12]) + (" …" if len(data.get("runs", [])) > 12 else ""))
                 + " (planprobe report DIR/&lt;run&gt; for its cases)</p>")
    title = html.escape(f"planprobe study {data['study']}")
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
            f"img-src data:\"><style>{CSS}</style></head><body>{''.join(parts)}"
            f"<footer><p class=\"note\">planprobe {html.escape(__version__)}</p></footer></body></html>\n")
