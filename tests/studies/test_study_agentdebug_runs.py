"""``planprobe study agentdebug`` end to end at the tests' size: a faulty reference agent makes
failures with known errors (the oracle detector reaches the ceiling, random stays near chance), a
scripted model on loopback plays the detectors and a python: agent the repairs, the solver passes
everything (the tables say there is nothing to score), the tables have the paper's rows and
columns, an interrupted study resumes without redoing work, and bad input is one line."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from study_helpers import measures, results_snapshot, study, study_json, table

from helpers import cli_here
from http_faults import Reply, ScriptedServer, chat_reply
from planprobe.studies.agentdebug import SIZES
from planprobe.studies.published import find_table

HERE = Path(__file__).resolve().parent
REPAIR_AGENT = f"python:{HERE / 'study_repair_agent.py'}:agent"
TABLES = ["agentdebug.bench", "agentdebug.table1", "agentdebug.formal", "agentdebug.figure7b",
          "agentdebug.figure5_text", "agentdebug.repair", "agentdebug.figure7c"]
PLACES = [("ALFWorld", "Blocksworld"), ("WebShop", "Constraints"), ("GAIA", "Logistics")]
COLUMNS = [f"{env} / {fam} {m}" for env, fam in PLACES for m in ("S", "S+M", "ALL")] + \
          ["Average S", "Average S+M", "Average ALL"]
MODEL_ROWS = ["Direct Prompting", "Brute Force", "Binary Search", "AgentDebug"]


def _run(capsys, monkeypatch, out: Path, *args: str) -> tuple[int, str, str]:
    return study(capsys, monkeypatch, "agentdebug", *args, "--out", str(out), "--size", "tiny", "-q")


def _row(data: dict, table_id: str, start: str) -> dict:
    return next(r for r in table(data, table_id)["rows"] if r["label"].startswith(start))


@pytest.fixture(scope="module")
def faulty(tmp_path_factory):
    """faulty:swap on every family: each case fails at a known step (an action before its prerequisite)."""
    out = tmp_path_factory.mktemp("ad") / "faulty"
    mp = pytest.MonkeyPatch()

    class _Cap:  # capsys is function-scoped: the module's run reads the CLI's output itself
        def readouterr(self):
            return "", ""

    try:
        code, _, _ = study(_Cap(), mp, "agentdebug", "--agent", "faulty:swap", "--out", str(out), "--size", "tiny",
                           "-q")
    finally:
        mp.undo()
    assert code == 0
    return out


def test_the_oracle_detector_reaches_the_ceiling_and_random_stays_near_chance(faulty):
    data = study_json(faulty)
    assert data["status"] == "complete" and [t["id"] for t in data["tables"]] == TABLES
    bench = [json.loads(x) for fam in ("blocksworld", "constraints", "logistics")
             for x in (faulty / "bench" / f"{fam}.jsonl").read_text().splitlines()]
    assert len(bench) == 6 and all(r["critical_error"] is not None for r in bench)  # every swapped case failed
    oracle = measures(_row(data, "agentdebug.table1", "planprobe: oracle"))
    assert len(oracle) == len(COLUMNS) and all(m["value"] == 1.0 and m["n"] > 0 for m in oracle.values())
    rnd = measures(_row(data, "agentdebug.table1", "planprobe: random"))["Average S"]
    steps = [sum(m["role"] == "assistant" for m in r["messages"]) for r in bench]
    chance = sum(1 / n for n in steps) / len(steps)
    assert rnd["n"] == 6 and rnd["ci95"][0] <= chance <= rnd["ci95"][1] and rnd["value"] < 1.0
    assert f"{100 * chance:.1f}%" in " ".join(table(data, "agentdebug.table1")["notes"])
    formal = measures(_row(data, "agentdebug.formal", "planprobe: oracle"))
    assert formal["within [E, PNR]"]["value"] == 1.0
    # no model: the paper's detectors are "—" with why; a reference agent cannot be re-rolled out
    for label in MODEL_ROWS:
        cells = _row(data, "agentdebug.table1", f"yours: {label} ")["cells"]
        assert all("need a model" in v["missing"] for v in cells.values())
    assert "cannot continue from a step" in _row(data, "agentdebug.figure5_text", "yours")["cells"]["AgentDebug"][
        "missing"]
    assert data["figures"] and all(f["ci95"][0] <= f["value"] <= f["ci95"][1] for f in data["figures"])


def test_the_tables_have_the_papers_rows_and_columns_with_its_figures(faulty, capsys, monkeypatch):
    data = study_json(faulty)
    t1 = table(data, "agentdebug.table1")
    assert t1["columns"] == COLUMNS and t1["where"] == "Table 1"
    published = find_table("agentdebug.table1")
    paper = [r for r in t1["rows"] if r["source"] == "paper"]
    assert [r["label"] for r in paper] == [r.label for r in published.rows] == MODEL_ROWS
    for prow, row in zip(published.rows, paper):
        for (env, fam) in PLACES:
            for m in ("S", "S+M", "ALL"):
                assert row["cells"][f"{env} / {fam} {m}"] == prow.cells[f"{env} {m}"].text
        assert row["cells"]["Average ALL"] == prow.cells["Average ALL"].text
    for tid, cols in (("agentdebug.figure7b", ["Step", "Error", "Step+M", "All"]),
                      ("agentdebug.figure5_text", ["First attempt", "AgentDebug", "Best-of-N", "Self-Refine"]),
                      ("agentdebug.figure7c", ["Success Rate"])):
        t = table(data, tid)
        assert t["columns"] == cols
        assert [r["label"] for r in t["rows"] if r["source"] == "paper"] == [r.label for r in find_table(tid).rows]
    # printed again from study.json by the same command: every table with its reading
    code, out, err = _run(capsys, monkeypatch, faulty, "--agent", "faulty:swap")
    assert code == 0, err
    assert out.count("\n  reading: ") == len(TABLES) and "Table 1: critical-error detection" in out
    assert "not comparable with the paper's" in out.lower()


LONG = 7  # the scripted model's context holds a whole trajectory (direct prompting) of fewer steps than this
OVERFLOW = {"error": {"message": "This model's maximum context length is 4096 tokens", "type": "invalid_request_error",
                      "code": "context_length_exceeded"}}


def _scripted(i, body, headers):
    """A detector model that always blames step 1's planning (an impossible action); it reads only the prompt,
    and a whole trajectory of LONG steps or more does not fit its context."""
    prompt = body["messages"][-1]["content"]
    if "\n\nTrajectory:\n" in prompt and f"Step {LONG}:" in prompt:
        return Reply(400, OVERFLOW)
    if '"recoverable"' in prompt:
        return chat_reply('{"recoverable": false}')
    if '"error_detected"' in prompt:
        return chat_reply('{"error_detected": false, "error_type": "no_error"}')
    return chat_reply('{"critical_step": 1, "critical_module": "planning", "error_type": "impossible_action", '
                      '"root_cause": "the first action came too early", "correction_guidance": "act in order"}')


def test_the_models_detectors_and_repair_against_best_of_n(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    with ScriptedServer(_scripted) as srv:
        code, out, err = _run(capsys, monkeypatch, tmp_path / "m", "--agent", REPAIR_AGENT, "--model", "openai:m",
                              "--base-url", srv.url, "--no-cache")
        asked = len(srv.requests)
    assert code == 0, err
    assert "Event loop is closed" not in err  # each loop's connections were closed in it
    data = study_json(tmp_path / "m")
    bench = {fam: [json.loads(x) for x in (tmp_path / "m" / "bench" / f"{fam}.jsonl").read_text().splitlines()]
             for fam in ("blocksworld", "constraints", "logistics")}
    for label in MODEL_ROWS:
        row = measures(_row(data, "agentdebug.table1", f"yours: {label} (openai:m)"))
        assert len(row) == len(COLUMNS)
        if label == "Direct Prompting":  # no answer where the whole trajectory did not fit: counted, not guessed
            for (env, fam), key in zip(PLACES, bench):
                fits = sum(sum(m["role"] == "assistant" for m in r["messages"]) < LONG for r in bench[key])
                assert row[f"{env} / {fam} S"]["hits"] == fits and row[f"{env} / {fam} S"]["n"] == len(bench[key])
            continue
        assert all(row[c]["value"] == 1.0 for c in COLUMNS if c.endswith(" S"))
        if label in ("Brute Force", "Binary Search"):  # a search names a step only: no module, no type
            assert all(row[c]["hits"] == 0 for c in COLUMNS if not c.endswith(" S"))
            continue
        for (env, fam), key in zip(PLACES, bench):  # the type is right where E is an impossible action
            right = all(r["critical_error"]["error_type"] == "impossible_action" for r in bench[key])
            assert row[f"{env} / {fam} S+M"]["value"] == 1.0
            assert row[f"{env} / {fam} ALL"]["value"] == (1.0 if right else 0.0)
    paper = find_table("agentdebug.table1")
    assert f"the paper's average: {paper.cell('AgentDebug', 'Average S').text}" in table(
        data, "agentdebug.table1")["reading"]
    steps = [sum(m["role"] == "assistant" for m in r["messages"]) for rows in bench.values() for r in rows]
    calls = {r["label"]: r["cells"]["model calls"] for r in table(data, "agentdebug.formal")["rows"]}
    assert calls["AgentDebug (openai:m)"] == str(sum(4 * n + 1 for n in steps))  # stage 1 per step and module, then 2
    long = sum(n >= LONG for n in steps)
    assert long and calls["Direct Prompting (openai:m)"] == str(len(steps) - long)  # the overflows are not counted
    assert asked == sum(int(c) for c in calls.values()) + long  # every detector call reached the model, nothing else
    direct = measures(_row(data, "agentdebug.formal", "Direct Prompting"))["answered"]
    assert direct["hits"] == len(steps) - long and direct["n"] == len(steps)
    assert "context" in " ".join(table(data, "agentdebug.formal")["notes"])
    # repair: re-rolled out from the detected step with feedback, the agent finishes; restarts without do not
    fig5 = measures(next(r for r in table(data, "agentdebug.figure5_text")["rows"]
                         if r["label"].endswith("(all families)")))
    assert fig5["First attempt"]["hits"] == 0 and fig5["AgentDebug"]["value"] == 1.0
    assert fig5["Best-of-N"]["hits"] == 0
    repair = table(data, "agentdebug.repair")
    agentdebug = next(r for r in repair["rows"] if r["label"] == "AgentDebug")
    p = float(agentdebug["cells"]["vs Best-of-N (McNemar p)"].split()[0])
    assert measures(agentdebug)["all"]["value"] == 1.0 and p < 0.05
    rows = [json.loads(x) for x in (tmp_path / "m" / "repair" / "blocksworld-agentdebug.jsonl").read_text().splitlines()]
    assert all(r["from_step"] == 0 and r["fixed_at"] == 1 and "Instead:" in r["rounds"][0]["guidance"] for r in rows)
    assert "Fig. 5: task success" in out and "re-rollouts" in json.dumps(data["plots"])


def test_the_solver_passes_everything_and_the_tables_say_there_is_nothing_to_score(tmp_path, capsys, monkeypatch):
    code, _, err = _run(capsys, monkeypatch, tmp_path / "s", "--model", "solver")
    assert code == 0, err
    data = study_json(tmp_path / "s")
    assert data["identity"]["agent"] == "modular"  # the paper's modular rollout, with a model and no --agent
    bench = table(data, "agentdebug.bench")
    assert all(measures(r)["first-attempt success"]["value"] == 1.0 for r in bench["rows"])
    assert all(r["cells"]["with a step to name"] == "0" for r in bench["rows"])
    for row in table(data, "agentdebug.table1")["rows"]:
        if row["source"] != "paper":
            assert all("no failed trajectory" in v["missing"] for v in row["cells"].values()), row
    fig5 = next(r for r in table(data, "agentdebug.figure5_text")["rows"] if r["label"].endswith("(all families)"))
    assert {c: m["value"] for c, m in measures(fig5).items()} == dict.fromkeys(
        ["First attempt", "AgentDebug", "Best-of-N", "Self-Refine"], 1.0)
    assert table(data, "agentdebug.repair")["reading"] == "no failure: nothing to repair"


def test_an_interrupted_study_resumes_where_it_stopped_without_redoing_work(tmp_path, capsys, monkeypatch):
    out = tmp_path / "r"
    code, _, err = study(capsys, monkeypatch, "agentdebug", "--agent", REPAIR_AGENT, "--out", str(out), "--size",
                         "tiny", "-q", "--max-steps", "4")
    assert code == 130 and "run the same command again" in err
    assert study_json(out)["status"] == "stopped"
    assert (out / "bench" / "blocksworld.jsonl").exists() and not (out / "bench" / "constraints.jsonl").exists()
    first = results_snapshot(out)
    bench = (out / "bench" / "blocksworld.jsonl").read_bytes()
    code, _, err = _run(capsys, monkeypatch, out, "--agent", REPAIR_AGENT)
    assert code == 0, err
    assert {k: v for k, v in results_snapshot(out).items() if k in first} == first  # no run was redone
    assert (out / "bench" / "blocksworld.jsonl").read_bytes() == bench
    repaired = {p.name: p.read_bytes() for p in (out / "repair").iterdir()}
    assert len(repaired) == 12  # three families x (Best-of-N, Self-Refine, oracle, random): no model, no AgentDebug
    before, attempts = (out / "study.json").read_bytes(), _rerollouts(out)
    assert attempts
    code, _, err = _run(capsys, monkeypatch, out, "--agent", REPAIR_AGENT)
    assert code == 0, err
    assert {p.name: p.read_bytes() for p in (out / "repair").iterdir()} == repaired
    assert _rerollouts(out) == attempts  # no repair was re-rolled out again
    page = tmp_path / "study.html"
    code, _, err = cli_here(capsys, monkeypatch, "report", str(out), "-o", str(page))
    assert code == 0, err
    html = page.read_text(encoding="utf-8")
    assert "Table 1: critical-error detection" in html and html.count("<svg") == 1 and "(Fig. 7a)" in html
    assert (out / "study.json").read_bytes() == before  # same seed, same bytes


def _rerollouts(directory: Path) -> dict[str, int]:
    out = {}
    for db in sorted(directory.rglob("run.sqlite")):
        con = sqlite3.connect(db)
        try:
            out[str(db.relative_to(directory))] = con.execute("SELECT COUNT(*) FROM rerollouts").fetchone()[0]
        finally:
            con.close()
    return out


def _one_line(code: int, err: str) -> str:
    assert code == 2, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    return lines[0]


def test_bad_input_is_one_line_and_changes_nothing(faulty, tmp_path, capsys, monkeypatch):
    before = {p: p.read_bytes() for p in faulty.rglob("*") if p.is_file() and p.suffix != ".lock"}
    line = _one_line(*_run(capsys, monkeypatch, faulty, "--agent", "random")[::2])
    assert "agent 'random'" in line and "nothing was changed" in line
    line = _one_line(*study(capsys, monkeypatch, "pdoctor", "--agent", "faulty:swap", "--out", str(faulty),
                            "--size", "tiny")[::2])
    assert "study 'pdoctor'" in line
    line = _one_line(*study(capsys, monkeypatch, "agentdebug", "--agent", "faulty:swap")[::2])
    assert "--out" in line
    line = _one_line(*_run(capsys, monkeypatch, tmp_path / "x", "--agent", "faulty:nonsense")[::2])
    assert "nonsense" in line and not (tmp_path / "x").exists()
    assert {p: p.read_bytes() for p in faulty.rglob("*") if p.is_file() and p.suffix != ".lock"} == before


def test_list_shows_agentdebug_built(capsys, monkeypatch):
    code, out, _ = study(capsys, monkeypatch, "--list")
    assert code == 0
    line = next(x for x in out.splitlines() if x.startswith("agentdebug"))
    assert "planned" not in line and "Table 1" in line


def test_compare_pairs_the_same_cases_of_two_agents(faulty, tmp_path, capsys, monkeypatch):
    code, _, err = _run(capsys, monkeypatch, tmp_path / "oracle")  # no --agent, no --model: the oracle agent
    assert code == 0, err
    assert all(r["cells"]["failures labelled"] == "0" for r in table(study_json(tmp_path / "oracle"),
                                                                          "agentdebug.bench")["rows"])
    code, out, err = study(capsys, monkeypatch, "compare", str(tmp_path / "oracle"), str(faulty), "--json")
    assert code == 0, err
    paired = json.loads(out)["paired"][0]
    assert [r["run"] for r in paired["runs"]] == ["runs/blocksworld", "runs/constraints", "runs/logistics"]
    assert paired["pairs"] == 6 and paired["a_only"] == 6 and paired["b_only"] == 0


def test_quick_worlds_fit_a_perfect_agent_within_the_quick_iteration_cap(tmp_path, capsys, monkeypatch):
    code, out, err = study(capsys, monkeypatch, "agentdebug", "--model", "solver", "--out", str(tmp_path / "q"),
                           "--quick", "-q")
    assert code == 0, err
    data = study_json(tmp_path / "q")
    assert data["identity"]["size"] == "quick" and not data["comparable_with_paper"]
    rows = table(data, "agentdebug.bench")["rows"]
    assert all(measures(r)["first-attempt success"]["value"] == 1.0 for r in rows)
    settings = {s["name"]: s for s in data["settings"]}
    assert settings["iterations per case"]["value"] == SIZES["quick"].iterations
    assert settings["iterations per case"]["chosen"]
    assert "not comparable with the paper's" in err.lower() + out.lower()
