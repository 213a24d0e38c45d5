"""The papers' published figures shipped as data (issue #28): every figure is re-found in the
paper's own text, the check catches a mistyped or misplaced figure, and the loader's errors name
what exists. The papers are read from ../shared/seeds (skipped when absent); the rule that
locates a table's text is ``check_against_text``'s (docs/published-figures.md, "The check")."""

from __future__ import annotations

import re
from fnmatch import fnmatch
from pathlib import Path

import pytest
import tomllib

from planprobe.errors import PlanprobeError
from planprobe.studies import published
from planprobe.studies.published import (
    PublishedTable,
    UnknownPublishedError,
    check_against_text,
    find_table,
    load_paper,
    load_published,
    published_papers,
)

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT.parent / "shared" / "seeds"
TABLE_IDS = [t.id for p in published_papers() for t in load_published(p)]


def paper_text(paper: str) -> str:
    path = SEEDS / load_paper(paper).seed
    if not path.is_file():
        pytest.skip(f"the paper's text is not at {path}")
    return path.read_text(encoding="utf-8")


def altered(table: PublishedTable, row: str, column: str, text: str) -> PublishedTable:
    """``table`` with one cell's printed text replaced (and no seed_text override)."""
    data = table.model_dump()
    for r in data["rows"]:
        key = f"{r['group']} / {r['label']}" if r["group"] else r["label"]
        if key == row:
            r["cells"][column].update(text=text, seed_text=None)
    return PublishedTable.model_validate(data)


def bump_last_digit(text: str) -> str:
    i = max(i for i, ch in enumerate(text) if ch.isdigit())
    return text[:i] + str((int(text[i]) + 1) % 10) + text[i + 1:]


# --- every shipped figure is in the paper ----------------------------------------------------

@pytest.mark.parametrize("table_id", TABLE_IDS)
def test_published_table_is_in_the_papers_text(table_id):
    table = find_table(table_id)
    assert check_against_text(table, paper_text(table.paper)) == []


def test_every_paper_but_apb_ships_tables_and_apb_says_why_not():
    counts = {p: len(load_published(p)) for p in published_papers()}
    assert set(counts) == {"pdoctor", "planbench", "apb", "pmc", "agentdebug"}
    assert all(n > 0 for p, n in counts.items() if p != "apb")
    assert counts["apb"] == 0 and load_paper("apb").omitted  # its seed states no figure


@pytest.mark.parametrize("table_id", TABLE_IDS)
def test_published_values_agree_with_their_printed_text(table_id):
    """``value``, ``count`` and ``total`` are the numbers the printed text shows (a typo in the
    parsed number would pass the text check unnoticed); a k (p%) cell's p is k/n."""
    table = find_table(table_id)
    for row, column, v in table.values():
        where = f"{table_id} [{row.key} × {column}]"
        numbers = [float(n.replace(",", "")) for n in re.findall(r"\d[\d,]*(?:\.\d+)?", v.text)]
        if v.unit == "mm:ss":
            m, s = v.text.split(":")
            assert v.value == pytest.approx(int(m) * 60 + float(s)), where
        elif v.unit == "label" or v.text in ("-", "NaN"):
            assert v.value is None, where
        elif v.text == "three":
            assert v.value == 3, where
        else:
            assert v.value in numbers, where
        if v.count is not None:
            assert v.count in numbers, where
        if v.total is not None:  # printed in the cell ("206/600") or as another cell of the row
            assert v.total in numbers or v.total in [c.value for c in row.cells.values()], where
        if v.count is not None and v.total is not None and v.unit == "%" and v.note is None:
            exact = 100 * v.count / v.total
            assert v.value is not None and 0 <= exact - v.value < 0.1 + 1e-9 or abs(exact - v.value) < 0.01, where


# --- the check can fail ----------------------------------------------------------------------

