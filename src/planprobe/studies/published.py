"""The five papers' published tables, shipped as data, so a study prints them beside a new model.

Each paper's figures live in ``published/<paper>.json`` (package data), one entry per table
the paper's study reproduces, transcribed by hand: every cell keeps the text exactly as the
paper prints it (``"34.3"``, ``"519 (61.57%)"``, ``"206/600 (34.3%)"``), the number it
stands for, its unit and, where the paper gives one, the count and total behind a rate.
``check_against_text`` re-finds every cell in the paper's own text (the seeds the project
holds), so no figure is mistyped or invented; docs/published-figures.md lists what is
shipped, where it is in each paper, and what was left out and why.

Example::

    >>> from planprobe.studies.published import find_table, load_published
    >>> t = find_table("pdoctor.table3")
    >>> t.columns
    ['Timeout', 'Act Error', 'Action Lost', 'Order Error']
    >>> t.cell("GPT-3.5 / ReAct", "Order Error").value
    90.72
    >>> [t.id for t in load_published("planbench")]
    ['planbench.table1', 'planbench.table2']
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from ..errors import PlanprobeError
from ..suites.io import describe_validation_error

PAPERS: tuple[str, ...] = ("pdoctor", "planbench", "apb", "pmc", "agentdebug")
Paper = Literal["pdoctor", "planbench", "apb", "pmc", "agentdebug"]
# "%": percent points; "fraction": 0..1 (rates and ROUGE printed as decimals); "count": a
# number of things; "mm:ss": a duration printed as minutes:seconds (``value`` in seconds);
# "actions": an action number |A|; "label": text with no number (a topic's name).
Unit = Literal["%", "fraction", "count", "mm:ss", "actions", "label"]


class UnknownPublishedError(PlanprobeError, LookupError):
    """A paper or table name that has no published data; the message names what exists."""


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PublishedValue(_Frozen):
    """One cell as the paper prints it."""

    text: str  # exactly as printed in the paper
    value: float | None  # the number ``text`` stands for, in ``unit``; None for "-", "NaN"
    unit: Unit
    count: int | None = None  # k of "k/n" or of "k (p%)", where the paper prints it
    total: int | None = None  # n of "k/n", or the row's total the percentage is of
    # how the project's copy of the paper shows the cell when its text extraction garbled
    # it (e.g. "220%" for "22.0%"); the fidelity check looks for this instead
    seed_text: str | None = None
    note: str | None = None

    @property
    def found_as(self) -> str:
        """The text the fidelity check looks for in the paper's text."""
        return self.seed_text or self.text


class PublishedRow(_Frozen):
    """A row: its label as the paper prints it, the spanning group it sits under (a model,
    a data split, a metric), and one cell per column."""

    label: str
    group: str | None = None
    cells: dict[str, PublishedValue]
    note: str | None = None

    @property
    def key(self) -> str:
        """The row's name within its table: ``"group / label"``, or the label alone."""
        return f"{self.group} / {self.label}" if self.group else self.label


