import json
import subprocess

from planprobe import run_suite

from helpers import cases, planprobe_cmd


def _dissect(run, *args):
    r = subprocess.run(planprobe_cmd() + ["dissect", str(run), "--json", *args], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_a_failure_that_survives_every_mutation_is_a_constraint_cause(tmp_path):
    run_suite(cases(6, seed=5), "faulty:swap", tmp_path / "swap")
    data = _dissect(tmp_path / "swap", "--k", "2")
    assert data["cases"] == 6 and data["causes"]["Constraint"] == 6
    rows = [json.loads(line) for line in (tmp_path / "swap" / "dissect.jsonl").read_text().splitlines()]
    kinds = [a["case_id"].split("~")[-1].rstrip("0123456789") if "~" in a["case_id"] else "same"
             for a in rows[0]["attempts"]]
    assert kinds == ["same"] * 3 + ["terminal"] * 2 + ["topic"] * 2 + ["structure"] * 2


def test_an_agent_that_passes_on_a_rerun_is_probability_and_results_resume(tmp_path):
    run_suite(cases(6, seed=5), "faulty:drop", tmp_path / "drop")
    data = _dissect(tmp_path / "drop", "--agent", "oracle")
    assert data["causes"]["Probability"] == 6
    before = (tmp_path / "drop" / "dissect.jsonl").read_text()
    again = _dissect(tmp_path / "drop", "--agent", "oracle")
    assert again == data and (tmp_path / "drop" / "dissect.jsonl").read_text() == before


def test_random_failures_spread_over_causes(tmp_path):
    run_suite(cases(30, seed=6), "random", tmp_path / "random")
    data = _dissect(tmp_path / "random", "--limit", "10")
    assert data["cases"] == 10 and sum(data["causes"].values()) == 10
