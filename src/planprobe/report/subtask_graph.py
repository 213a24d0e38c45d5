"""The layout of a PMC sub-task graph for the case drill-down (issue #15).

Only numbers and plain strings leave here; the page draws the SVG with DOM calls and
``textContent``, so no text from a model is ever parsed as markup. Sub-tasks sit in
columns by wave (a wave runs concurrently and depends only on earlier waves)."""

from __future__ import annotations

from typing import Any

COL_W, ROW_H, BOX_W, BOX_H, PAD = 200, 70, 170, 48, 10


def graph_layout(trace: dict[str, Any]) -> dict[str, Any] | None:
    """{"w", "h", "nodes": [{id, label, executor, x, y, rewritten}], "edges": [[x1, y1, x2, y2]],
    "global": [...]} for a trace with a PMC plan, else None."""
    info = (trace.get("meta") or {}).get("pmc") or {}
    plan = info.get("plan")
    if not isinstance(plan, dict) or not plan.get("subtasks"):
        return None
    subs = {str(s.get("id")): s for s in plan["subtasks"] if isinstance(s, dict)}
    waves = info.get("waves") or []
    placed = [sid for wave in waves for sid in wave]
    waves = list(waves) + ([[sid for sid in subs if sid not in placed]] if len(placed) < len(subs) else [])
    pos: dict[str, tuple[int, int]] = {}
    for col, wave in enumerate(waves):
        for row, sid in enumerate(wave):
            pos[str(sid)] = (PAD + col * COL_W, PAD + row * ROW_H)
    nodes = [{"id": sid, "label": str(s.get("description", ""))[:60], "executor": str(s.get("executor", "")),
              "x": pos[sid][0], "y": pos[sid][1], "rewritten": sid in (info.get("rewritten") or {})}
             for sid, s in subs.items() if sid in pos]
    edges = [[pos[d][0] + BOX_W, pos[d][1] + BOX_H // 2, pos[sid][0], pos[sid][1] + BOX_H // 2]
             for sid, s in subs.items() for d in (s.get("depends_on") or []) if sid in pos and str(d) in pos]
    rows = max((len(w) for w in waves), default=1)
    return {"w": PAD * 2 + max(len(waves), 1) * COL_W, "h": PAD * 2 + rows * ROW_H, "bw": BOX_W, "bh": BOX_H,
            "nodes": nodes, "edges": edges, "global": [str(g) for g in plan.get("global_constraints") or []]}