class PublishedTable(_Frozen):
    """One published table (or the figures a plot's caption/text states), laid out as the
    paper lays it out: ``rows`` top to bottom, ``columns`` left to right."""

    id: str  # "<paper>.<name>", e.g. "pdoctor.table3"
    paper: Paper
    where: str  # "Table 3, §6.2 (RQ2)"
    caption: str  # short, in our words
    orientation: str  # what the rows and the columns are
    columns: list[str]
    rows: list[PublishedRow]
    # Locating the table in the paper's text: ``anchor`` occurs exactly once and starts the
    # table's region, which ends at the first ``end`` after it (or ``window`` characters on).
    anchor: str
    end: str | None = None
    window: int = 3000
    # Each row's cells lie in one piece of the region, in column order, when the region is
    # split at this pattern (a line; "<tr" for an HTML table); None: no such layout.
    row_sep: str | None = "\n"
    row_labels_in_text: bool = True  # False where the row labels are ours (ranks)
    note: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> PublishedTable:
        if not self.id.startswith(self.paper + "."):
            raise ValueError(f"table id {self.id!r} must start with {self.paper + '.'!r}")
        keys = [r.key for r in self.rows]
        dupes = sorted({k for k in keys if keys.count(k) > 1})
        if dupes:
            raise ValueError(f"{self.id}: duplicate rows {dupes}")
        for r in self.rows:
            if list(r.cells) != self.columns:
                raise ValueError(f"{self.id}, row {r.key!r}: cells {list(r.cells)} must be the columns "
                                 f"{self.columns}, in order")
        return self

    def row(self, key: str) -> PublishedRow:
        """The row named ``key`` (see ``PublishedRow.key``)."""
        for r in self.rows:
            if r.key == key:
                return r
        raise UnknownPublishedError(f"{self.id} has no row {key!r}; rows: {', '.join(r.key for r in self.rows)}")

    def cell(self, row: str, column: str) -> PublishedValue:
        """The cell at row ``row`` (its key) and column ``column``."""
        cells = self.row(row).cells
        if column not in cells:
            raise UnknownPublishedError(f"{self.id} has no column {column!r}; columns: {', '.join(self.columns)}")
        return cells[column]

    def values(self) -> Iterator[tuple[PublishedRow, str, PublishedValue]]:
        """Every cell with its row and column, row by row."""
        for r in self.rows:
            for column, v in r.cells.items():
                yield r, column, v


class PublishedPaper(_Frozen):
    """One data file: a paper's shipped tables and what was left out."""

    paper: Paper
    title: str
    seed: str  # the paper's text file in the project's paper set (../shared/seeds/)
    omitted: list[str]  # tables/plots not shipped, each with the reason
    tables: list[PublishedTable]

    @model_validator(mode="after")
    def _tables_of_paper(self) -> PublishedPaper:
        for t in self.tables:
            if t.paper != self.paper:
                raise ValueError(f"table {t.id} names paper {t.paper!r} in {self.paper}.json")
        ids = [t.id for t in self.tables]
        if len(set(ids)) != len(ids):
            raise ValueError(f"duplicate table ids in {self.paper}.json")
        return self


def published_papers() -> list[str]:
    """The papers with published data, in the project's order."""
    return list(PAPERS)


@cache
def load_paper(paper: str) -> PublishedPaper:
    """The whole data file of ``paper``."""
    if paper not in PAPERS:
        raise UnknownPublishedError(f"no published figures for paper {paper!r}; papers: {', '.join(PAPERS)}")
    name = f"{paper}.json"
    text = resources.files(__package__).joinpath("published").joinpath(name).read_text(encoding="utf-8")
    where = f"planprobe/studies/published/{name}"
    try:
        data = json.loads(text)
    except ValueError as e:
        raise PlanprobeError(f"{where}: not valid JSON ({e})") from None
    try:
        return PublishedPaper.model_validate(data)
    except ValidationError as e:
        raise PlanprobeError(f"{where}: {describe_validation_error(e)}") from None


def load_published(paper: str) -> list[PublishedTable]:
    """The tables shipped for ``paper`` (one of ``published_papers()``), in the paper's order."""
    return list(load_paper(paper).tables)


def find_table(table_id: str) -> PublishedTable:
    """The table ``table_id`` ("<paper>.<name>", e.g. "pmc.table2")."""
    paper = table_id.split(".", 1)[0]
    if paper not in PAPERS:
        raise UnknownPublishedError(f"no published table {table_id!r}: ids start with a paper, one of "
                                    f"{', '.join(PAPERS)}")
    tables = load_published(paper)
    for t in tables:
        if t.id == table_id:
            return t
    raise UnknownPublishedError(f"no published table {table_id!r}; {paper}'s tables: "
                                f"{', '.join(t.id for t in tables) or 'none'}")


# ---------------------------------------------------------------------------------------------
# The fidelity check: every figure is re-found in the paper's own text.

_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")


