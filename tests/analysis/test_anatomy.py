import json

from helpers import cases, planprobe_here
from planprobe import run_suite
from planprobe.analysis.anatomy import anatomy
from planprobe.runner.store import RunStore
from planprobe.suites.constraints.grammar import sentence_from_json, shaped_atoms


def test_anatomy_of_an_oracle_run_and_a_faulty_run(tmp_path):
    suite = cases(80, seed=21, actions=(3, 5))
    run_suite(suite, "oracle", tmp_path / "oracle")
    run_suite(suite, "faulty:swap", tmp_path / "swap")
    a = anatomy([("oracle", RunStore(tmp_path / "oracle")), ("swap", RunStore(tmp_path / "swap"))]).to_json()
    by_run = {r["run"]: r for r in a["runs"]}
    assert by_run["oracle"]["passed"] == 80 and by_run["oracle"]["error_distribution"] == {}
    assert by_run["swap"]["error_distribution"] == {"order_error": 1.0}
    # every stated constraint is counted once per run that ran its case
    stated = sum(len(shaped_atoms(p)) for c in suite for s in c.spec["skeleton"] for p in sentence_from_json(s).parts)
    assert sum(r["stated"] for r in a["constraint_shapes"]) == 2 * stated
    assert sum(r["violated"] for r in a["constraint_shapes"]) >= 80  # each swap violates at least one
    # by number of actions is per run: an oracle run and a failing run are never added together
    assert "by_actions" not in a
    for name, passed in (("oracle", 80), ("swap", 0)):
        actions = by_run[name]["by_actions"]
        assert sum(t["cases"] for t in actions.values()) == 80
        assert sum(t["passed"] for t in actions.values()) == passed
        assert set(actions) == {"3", "4", "5"}


def test_anatomy_cli(tmp_path):
    suite = cases(20, seed=2)
    run_suite(suite, "random", tmp_path / "r")
    out = planprobe_here("anatomy", tmp_path / "r", "--json")
    data = json.loads(out.stdout)
    assert data["runs"][0]["cases"] == 20 and data["constraint_shapes"]
    text = planprobe_here("anatomy", tmp_path / "r")
    assert text.returncode == 0 and "constraint phrasings" in text.stdout


def test_anatomy_tables_keep_runs_apart(tmp_path):
    suite = cases(12, seed=3, actions=(3, 4))
    run_suite(suite, "oracle", tmp_path / "good")
    run_suite(suite, "faulty:drop", tmp_path / "bad")
    r = planprobe_here("anatomy", tmp_path / "good", tmp_path / "bad")
    assert r.returncode == 0, r.stderr
    table = r.stdout[r.stdout.index("by number of actions"):r.stdout.index("constraint phrasings")]
    rates = [line.split("│")[4].strip() for line in table.splitlines() if line.count("│") >= 5]
    # each run has its own rows per action count: 100% for the oracle, 0% for the faulty run, nothing in between
    assert sorted(set(rates)) == ["0.0%", "100.0%"] and len(rates) == 4, table
