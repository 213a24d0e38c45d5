"""What a study is: its paper, its settings (each with its place in the paper), its steps
and the tables it prints. The study modules (``pdoctor``, ``planbench``) fill these in;
``directory`` runs them in a resumable directory and ``tables`` lays the tables out.

A study never prints: it returns ``StudyTable`` objects (cells are published text, a new
``Measure`` with its 95% interval, or a ``Missing`` saying why the study could not
measure it), which the command line and the report render.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..analysis.stats import wilson_interval
from ..errors import PlanprobeError

SIZES = ("full", "quick", "tiny")  # tiny: the tests' size (seconds with reference agents)
QUICK_NOTE = ("quick study: the same steps at a small size; its figures are NOT comparable with the paper's "
              "(run without --quick for the paper's sizes)")


@dataclass(frozen=True)
class Setting:
    """One setting of a study: its value and where the paper states it, or — when the paper is
    silent (``chosen``) — what planprobe chose and why."""

    name: str
    value: Any
    where: str
    chosen: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "where": self.where, "chosen": self.chosen}


@dataclass(frozen=True)
class Measure:
    """A new proportion: ``hits`` of ``n``, with its 95% Wilson interval."""

    hits: int
    n: int

    @property
    def value(self) -> float:
        return self.hits / self.n if self.n else 0.0

    @property
    def ci95(self) -> tuple[float, float]:
        return wilson_interval(self.hits, self.n)

    def text(self) -> str:
        if not self.n:
            return "— (no cases)"
        lo, hi = self.ci95
        return f"{100 * self.value:.1f}% [{100 * lo:.1f}-{100 * hi:.1f}] ({self.hits}/{self.n})"

    def to_json(self) -> dict[str, Any]:
        lo, hi = self.ci95
        return {"hits": self.hits, "n": self.n, "value": round(self.value, 6), "ci95": [round(lo, 6), round(hi, 6)]}


@dataclass(frozen=True)
class Missing:
    """A cell the study could not measure, and why (printed as "—")."""

    why: str


Cell = str | Measure | Missing  # str: published (or computed) text shown as it is


@dataclass
class TableRow:
    label: str
    cells: dict[str, Cell]
    source: str = "yours"  # "paper" (published), "yours" (this study's), "planprobe" (beyond the paper)


@dataclass
class StudyTable:
    """One table: the paper's layout (``columns`` in the paper's order), its published rows or
    columns beside this study's, a one-line reading and notes."""

    id: str  # e.g. "pdoctor.table3" (the published data's id)
    where: str  # "Table 3", "Fig. 8", or "planprobe" for a table beyond the paper
    title: str
    columns: list[str]
    rows: list[TableRow] = field(default_factory=list)
    reading: str = ""
    notes: list[str] = field(default_factory=list)
    row_header: str = ""

    def figures(self) -> list[dict[str, Any]]:
        """Every new figure of the table, flat (for study.json and ``study compare``)."""
        out = []
        for row in self.rows:
            for col in self.columns:
                cell = row.cells.get(col)
                if isinstance(cell, Measure):
                    out.append({"table": self.id, "row": row.label, "source": row.source, "column": col,
                                **cell.to_json()})
        return out

    def to_json(self) -> dict[str, Any]:
        def cell(c: Cell | None) -> Any:
            if isinstance(c, Measure):
                return {"measure": c.to_json(), "text": c.text()}
            if isinstance(c, Missing):
                return {"missing": c.why}
            return c

        return {"id": self.id, "where": self.where, "title": self.title, "columns": self.columns,
                "row_header": self.row_header, "reading": self.reading, "notes": self.notes,
                "rows": [{"label": r.label, "source": r.source, "cells": {k: cell(r.cells.get(k)) for k in self.columns}}
                         for r in self.rows]}


@dataclass
class StudyOutcome:
    """What a study's run produced: its tables, the data of its plots, and notes."""

    tables: list[StudyTable] = field(default_factory=list)
    plots: list[dict[str, Any]] = field(default_factory=list)  # {"id", "title", "x", "series": [...]}
    notes: list[str] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)  # run directories, relative to the study directory


class StudyInfraError(PlanprobeError):
    """A step ended with infrastructure failures: the study stops there, unmeasured (exit 3, as run)."""

    exit_code = 3


def yours(ctx: StudyContext) -> str:
    """The label of this study's own row or column: the agent and the model."""
    return f"yours: {ctx.config.agent} / {ctx.config.model or 'no model'}"


class StudyStopped(Exception):
    """The study stopped after the steps it was allowed (``--max-steps``); the rest resumes later."""


@dataclass
class StudyContext:
    """What a study needs to run: where, with which agent, at which size; ``step`` wraps each
    step so a stop after some steps (an interruption) leaves the finished ones in place."""

    directory: Any  # pathlib.Path
    agent: Any
    config: Any  # runner.engine.RunConfig
    size: str
    seed: int = 0
    runner: Any = None  # scale.scaled_runner(...) or None
    workers: int = 1
    recipe: Any = None  # scale.WorkerRecipe for dissect's workers, or None
    backend: str = "processes"
    address: str | None = None
    on_store: Callable[[Any], None] = lambda store: None
    say: Callable[[str], None] = lambda line: None
    max_steps: int | None = None
    steps_done: int = 0
    # for studies that run several of planprobe's agents on the one model (pmc: react, pmc, tools)
    models: Any = None  # the loaded models (models.roles.RoleModels) or None for a reference agent
    params: Any = None  # models.base.ChatParams
    runner_for: Callable[[str, Any], Any] = lambda agent, config: None  # (agent name, RunConfig) -> runner
    data: dict[str, Any] = field(default_factory=dict)  # data options: --travelplanner, --api-bank, --apb-data

    def step(self, name: str, work: Callable[[], Any]) -> Any:
        if self.max_steps is not None and self.steps_done >= self.max_steps:
            raise StudyStopped(f"stopped before step {name!r} ({self.steps_done} steps run)")
        self.say(f"step: {name}")
        result = work()
        self.steps_done += 1
        return result


class Study(Protocol):
    name: str
    paper: str  # the paper, as cited
    description: str  # one line for --list
    needs: str  # the data it needs ("nothing: planprobe generates its cases" …)

    def settings(self, size: str) -> list[Setting]: ...

    def steps(self, size: str) -> list[str]: ...

    def run(self, ctx: StudyContext) -> StudyOutcome: ...
