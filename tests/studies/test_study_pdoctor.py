"""``planprobe study pdoctor`` end to end at the tests' size: the solver reaches the ceiling,
the random agent the floor, the tables have the paper's rows and columns, the published rows
go under the paper's columns, and an interrupted study resumes without redoing work."""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass, field

import pytest
from study_helpers import (
    dissect_lines,
    measures,
    results_snapshot,
    study,
    study_json,
    table,
    yours,
)

PAPER_TABLES = ["pdoctor.table2", "pdoctor.fig8", "pdoctor.table3", "pdoctor.table4", "pdoctor.fig9",
                "pdoctor.table6", "pdoctor.table7"]
CAUSES = ["Probability", "Terminal", "Topic", "Structure", "Constraint"]




def _run(capsys, monkeypatch, out, *agent: str) -> tuple[int, str, str]:
    return study(capsys, monkeypatch, "pdoctor", *agent, "--out", str(out), "--size", "tiny", "-q")


@pytest.mark.parametrize("agent", [("--model", "solver"), ("--agent", "oracle")], ids=["solver", "oracle"])
def test_the_solver_and_the_oracle_reach_the_ceiling_and_the_tables_are_the_papers(agent, tmp_path, capsys,
                                                                                   monkeypatch):
    code, out, err = _run(capsys, monkeypatch, tmp_path / "s", *agent)
    assert code == 0, err
    data = study_json(tmp_path / "s")
    assert data["status"] == "complete" and data["identity"]["model"] == ("solver" if "--model" in agent else None)
    assert [t["id"] for t in data["tables"]] == PAPER_TABLES
    assert table(data, "pdoctor.table3")["columns"] == ["Timeout", "Act Error", "Action Lost", "Order Error"]
    assert table(data, "pdoctor.table6")["columns"] == ["Timeout", "Act Error", "Action Lost", "Order Error",
                                                        "Parameter Error"]
    assert table(data, "pdoctor.table4")["columns"] == CAUSES == table(data, "pdoctor.table7")["columns"]
    for fig in ("pdoctor.fig8", "pdoctor.fig9"):
        row = yours(data, fig)
        rates = measures(row)
        assert rates and all(m["value"] == 1.0 for m in rates.values()), rates
        assert row["cells"]["planning limit"].startswith("not reached")
    # no failure: the error types and root causes are "—", with why
    assert all("missing" in v for v in yours(data, "pdoctor.table3")["cells"].values())
    # the output says quick figures are not the paper's, and prints each table with a reading
    assert "not comparable with the paper's" in out.lower() and out.count("\n  reading: ") == len(PAPER_TABLES)
    assert "Table 3: error types" in out and "— Timeout, Act Error, Action Lost, Order Error:" in out
    # every figure carries its interval
    assert data["figures"] and all(len(f["ci95"]) == 2 and f["ci95"][0] <= f["value"] <= f["ci95"][1]
                                   for f in data["figures"])


def test_the_random_agent_reaches_the_floor_and_gets_planprobes_root_cause_rows(tmp_path, capsys, monkeypatch):
    code, _out, err = _run(capsys, monkeypatch, tmp_path / "r", "--agent", "random")
    assert code == 0, err
    data = study_json(tmp_path / "r")
    assert yours(data, "pdoctor.fig8")["cells"]["planning limit"].isdigit()
    extended = measures(yours(data, "pdoctor.fig9"))
    assert all(m["hits"] == 0 for m in extended.values())
    causes = table(data, "pdoctor.table4")
    ours = [r for r in causes["rows"] if r["source"] != "paper"]  # the paper's rows come first when shipped
    assert [r["source"] for r in ours] == ["yours", "planprobe", "planprobe"]
    assert ours[2]["cells"]["Probability"] == "= by construction"
    assert "McNemar" in " ".join(causes["notes"])
    shares = measures(yours(data, "pdoctor.table4"))
    assert sum(m["hits"] for m in shares.values()) == shares["Probability"]["n"] > 0


@dataclass
class _Value:
    text: str
    value: float | None = None
    unit: str = "%"


@dataclass
class _Row:
    label: str
    cells: dict = field(default_factory=dict)


@dataclass
class _Table:
    id: str
    rows: list
    columns: list


def test_published_rows_go_under_the_papers_columns_and_an_unshipped_table_says_so(tmp_path, capsys, monkeypatch):
    fake = types.ModuleType("planprobe.studies.published")
    shipped = _Table("pdoctor.table3", [_Row("GPT-4 OT", {"Agent": _Value("OT"), "Act Error": _Value("1.12%", 1.12),
                                                         "Order Error": _Value("98.88%", 98.88)}),
                                        _Row("ReAct", {"Model": _Value("GPT-3.5"), "Act Error": _Value("1.03%", 1.03)})],
                     ["Model", "Agent", "Timeout", "Act Error", "Action Lost", "Order Error"])

    def find_table(table_id: str):
        if table_id == shipped.id:
            return shipped
        raise KeyError(table_id)

    fake.find_table = find_table  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "planprobe.studies.published", fake)
    code, out, err = _run(capsys, monkeypatch, tmp_path / "p", "--agent", "random")
    assert code == 0, err
    data = study_json(tmp_path / "p")
    t3 = table(data, "pdoctor.table3")
    paper = [r for r in t3["rows"] if r["source"] == "paper"]
    assert [r["label"] for r in paper] == ["GPT-4 OT", "GPT-3.5 ReAct"]  # a naming cell joins the row's name
    assert paper[0]["cells"]["Act Error"] == "1.12%" and paper[0]["cells"]["Order Error"] == "98.88%"
    assert "Agent" not in t3["columns"] and paper[1]["cells"]["Act Error"] == "1.03%"
    assert any("not shipped" in n for n in table(data, "pdoctor.table4")["notes"])
    assert "GPT-4 OT" in out and "98.88%" in out


def test_an_interrupted_study_resumes_where_it_stopped_without_redoing_work(tmp_path, capsys, monkeypatch):
    out = tmp_path / "resume"
    code, _, err = study(capsys, monkeypatch, "pdoctor", "--agent", "random", "--out", str(out), "--size", "tiny",
                         "-q", "--max-steps", "1")
    assert code == 130 and "run the same command again" in err
    assert study_json(out)["status"] == "stopped"
    assert (out / "sweep-basic").is_dir() and not (out / "sweep-extended").exists()
    first = results_snapshot(out)
    assert first and all(rows for rows in first.values())
    code, _, err = _run(capsys, monkeypatch, out, "--agent", "random")
    assert code == 0, err
    second = results_snapshot(out)
    assert {k: v for k, v in second.items() if k in first} == first  # the basic sweep was not run again
    assert any(k.startswith("sweep-extended") for k in second)
    dissected = dissect_lines(out)
    assert dissected
    before = (out / "study.json").read_bytes()
    code, _, err = _run(capsys, monkeypatch, out, "--agent", "random")
    assert code == 0, err
    assert results_snapshot(out) == second and dissect_lines(out) == dissected
    assert (out / "study.json").read_bytes() == before  # same seed, same bytes
