"""``planprobe study planbench`` end to end at the tests' size: Table 1 has the paper's ten
task rows in its order, Table 2 its two obfuscated domains; the solver is at the ceiling on
Blocksworld, the random agent at the floor; zero- and one-shot are paired by instance."""

from __future__ import annotations

from study_helpers import measures, study, study_json, table

TASKS = ["Plan Generation", "Cost-Optimal Planning", "Plan Verification", "Reasoning About Plan Execution",
         "Replanning", "Plan Generalization", "Plan Reuse",
         "Robustness to Goal Reformulation (Shuffling goal predicates)",
         "Robustness to Goal Reformulation (Full → Partial)", "Robustness to Goal Reformulation (Partial → Full)"]


def test_the_solver_reaches_the_ceiling_on_blocksworld_in_the_papers_layout(tmp_path, capsys, monkeypatch):
    code, out, err = study(capsys, monkeypatch, "planbench", "--model", "solver", "--out", str(tmp_path / "s"),
                           "--size", "tiny", "-q")
    assert code == 0, err
    data = study_json(tmp_path / "s")
    assert [t["id"] for t in data["tables"]] == ["planbench.table1", "planbench.table2", "planbench.mystery",
                                                 "planbench.shots"]
    t1 = table(data, "planbench.table1")
    assert [r["label"] for r in t1["rows"]] == TASKS
    assert t1["columns"][-2:] == ["yours: tools / solver, one-shot", "yours: tools / solver, zero-shot"]
    for row in t1["rows"]:
        cells = measures(row)
        assert len(cells) == 2 and all(m["value"] == 1.0 and m["n"] == 2 for m in cells.values()), row
    t2 = table(data, "planbench.table2")
    assert [r["label"] for r in t2["rows"]] == ["Mystery Blocksworld (Deceptive)", "Mystery Blocksworld (Randomized)"]
    assert all(m["value"] == 1.0 for m in measures(t2["rows"][1]).values())  # randomized names: read exactly
    # Mystery Blocksworld's text contradicts itself (docs/pddl.md): the solver says so instead of guessing
    deceptive = measures(t2["rows"][0])
    assert all(m["value"] == 1.0 for m in deceptive.values()) or any("under-specified" in n for n in data["notes"])
    assert "Table 1: instances correct on Blocksworld" in out and "reading:" in out


def test_the_random_agent_is_at_the_floor_and_shots_are_paired_by_instance(tmp_path, capsys, monkeypatch):
    code, _out, err = study(capsys, monkeypatch, "planbench", "--agent", "random", "--out", str(tmp_path / "r"),
                           "--size", "tiny", "-q")
    assert code == 0, err
    data = study_json(tmp_path / "r")
    t1 = table(data, "planbench.table1")
    plan = {r["label"]: measures(r) for r in t1["rows"]}
    assert all(m["hits"] == 0 for m in plan["Plan Generation"].values())
    assert sum(m["hits"] for row in plan.values() for m in row.values()) < sum(
        m["n"] for row in plan.values() for m in row.values()) / 2
    shots = table(data, "planbench.shots")
    assert shots["columns"] == ["one-shot", "zero-shot", "zero − one [95% CI]", "McNemar exact p"]
    assert len(shots["rows"]) == 2 * len(TASKS)
    assert all(measures(r)["one-shot"]["n"] == 2 for r in shots["rows"])  # the same two instances, both ways
