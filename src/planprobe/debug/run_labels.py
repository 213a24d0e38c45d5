"""Labelling a stored run: every failed trace of a labellable family, in suite order."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import PlanprobeError
from ..schema import Case, Trace, Verdict
from .labels import FormalLabels, label_trace
from .replay import LABELLED_FAMILIES
from .views import WRAPPED, labellable_family


@dataclass
class LabelCounts:
    failed: int = 0  # failed traces of labellable families (labelled)
    passed: int = 0
    infra: int = 0  # service failures: not planning failures, never labelled
    other_family: dict[str, int] = field(default_factory=dict)  # failed traces we cannot label, by family


def no_labels_message(what: str, families: dict[str, int]) -> str:
    found = ", ".join(sorted(families)) or "none"
    return (f"{what}: no failed trace of a family with formal labels (its families: {found}); "
            f"formal labels exist for: {', '.join(LABELLED_FAMILIES + WRAPPED)} (holistic over the first two)")


def run_step_limit(meta: dict[str, str]) -> int | None:
    from ..analysis.rerun import stored_limits

    return stored_limits(meta)[0]


def failed_results(run_dir: Path, counts: LabelCounts) -> Iterator[tuple[Case, Trace, Verdict, int | None]]:
    """(case, trace, verdict, step limit) for every failed trace the labeller can label."""
    from ..runner.store import RunStore

    store = RunStore(run_dir)
    try:
        limit = run_step_limit(store.meta())
        cases = {c.id: c for c in store.iter_cases()}
        for trace, verdict in store.results():
            if verdict.passed:
                counts.passed += 1
                continue
            if verdict.infra:
                counts.infra += 1
                continue
            case = cases.get(trace.case_id)
            if case is None:
                continue
            if not labellable_family(case):
                counts.other_family[case.family] = counts.other_family.get(case.family, 0) + 1
                continue
            counts.failed += 1
            yield case, trace, verdict, limit
    finally:
        store.close()


def count_failed(run_dir: Path) -> int:
    """How many results failed (for a progress bar's total), from the rows only."""
    from ..runner.store import RunStore

    store = RunStore(run_dir)
    try:
        return sum(1 for r in store.rows() if not r.passed and not r.infra)
    finally:
        store.close()


def unfinished_note(run_dir: Path) -> str | None:
    """One line when the run has results still to come (being written, or interrupted): the
    labels then cover only what is stored so far."""
    from ..runner.store import RunStore

    store = RunStore(run_dir)
    try:
        trials = int(store.meta().get("trials", "1"))
        total = store.case_count() * trials
        pending = store.pending_count(trials)
    finally:
        store.close()
    if pending <= 0:
        return None
    return (f"{run_dir}: the run is unfinished: {pending} of {total} results (cases x trials) are not stored yet "
            f"(still being written, or interrupted); this output covers the {total - pending} stored")


def label_run(run_dir: Path, counts: LabelCounts,
              on_label: Callable[[FormalLabels], None] | None = None,
              workers: int = 1, backend: str = "processes",
              address: str | None = None) -> Iterator[tuple[Case, Trace, FormalLabels]]:
    """Label every failed trace, in the run's order; ``workers`` > 1 labels on that many
    processes (labelling is CPU-bound: oracle calls), or Ray actors with ``backend`` "ray"
    (on the cluster at ``address``), with the same output."""
    from collections import deque

    from ..scale.pool import ordered_map

    sent: deque[tuple[Case, Trace]] = deque()  # results come back in order: pair each with its item here

    def items() -> Iterator[tuple[Case, Trace, Verdict, int | None]]:
        for item in failed_results(run_dir, counts):
            sent.append((item[0], item[1]))
            yield item

    for labels in ordered_map(_label_item, items(), workers, what="labelling", backend=backend, address=address):
        case, trace = sent.popleft()
        if on_label is not None:
            on_label(labels)
        yield case, trace, labels


def _label_item(item: tuple[Case, Trace, Verdict, int | None]) -> FormalLabels:
    return label_trace(*item)


def require_labellable(what: str, counts: LabelCounts) -> None:
    if counts.failed == 0 and counts.other_family:
        raise PlanprobeError(no_labels_message(what, counts.other_family))
