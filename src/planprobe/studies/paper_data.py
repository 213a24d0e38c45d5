"""The papers' published figures beside a study's: read through ``studies.published``
(``find_table``), which ships them as data. A table id it does not ship (``KeyError``), or
a planprobe without that module, leaves the published side empty and says so — the study's
own figures never depend on it.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from .base import StudyTable, TableRow

NOT_SHIPPED = "the paper's figures for this table are not shipped as data in this planprobe"


def find_published(table_id: str) -> Any | None:
    """The ``PublishedTable`` with this id, or None when it is not shipped."""
    try:
        module = importlib.import_module("planprobe.studies.published")
    except ImportError:
        return None
    try:
        return module.find_table(table_id)
    except (KeyError, LookupError):
        return None


def norm(text: str) -> str:
    """Lower case, letters and digits only: "Act Error" == "act_error" == "ActError"."""
    return re.sub(r"[^0-9a-z]", "", str(text).lower())


def _cell_text(value: Any) -> str:
    text = getattr(value, "text", None)
    return str(text) if text is not None else str(value)


def add_published_rows(table: StudyTable, table_id: str | None = None, prefix: str = "",
                       columns: dict[str, str] | None = None) -> bool:
    """The paper's rows of this table above the study's (a table whose rows are agents): each
    published cell goes under the column of the same name (or the one ``columns`` maps its name
    to); a row in a group (its model) is named "group / label". False when nothing is shipped."""
    published = find_published(table_id or table.id)
    if published is None:
        table.notes.append(NOT_SHIPPED + f" ({table_id or table.id}); see the paper's {table.where}")
        return False
    by_norm = {norm(c): c for c in table.columns}
    by_norm.update({norm(k): v for k, v in (columns or {}).items()})
    rows = []
    for prow in published.rows:
        cells: dict[str, Any] = {}
        group = getattr(prow, "group", None)
        label = f"{group} / {prow.label}" if group else str(prow.label)
        for key, value in prow.cells.items():
            col = by_norm.get(norm(key))
            if col is not None:
                cells[col] = _cell_text(value)
            elif getattr(value, "value", None) is None and norm(_cell_text(value)) not in norm(label):
                label = f"{_cell_text(value)} {label}"  # a naming cell (the model of "ReAct"): part of the row's name
        rows.append(TableRow(f"{prefix}{label}", cells, source="paper"))
    table.rows[:0] = rows
    return True


def published_columns(table_id: str) -> tuple[list[str], list[Any]]:
    """A table whose columns are models (PlanBench's): the published columns that hold figures
    (those whose name is not the row header) and the published rows; empty when not shipped."""
    published = find_published(table_id)
    if published is None:
        return [], []
    cols = [c for c in published.columns
            if any(c in r.cells for r in published.rows) and norm(c) not in ("task", "domain", "agent", "model")]
    return cols, list(published.rows)


def match_row(rows: list[Any], aliases: list[str]) -> Any | None:
    """The published row whose label contains one of ``aliases`` (compared by ``norm``);
    the first alias that matches exactly one row wins."""
    for alias in aliases:
        hits = [r for r in rows if norm(alias) in norm(r.label)]
        if len(hits) == 1:
            return hits[0]
    return None


def cell_text(row: Any, column: str) -> str | None:
    value = row.cells.get(column) if row is not None else None
    return None if value is None else _cell_text(value)


def _number(text: Any) -> float | None:
    m = re.search(r"-?\d+(?:\.\d+)?", str(text).replace(",", "")) if isinstance(text, str) else None
    return float(m.group()) if m else None


def paper_largest(table: StudyTable) -> str | None:
    """How the paper's rows of a distribution table read: the column largest in each published
    row ("Order Error in 6 of 6 rows"); None when no published row is shown."""
    from collections import Counter

    top: Counter = Counter()
    rows = [r for r in table.rows if r.source == "paper"]
    for r in rows:
        values = {c: _number(r.cells.get(c)) for c in table.columns}
        known = {c: v for c, v in values.items() if v is not None}
        if known:
            top[max(known, key=lambda c: (known[c], c))] += 1
    if not top:
        return None
    return "; ".join(f"{c} largest in {n} of {len(rows)} rows" for c, n in top.most_common())


def paper_column(table: StudyTable, column: str) -> str | None:
    """The paper's rows' values in one column ("GPT-3.5 4, GPT-4 8"); None when none is shown."""
    shown = [f"{r.label} {r.cells[column]}" for r in table.rows if r.source == "paper" and r.cells.get(column)]
    return ", ".join(shown) if shown else None


def cell_counts(row: Any, column: str) -> tuple[int, int] | None:
    """(k, n) behind a published rate ("206/600 (34.3%)": its ``count`` and ``total``, else read
    from the text); None when the paper gives no counts."""
    value = row.cells.get(column) if row is not None else None
    if value is None:
        return None
    count, total = getattr(value, "count", None), getattr(value, "total", None)
    if isinstance(count, int) and isinstance(total, int) and total > 0:
        return count, total
    m = re.search(r"(\d+)\s*/\s*(\d+)", _cell_text(value))
    return (int(m.group(1)), int(m.group(2))) if m and int(m.group(2)) > 0 else None
