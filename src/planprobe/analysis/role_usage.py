"""Tokens and cost per case per agent role, so a comparison of a multi-agent planner
with a single agent shows what each role cost (issue #15 item 3).

A single-model agent has one role, ``agent``, whose usage is the trace's. An agent
that records ``meta["pmc"]["usage_by_role"]`` (PMC) is split by those roles. Means are
over the results given (the paired ones, when a comparison passes their keys).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..runner.store import RunStore
from ..schema import DEFAULT_ROLE, Trace

FIELDS = ("model_calls", "prompt_tokens", "completion_tokens")


def _roles(trace: Trace) -> dict[str, dict]:
    by_role = (trace.meta.get("pmc") or {}).get("usage_by_role")
    if by_role:
        return by_role
    return {DEFAULT_ROLE: trace.usage.model_dump()}


def usage_per_case(store: RunStore, keys: Iterable[tuple[str, int]] | None = None) -> dict[str, dict]:
    """role -> mean model calls, prompt and completion tokens and cost (None when unpriced)
    per result, over ``keys`` (case id, trial) or every result; ``"total"`` sums the roles."""
    wanted = set(keys) if keys is not None else None
    sums: dict[str, dict] = {}
    n = 0
    for trace, _ in store.results():
        if wanted is not None and (trace.case_id, trace.trial) not in wanted:
            continue
        n += 1
        for role, usage in list(_roles(trace).items()) + [("total", trace.usage.model_dump())]:
            row = sums.setdefault(role, {f: 0.0 for f in FIELDS} | {"cost_usd": None})
            for f in FIELDS:
                row[f] += usage.get(f, 0) or 0
            if usage.get("cost_usd") is not None:
                row["cost_usd"] = (row["cost_usd"] or 0.0) + usage["cost_usd"]
    return {role: {k: (None if v is None else round(v / max(n, 1), 6)) for k, v in row.items()}
            for role, row in sorted(sums.items())}