@pytest.mark.parametrize(("table_id", "row", "column", "typo"), [
    ("pdoctor.table3", "GPT-3.5 / ReAct", "Order Error", "90.27%"),
    ("planbench.table1", "Plan Generation", "GPT-4", "206/600 (43.3%)"),
    ("pmc.table2", "Test Set (308) / Final Pass Rate", "GPT-4 + PMC", "22.04"),
    ("agentdebug.table1", "AgentDebug", "GAIA ALL", "83.0%"),
])
def test_a_mistyped_figure_is_named(table_id, row, column, typo):
    table = find_table(table_id)
    problems = check_against_text(altered(table, row, column, typo), paper_text(table.paper))
    assert any(f"[{row} × {column}]" in p and repr(typo) in p for p in problems), problems


@pytest.mark.parametrize("table_id", TABLE_IDS)
def test_every_figure_with_a_changed_digit_is_caught(table_id):
    """Mutation check over every numeric cell: its last digit changed, the table fails the check
    (the figure is missing from the table's text, or no longer in its row's order)."""
    table = find_table(table_id)
    text = paper_text(table.paper)
    missed = []
    for row, column, v in table.values():
        if not any(ch.isdigit() for ch in v.found_as):
            continue
        mutated = altered(table, row.key, column, bump_last_digit(v.found_as))
        if not check_against_text(mutated, text):
            missed.append(f"{row.key} × {column}")
    assert missed == []


def test_a_garbled_cell_needs_its_seed_text():
    """pdoctor.table7's 22.0% reads '220%' in the seed: without the recorded seed_text the row
    is not found (22.0% elsewhere in the table does not rescue it)."""
    table = find_table("pdoctor.table7")
    assert table.cell("ReAct", "Terminal").seed_text == "220%"
    problems = check_against_text(altered(table, "ReAct", "Terminal", "22.0%"), paper_text("pdoctor"))
    assert problems == ["pdoctor.table7 [ReAct]: its cells are not in one row of the table's text, in column order"]


def test_swapped_columns_are_caught_though_both_figures_are_in_the_table():
    table = find_table("pmc.table2")
    row = "Validation Set (60) / Final Pass Rate"
    a, b = table.cell(row, "GPT-4 + PMC").text, table.cell(row, "LLaMA-3.1-8B + GPT-4 + PMC").text
    swapped = altered(altered(table, row, "GPT-4 + PMC", b), row, "LLaMA-3.1-8B + GPT-4 + PMC", a)
    problems = check_against_text(swapped, paper_text("pmc"))
    assert problems == [f"pmc.table2 [{row}]: its cells are not in one row of the table's text, in column order"]


def test_swapped_row_groups_are_caught():
    """GPT-3.5's and GPT-4's blocks of pdoctor.table3 exchanged (labels kept in place): every
    figure is still in the table, but the rows are out of the paper's order."""
    table = find_table("pdoctor.table3")
    data = table.model_dump()
    rows = data["rows"]
    for r, g in zip(rows, ["GPT-4"] * 3 + ["GPT-3.5"] * 3):
        r["group"] = g
    data["rows"] = rows[3:] + rows[:3]
    problems = check_against_text(PublishedTable.model_validate(data), paper_text("pdoctor"))
    assert problems == [f"pdoctor.table3 [GPT-4 / {a}]: out of the paper's row order" for a in ("ReAct", "OT", "OA")]


def test_swapped_row_labels_are_caught():
    """ReAct's and OT's labels exchanged in pdoctor.table3, figures in place."""
    data = find_table("pdoctor.table3").model_dump()
    data["rows"][0]["label"], data["rows"][1]["label"] = "OT", "ReAct"
    problems = check_against_text(PublishedTable.model_validate(data), paper_text("pdoctor"))
    says = "the line holding its cells does not name it"
    assert problems == [f"pdoctor.table3 [GPT-3.5 / OT]: {says} ('ot' missing)",
                        f"pdoctor.table3 [GPT-3.5 / ReAct]: {says} ('react' missing)"]


def test_the_module_docstring_example_holds():
    import doctest

    assert doctest.testmod(published).failed == 0