def _normal(text: str) -> str:
    """HTML tags and runs of white space become one space (tables in the seeds are plain
    text, Markdown, tab-separated or HTML)."""
    return _SPACE.sub(" ", _TAG.sub(" ", text)).strip()


@cache
def _token(text: str) -> re.Pattern[str]:
    """``text`` as a whole token: "5.00" must not match inside "95.00" or "5.001"."""
    return re.compile(r"(?<![\w.])" + re.escape(_normal(text)) + r"(?!\w)")


def _words(label: str) -> list[str]:
    """A label's words, lower-case letters and digits only ("GPT-4 (SP)" -> gpt, 4, sp)."""
    return [w for w in (re.sub(r"[^0-9a-z]", "", p.lower()) for p in re.split(r"[\s\-/]+", label)) if w]


def table_region(table: PublishedTable, paper_text: str) -> tuple[str | None, list[str]]:
    """The part of ``paper_text`` that holds ``table``: from its anchor (which must occur
    once) to the first ``end`` after it, or ``window`` characters on. Returns (region, problems)."""
    found = paper_text.count(table.anchor)
    if found != 1:
        return None, [f"{table.id}: anchor {table.anchor[:60]!r} occurs {found} times in the paper (want once)"]
    start = paper_text.index(table.anchor)
    if table.end is None:
        return paper_text[start:start + table.window], []
    stop = paper_text.find(table.end, start + len(table.anchor))
    if stop < 0:
        return None, [f"{table.id}: end marker {table.end[:60]!r} not found after the anchor"]
    return paper_text[start:stop], []


def check_against_text(table: PublishedTable, paper_text: str) -> list[str]:
    """Where ``table`` disagrees with the paper's text (empty: none). Rules:

    * the table's region is found (``table_region``);
    * every cell's text (``found_as``) occurs in the region as a whole token;
    * with ``row_sep``: each row's cells occur, in column order, within one piece of the
      region that also holds the last word of the row's label (unless ``row_labels_in_text``
      is off), and the rows' pieces follow each other in the table's row order (so swapped
      columns, rows, row labels or row groups are caught, not only mistyped digits);
    * every word of each column label, group and (unless ``row_labels_in_text`` is off) row
      label occurs in the region, compared on letters and digits only.
    """
    region, problems = table_region(table, paper_text)
    if region is None:
        return problems
    flat = _normal(region)
    pieces = [_normal(p) for p in re.split(table.row_sep, region)] if table.row_sep else []
    for row, column, v in table.values():
        if not _token(v.found_as).search(flat):
            problems.append(f"{table.id} [{row.key} × {column}]: {v.found_as!r} is not in the table's text")
    at = 0  # rows are in the paper's order: each is looked for after the previous one
    for row in table.rows if table.row_sep else []:
        texts = [v.found_as for v in row.cells.values()]
        rows_cells = [i for i, p in enumerate(pieces) if _in_order(texts, p)]
        word = _words(row.label)[-1:] if table.row_labels_in_text else []
        hits = [i for i in rows_cells if all(w in _letters(pieces[i]) for w in word)]
        after = [i for i in hits if i >= at]
        if after:
            at = after[0] + 1
        elif hits:
            problems.append(f"{table.id} [{row.key}]: out of the paper's row order")
        elif rows_cells:
            problems.append(f"{table.id} [{row.key}]: the line holding its cells does not name it "
                            f"({word[0]!r} missing)")
        else:
            problems.append(f"{table.id} [{row.key}]: its cells are not in one row of the table's text, "
                            f"in column order")
    letters = _letters(region)
    labels = list(table.columns) + sorted({r.group for r in table.rows if r.group})
    if table.row_labels_in_text:
        labels += [r.label for r in table.rows]
    for label in labels:
        missing = [w for w in _words(label) if w not in letters]
        if missing:
            problems.append(f"{table.id}: label {label!r}: {missing} not in the table's text")
    return problems


def _letters(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


def _in_order(texts: list[str], piece: str) -> bool:
    pos = 0
    for text in texts:
        m = _token(text).search(piece, pos)
        if m is None:
            return False
        pos = m.end()
    return True
