"""``study compare`` lines figures up by (table, row, column role): a table with one row per task
(PlanBench's Table 1) keeps every row, and the columns named after each study's own agent/model
("yours: oracle / no model, one-shot" beside "yours: random / no model, one-shot") line up, with
paired McNemar tests on the runs that hold the same cases."""

from __future__ import annotations

import json

from study_helpers import study, study_json


def _figures(data: dict, table: str) -> dict[tuple[str, str], dict]:
    """(row, column) -> the study's own figure of ``table``, read from its study.json."""
    return {(f["row"], f["column"]): f for f in data["figures"] if f["table"] == table and f["source"] != "paper"}


def test_compare_keeps_every_row_and_lines_up_two_agents_columns(tmp_path, capsys, monkeypatch):
    dirs = {}
    for agent in ("oracle", "random"):
        dirs[agent] = tmp_path / agent
        code, _, err = study(capsys, monkeypatch, "planbench", "--agent", agent, "--size", "tiny", "-q",
                             "--out", str(dirs[agent]))
        assert code == 0, err
    code, out, err = study(capsys, monkeypatch, "compare", str(dirs["oracle"]), str(dirs["random"]), "--json")
    assert code == 0, err
    data = json.loads(out)
    own = {a: study_json(d) for a, d in dirs.items()}
    for table in ("planbench.table1", "planbench.table2"):
        mine = {a: _figures(own[a], table) for a in own}
        rows = {r for r, _ in mine["oracle"]}
        assert len(rows) > 1  # the table has several rows of yours: the case the old keying collapsed
        shown = [f for f in data["figures"] if f["table"] == table]
        assert {f["row"] for f in shown} == rows  # every row appears
        assert len(shown) == len(mine["oracle"]) == len(mine["random"])  # the two agents' columns line up
        for f in shown:
            a = mine["oracle"][(f["row"], f["column"].replace("yours", "yours: oracle / no model"))]
            b = mine["random"][(f["row"], f["column"].replace("yours", "yours: random / no model"))]
            assert [v["hits"] for v in f["values"]] == [a["hits"], b["hits"]]
            assert [v["n"] for v in f["values"]] == [a["n"], b["n"]]
            assert f["values"][0]["value"] == 1.0 and f["values"][1]["value"] == 0.0  # the ceiling beside the floor
    paired = data["paired"][0]  # the same size and seed: the same cases in every run
    assert [r["run"] for r in paired["runs"]] == sorted(own["oracle"]["runs"])
    assert paired["pairs"] == sum(r["pairs"] for r in paired["runs"]) > 0
    assert paired["a_only"] > paired["b_only"] == 0 and paired["mcnemar_p"] < 0.05
    code, text, _ = study(capsys, monkeypatch, "compare", str(dirs["oracle"]), str(dirs["random"]))
    assert code == 0
    assert "planbench.table1 Plan Reuse yours, one-shot" in text and "exact McNemar p" in text
