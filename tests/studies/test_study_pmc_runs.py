"""``planprobe study pmc`` end to end at the tests' size on the TravelPlanner training queries and
API-Bank level 3: the oracle at the ceiling, ``random`` at the floor, the paper's tables (1-7) with
their rows and columns and the published figures beside yours, resume, and missing data."""

from __future__ import annotations

from study_helpers import measures, results_snapshot, study, study_json, table

from helpers import shared_path

METRICS = ["Delivery Rate", "Common-sense Micro", "Common-sense Macro", "Hard Constraint Micro",
           "Hard Constraint Macro", "Final Pass Rate"]


def _data() -> list[str]:
    return ["--travelplanner", str(shared_path("data", "travelplanner")), "--api-bank",
            str(shared_path("data", "api-bank"))]


def _ours(t: dict, source: str = "yours") -> dict[str, dict]:
    return {r["label"]: measures(r) for r in t["rows"] if r["source"] == source}


def test_the_oracle_reaches_the_ceiling_in_pmcs_tables_and_a_rerun_resumes(tmp_path, capsys, monkeypatch):
    out = tmp_path / "s"
    code, text, err = study(capsys, monkeypatch, "pmc", "--agent", "oracle", "--out", str(out), "--size", "tiny",
                            "-q", *_data())
    assert code == 0, err
    data = study_json(out)
    assert [t["id"] for t in data["tables"]] == ["pmc.table1", "pmc.table2", "pmc.table3", "pmc.table4",
                                                 "pmc.paired", "pmc.table5", "pmc.table6", "pmc.table7"]
    paired = table(data, "pmc.paired")["rows"]  # planprobe's: PMC against each baseline on the same queries
    assert len(paired) == 6 and all(measures(r)["PMC"]["n"] == 3 and r["source"] == "planprobe" for r in paired)
    t1 = table(data, "pmc.table1")
    assert t1["columns"] == ["GPT-3.5 + ReAct", "GPT-4 + ReAct", "GPT-3.5 + PMC", "GPT-4 + PMC", "GPT-4 (SP)",
                             "yours: oracle + ReAct", "yours: oracle + PMC", "yours: oracle (SP)"]
    paper = [r for r in t1["rows"] if r["source"] == "paper"]
    assert [r["label"] for r in paper[:6]] == [f"Validation Set (60): {m}" for m in METRICS]
    assert paper[-1]["cells"]["GPT-4 + PMC"] == "42.68"  # the published figure beside yours
    ours = _ours(t1)
    assert list(ours) == [f"yours, training set (3): {m}" for m in METRICS]
    for cells in ours.values():  # one 3-day query per level, every method at 100%
        assert len(cells) == 3 and all(m["value"] == 1.0 for m in cells.values())
    assert all(m["n"] == 3 for m in ours["yours, training set (3): Final Pass Rate"].values())
    assert len(_ours(t1, "planprobe")) == 6  # the --strict reading, planprobe's rows
    assert "LLaMA-3.1-8B + GPT-4 + PMC" in table(data, "pmc.table2")["columns"]
    t3 = table(data, "pmc.table3")
    assert [r["label"] for r in t3["rows"]][-1] == "Final: Final Pass Rate" and len(t3["rows"]) == 14
    t4 = table(data, "pmc.table4")
    assert [r["label"] for r in t4["rows"] if r["source"] == "yours"][:3] == [
        "Correctness %: CoT", "Correctness %: No CoT", "Correctness %: PMC"]
    for label in ("Correctness %: PMC", "Completeness %: PMC"):
        assert measures(next(r for r in t4["rows"] if r["label"] == label))["yours: oracle"]["value"] == 1.0
    assert [r["label"] for r in table(data, "pmc.table5")["rows"]][-1] == "planprobe --strict, training set (1): " \
        "Final Pass Rate"
    assert "training set, 3 3-day queries: not the paper's validation/test split" in text
    before = results_snapshot(out)
    assert len(before) == 9  # 6 TravelPlanner runs (hint × method) and 3 API-Bank runs
    code, _, err = study(capsys, monkeypatch, "pmc", "--agent", "oracle", "--out", str(out), "--size", "tiny",
                             *_data())
    assert code == 0, err
    assert results_snapshot(out) == before and "resuming the study" in err
    assert study_json(out)["tables"] == data["tables"]


def test_the_random_agent_is_at_the_floor_after_an_interrupted_study_resumes(tmp_path, capsys, monkeypatch):
    out = tmp_path / "r"
    code, _, err = study(capsys, monkeypatch, "pmc", "--agent", "random", "--out", str(out), "--size", "tiny", "-q",
                         "--max-steps", "2", *_data())
    assert code == 130, err  # stopped after two runs, as an interruption would
    first = results_snapshot(out)
    assert sorted(first) == ["runs/tp-hint-pmc/run.sqlite", "runs/tp-hint-react/run.sqlite"]
    code, _, err = study(capsys, monkeypatch, "pmc", "--agent", "random", "--out", str(out), "--size", "tiny", "-q",
                         *_data())
    assert code == 0, err
    after = results_snapshot(out)
    assert len(after) == 9 and all(after[k] == v for k, v in first.items())  # the first two runs were not redone
    data = study_json(out)
    for tid in ("pmc.table1", "pmc.table2"):
        final = _ours(table(data, tid))["yours, training set (3): Final Pass Rate"]
        assert all(m["hits"] == 0 for m in final.values())
    t4 = table(data, "pmc.table4")
    passed = [measures(r)["yours: random"] for r in t4["rows"] if r["source"] == "planprobe"]
    assert len(passed) == 3 and all(m["hits"] == 0 for m in passed)
    other = tmp_path / "api-bank"  # the same directory on other data: refused, nothing changed
    (other / "test-data").mkdir(parents=True)
    (other / "test-data" / "level-3.json").symlink_to(shared_path("data", "api-bank", "test-data", "level-3.json"))
    code, _, err = study(capsys, monkeypatch, "pmc", "--agent", "random", "--out", str(out), "--size", "tiny",
                         "--travelplanner", str(shared_path("data", "travelplanner")), "--api-bank", str(other))
    assert "ran on other data" in _one_line(code, err) and results_snapshot(out) == after


def _one_line(code: int, err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error:"), err
    return lines[0]


def test_missing_or_wrong_data_is_one_line_naming_what_to_download(tmp_path, capsys, monkeypatch):
    out = tmp_path / "x"
    line = _one_line(*study(capsys, monkeypatch, "pmc", "--agent", "oracle", "--out", str(out))[::2])
    assert "--travelplanner DIR is required" in line and "osunlp/TravelPlanner" in line
    line = _one_line(*study(capsys, monkeypatch, "pmc", "--agent", "oracle", "--out", str(out), "--travelplanner",
                            str(tmp_path))[::2])
    assert "train_queries_and_plans.jsonl" in line
    line = _one_line(*study(capsys, monkeypatch, "pmc", "--agent", "oracle", "--out", str(out), "--travelplanner",
                            str(shared_path("data", "travelplanner")))[::2])
    assert "--api-bank DIR is required" in line and "DAMO-ConvAI" in line
    line = _one_line(*study(capsys, monkeypatch, "apb", "--agent", "oracle", "--out", str(out), *_data())[::2])
    assert "--travelplanner is an option of study pmc, not of study apb" in line
    assert not out.exists()
