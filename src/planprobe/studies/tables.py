"""The study's tables as text, laid out as the paper lays them out: its rows and columns in
its order, the published figures beside this study's (each new figure with its 95% interval),
"—" where a figure could not be measured (and, under the table, why), and a one-line reading.

Works on ``study.json``'s form (``StudyTable.to_json``), so a finished directory prints the same
tables again without running anything (``planprobe study NAME --out DIR`` on a complete DIR).
"""

from __future__ import annotations

from typing import Any

DASH = "—"


def _cell(value: Any) -> tuple[str, str | None]:
    """(text, why it is missing or None)."""
    if value is None:
        return "", None
    if isinstance(value, dict):
        if "missing" in value:
            return DASH, str(value["missing"])
        return str(value.get("text", "")), None
    return str(value), None


def render_table(table: dict[str, Any]) -> list[str]:
    cols = [table.get("row_header") or ""] + list(table["columns"])
    grid: list[list[str]] = []
    whys: dict[str, list[str]] = {}  # why -> the columns it is the reason for (one line per reason)
    for row in table["rows"]:
        line = [str(row["label"])]
        for c in table["columns"]:
            text, why = _cell(row["cells"].get(c))
            line.append(text)
            if why is not None and c not in whys.setdefault(why, []):
                whys[why].append(c)
        grid.append(line)
    widths = [max(len(r[i]) for r in [cols, *grid]) for i in range(len(cols))]

    def fmt(r: list[str]) -> str:
        return "  ".join(r[i].ljust(widths[i]) if i == 0 else r[i].rjust(widths[i]) for i in range(len(r))).rstrip()

    where = table["where"]
    head = f"{where}: {table['title']}" if where != "planprobe" else f"{table['title']}"
    out = [head + f"  [{table['id']}]", "  " + fmt(cols), "  " + "  ".join("-" * w for w in widths)]
    out += ["  " + fmt(r) for r in grid]
    out += [f"  {DASH} {', '.join(c)}: {w}" for w, c in whys.items()]
    out += [f"  note: {n}" for n in table.get("notes", [])]
    if table.get("reading"):
        out.append(f"  reading: {table['reading']}")
    return out


def render_study(data: dict[str, Any], settings: bool = True) -> str:
    """The whole study: what it is, its settings with their places in the paper, its tables."""
    ident = data["identity"]
    out = [f"study {data['study']}: {data['paper']}",
           (f"agent {ident['agent']}, model {ident.get('model') or 'none'}, size {ident['size']}, seed {ident['seed']}, "
           f"planprobe {data['planprobe_version']}, status {data['status']}")]
    if data.get("note"):
        out.append("NOTE: " + data["note"])
    if settings:
        out.append("settings (where the paper states them; 'chosen': the paper is silent, planprobe's choice):")
        for s in data["settings"]:
            out.append(f"  {s['name']}: {s['value']}  — {'chosen: ' if s['chosen'] else ''}{s['where']}")
    for table in data.get("tables", []):
        out.append("")
        out += render_table(table)
    if data.get("notes"):
        out.append("")
        out += [f"note: {n}" for n in data["notes"]]
    return "\n".join(out)