def test_a_wrong_anchor_or_label_is_reported():
    table = find_table("pdoctor.table4")
    text = paper_text("pdoctor")
    moved = PublishedTable.model_validate({**table.model_dump(), "anchor": "Table 9: nowhere"})
    assert check_against_text(moved, text) == [
        "pdoctor.table4: anchor 'Table 9: nowhere' occurs 0 times in the paper (want once)"]
    renamed = PublishedTable.model_validate({**table.model_dump(),
                                             "columns": ["Probability", "Terminal", "Topic", "Structure", "Luck"],
                                             "rows": [{**r.model_dump(), "cells": dict(zip(
                                                 ["Probability", "Terminal", "Topic", "Structure", "Luck"],
                                                 [c.model_dump() for c in r.cells.values()]))}
                                                 for r in table.rows]})
    assert check_against_text(renamed, text) == ["pdoctor.table4: label 'Luck': ['luck'] not in the table's text"]


# --- the loader --------------------------------------------------------------------------------

def test_find_table_and_cells():
    t = find_table("pdoctor.table3")
    assert (t.paper, t.columns[-1], len(t.rows)) == ("pdoctor", "Order Error", 6)
    assert t.cell("GPT-4 / OA", "Action Lost").value == 0.13
    assert [r.key for r in t.rows][:2] == ["GPT-3.5 / ReAct", "GPT-3.5 / OT"]
    pb = find_table("planbench.table1").cell("Plan Generation", "GPT-4")
    assert (pb.count, pb.total, pb.value, pb.unit) == (206, 600, 34.3, "%")


def test_unknown_names_are_refused_naming_what_exists():
    with pytest.raises(UnknownPublishedError, match=r"'travelbench'; papers: pdoctor, planbench, apb, pmc, agentdebug"):
        load_published("travelbench")
    with pytest.raises(UnknownPublishedError, match=r"'pdoctor.table9'; pdoctor's tables: pdoctor.table2, pdoctor.table3"):
        find_table("pdoctor.table9")
    with pytest.raises(UnknownPublishedError, match=r"ids start with a paper, one of pdoctor, planbench"):
        find_table("table3")
    with pytest.raises(UnknownPublishedError, match=r"'apb.table1'; apb's tables: none"):
        find_table("apb.table1")
    t = find_table("pdoctor.table3")
    with pytest.raises(UnknownPublishedError, match=r"no row 'GPT-5 / ReAct'; rows: GPT-3.5 / ReAct, "):
        t.cell("GPT-5 / ReAct", "Timeout")
    with pytest.raises(UnknownPublishedError, match=r"no column 'Luck'; columns: Timeout, Act Error"):
        t.cell("GPT-4 / OT", "Luck")
    assert issubclass(UnknownPublishedError, PlanprobeError) and issubclass(UnknownPublishedError, LookupError)


def test_a_table_whose_cells_do_not_match_its_columns_is_refused():
    data = find_table("pdoctor.table3").model_dump()
    data["columns"] = data["columns"][:3]
    with pytest.raises(ValueError, match=r"row 'GPT-3.5 / ReAct': cells .* must be the columns"):
        PublishedTable.model_validate(data)


def test_a_broken_data_file_names_the_file(monkeypatch, tmp_path):
    (tmp_path / "published").mkdir()
    (tmp_path / "published" / "pmc.json").write_text('{"paper": "pmc", "tables": []}')
    monkeypatch.setattr(published.resources, "files", lambda _pkg: tmp_path)
    load_paper.cache_clear()
    try:
        with pytest.raises(PlanprobeError, match=r"^planprobe/studies/published/pmc.json: field 'title': Field required \(and 2 more\)$"):
            load_paper("pmc")
    finally:
        load_paper.cache_clear()


def test_the_data_files_are_in_the_wheel():
    """pyproject's package-data must ship every published/*.json (else an installed planprobe
    has no published figures)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = config["tool"]["setuptools"]["package-data"].get("planprobe.studies", [])
    files = sorted((ROOT / "src/planprobe/studies/published").glob("*.json"))
    assert [f.stem for f in files] == sorted(published_papers())
    for f in files:
        assert any(fnmatch(f"published/{f.name}", g) for g in globs), f.name
