"""label, errorbench and import agentdebug on stored runs; bad input is one line."""

from __future__ import annotations

import json
import subprocess

import pytest

from helpers import cases as constraint_cases
from helpers import planprobe_cmd, planprobe_here, subprocess_env
from planprobe.api import run_suite
from planprobe.debug.bench import read_trajectories
from planprobe.environment import Limits
from planprobe.errors import PlanprobeError
from planprobe.suites.pddl_agent import PDDLSuiteOptions, generate_cases
from planprobe.suites.planbench import PlanBenchOptions
from planprobe.suites.planbench import generate_cases as pb_cases


def pp(*args, cwd=None):
    """The command line in this process: these tests check what a command writes and says, not the process."""
    return planprobe_here(*args, cwd=cwd)


def pp_process(*args, cwd=None):
    """A real process: for the embedded model (its own process, as users run it) and deep recursion."""
    return subprocess.run(planprobe_cmd() + [str(a) for a in args], capture_output=True, text=True, cwd=cwd,
                          env=subprocess_env(), timeout=300)


def one_line_error(r, *fragments):
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    for f in fragments:
        assert f in r.stderr, (f, r.stderr)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    run_suite(constraint_cases(8, seed=2), "faulty:unknown-tool", root / "c", concurrency=1)
    bw = list(generate_cases(PDDLSuiteOptions(domain="blocksworld", n=6, seed=3, blocks=(3, 4))))
    run_suite(bw, "random", root / "p", concurrency=1, limits=Limits(max_iterations=6))
    run_suite(list(pb_cases(PlanBenchOptions(task="t1", n=2, seed=1, blocks=(3, 3)))), "random", root / "t",
              concurrency=1)
    run_suite(constraint_cases(3, seed=2), "oracle", root / "ok", concurrency=1)
    return root


def test_label_writes_one_line_per_failed_trace(runs, tmp_path):
    r = pp("label", runs / "c", "-o", tmp_path / "l.jsonl", "--json", "-q")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    lines = [json.loads(x) for x in (tmp_path / "l.jsonl").read_text().splitlines()]
    assert summary["labelled"] == len(lines) == 8
    assert summary["critical"] == {"action/invalid_action": 8}
    assert all(x["critical"]["how"] == "exact" and x["pnr"]["step"] is None for x in lines)
    again = pp("label", runs / "c", "-o", tmp_path / "l2.jsonl", "-q")
    assert (tmp_path / "l2.jsonl").read_bytes() == (tmp_path / "l.jsonl").read_bytes()  # deterministic
    assert "labelled 8 failed traces" in again.stdout


def test_label_uses_the_runs_step_limit_for_the_budget_pnr(runs, tmp_path):
    r = pp("label", runs / "p", "-o", tmp_path / "p.jsonl", "-q")
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in (tmp_path / "p.jsonl").read_text().splitlines()]
    assert lines and all(x["step_limit"] == 6 and x["budget_pnr"] is not None for x in lines)


def test_errorbench_is_agentdebugs_format_and_reads_back(runs, tmp_path):
    bench = tmp_path / "bench.jsonl"
    r = pp("errorbench", runs / "c", runs / "p", runs / "ok", "-o", bench, "-q")
    assert r.returncode == 0, r.stderr
    rows = [json.loads(x) for x in bench.read_text().splitlines()]
    assert len(rows) >= 8
    for row in rows:
        assert set(row) == {"metadata", "messages", "critical_error", "labels"}
        assert row["metadata"]["success"] is False and row["metadata"]["task_id"]
        steps = [m for m in row["messages"] if m["role"] == "assistant"]
        assert len(steps) >= row["labels"]["steps"]  # one assistant message per step (+ the answer)
        crit, label = row["critical_error"], row["labels"]["critical"]
        # the label's step on the trajectory's steps: a stop without an answer is the last step
        assert crit["critical_step"] == min(label["step"], len(steps))
        assert (crit["critical_module"], crit["error_type"]) == (label["module"], label["type"])
        if crit["critical_step"] <= row["labels"]["steps"]:  # the step's message holds the call it judges
            assert "<action>tool: " in steps[crit["critical_step"] - 1]["content"]
    back = tmp_path / "back.jsonl"
    r = pp("import", "agentdebug", bench, "-o", back)
    assert r.returncode == 0, r.stderr
    assert [json.loads(x) for x in back.read_text().splitlines()] == rows


def test_runs_without_formal_labels_say_which_families_can_be_labelled(runs, tmp_path):
    one_line_error(pp("label", runs / "t", "-o", tmp_path / "x.jsonl"), "planbench", "constraints, pddl")
    one_line_error(pp("errorbench", runs / "t", "-o", tmp_path / "y.jsonl"), "constraints, pddl")
    assert not (tmp_path / "x.jsonl").exists() and not (tmp_path / "y.jsonl").exists()
    r = pp("label", runs / "ok", "-o", tmp_path / "z.jsonl")
    assert r.returncode == 0 and "no failed trace to label" in r.stdout


GOOD = {"metadata": {"task_id": "t1", "task": "put a clean bowl on the shelf", "success": False,
                     "environment": "alfworld"},
        "messages": [{"role": "user", "content": "Your task is: x"}, {"role": "assistant", "content": "<action>go</action>"},
                     {"role": "user", "content": "ok"}, {"role": "assistant", "content": "<action>take</action>"}]}


@pytest.mark.parametrize("mutate,where,field", [
    (lambda d: d.pop("messages"), 1, "field 'messages'"),
    (lambda d: d["messages"].__setitem__(1, {"role": "bot", "content": "x"}), 1, "field 'messages.1.role'"),
    (lambda d: d["messages"][2].__setitem__("content", 3), 1, "field 'messages.2.content'"),
    (lambda d: d.update(messages=[{"role": "user", "content": "x"}], critical_step=1, critical_module="system",
                        error_type="step_limit"), 1, "field 'critical_error': the trajectory has no step"),
    (lambda d: d.update(critical_step=3, critical_module="planning", error_type="constraint_ignorance"), 1,
     "field 'critical_error.critical_step'"),
    (lambda d: d.update(critical_step=1, critical_module="planning", error_type="format_error"), 1,
     "field 'critical_error.error_type'"),
    (lambda d: d.update(labels={"case_id": 3}), 1, "field 'labels."),
])
def test_malformed_agentdebug_files_name_file_line_and_field(tmp_path, mutate, where, field):
    good = json.loads(json.dumps(GOOD))
    bad = json.loads(json.dumps(GOOD))
    mutate(bad)
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(good) + "\n\n" + json.dumps(bad) + "\n")
    with pytest.raises(PlanprobeError) as err:
        list(read_trajectories(path))
    assert str(err.value).startswith(f"{path}:3: ") and field in str(err.value), str(err.value)
    r = pp("import", "agentdebug", path, "-o", tmp_path / "o.jsonl")
    one_line_error(r, f"{path}:3:", field)
    assert not (tmp_path / "o.jsonl").exists()


def test_agentdebug_json_files_one_or_a_list_with_line_numbers(tmp_path):
    one = tmp_path / "one.json"
    one.write_text(json.dumps({**GOOD, "critical_step": 2, "critical_module": "action",
                               "error_type": "invalid_action"}, indent=2))
    got = list(read_trajectories(one))
    assert got[0]["critical_error"]["critical_step"] == 2 and got[0]["labels"] is None
    many = tmp_path / "many.json"
    many.write_text("[\n" + json.dumps(GOOD) + ",\n" + json.dumps({"chat_history": GOOD["messages"]}) + ",\n"
                    + json.dumps({"messages": []}) + "\n]")
    with pytest.raises(PlanprobeError, match=r"many\.json:4: field 'messages'"):
        list(read_trajectories(many))
    broken = tmp_path / "broken.json"
    broken.write_text('{"messages": [\n{"role": "user",\n')
    with pytest.raises(PlanprobeError, match=r"broken\.json:\d+: not valid JSON"):
        list(read_trajectories(broken))


def test_modular_agent_with_the_embedded_model_then_labels(tmp_path):
    """Any model: the embedded 135M model drives the modular agent end to end (it plans badly;
    the point is that every step is recorded in the rollout format and the run can be labelled)."""
    from llama_server import require_local_model

    require_local_model()
    r = pp("generate", "constraints", "--n", "1", "--actions", "3", "--seed", "2", "-o", tmp_path / "s.jsonl")
    assert r.returncode == 0, r.stderr
    r = pp_process("run", tmp_path / "s.jsonl", "--agent", "modular", "--model", "local", "--max-iterations", "2",
                   "--max-tokens", "96", "--out", tmp_path / "r", "-q")
    assert r.returncode in (0, 1), r.stderr
    r = pp("errorbench", tmp_path / "r", "-o", tmp_path / "b.jsonl", "-q")
    if r.returncode == 0 and (tmp_path / "b.jsonl").read_text().strip():
        row = json.loads((tmp_path / "b.jsonl").read_text().splitlines()[0])
        roles = [m["role"] for m in row["messages"]]
        assert roles[:2] == ["user", "assistant"] and "<plan>" in row["messages"][0]["content"]
        assert row["critical_error"] is not None


def test_errorbench_writes_a_holistic_plan_step_by_step(tmp_path):
    from planprobe.suites.protocols.wrap import wrap_holistic

    run_suite([wrap_holistic(c) for c in constraint_cases(3, seed=9)], "faulty:unknown-tool", tmp_path / "h",
              concurrency=1)
    r = pp("errorbench", tmp_path / "h", "-o", tmp_path / "b.jsonl", "-q")
    assert r.returncode == 0, r.stderr
    rows = [json.loads(x) for x in (tmp_path / "b.jsonl").read_text().splitlines()]
    assert len(rows) == 3
    for row in rows:
        steps = [m for m in row["messages"] if m["role"] == "assistant"]
        crit = row["critical_error"]
        assert row["metadata"]["environment"] == "holistic" and len(steps) >= row["labels"]["steps"]
        assert crit["error_type"] == "invalid_action" and "_v2" in steps[crit["critical_step"] - 1]["content"]


# -- bad input (issue #26, item 16) ------------------------------------------------------------


@pytest.fixture(scope="module")
def bench_rows(runs, tmp_path_factory):
    path = tmp_path_factory.mktemp("bench") / "b.jsonl"
    r = pp("errorbench", runs / "c", runs / "p", "-o", path, "-q")
    assert r.returncode == 0, r.stderr
    return [json.loads(x) for x in path.read_text().splitlines()]


@pytest.mark.parametrize("name,text,why", [
    ("empty.jsonl", "", "it is empty"),
    ("blank.jsonl", " \n\n\t\n", "it is empty"),
    ("blank.json", "\n  \n", "it is empty"),
    ("list.json", "[\n]\n", "an empty list"),
])
def test_a_file_without_trajectories_is_an_error_not_an_empty_benchmark(tmp_path, name, text, why):
    path = tmp_path / name
    path.write_text(text)
    one_line_error(pp("import", "agentdebug", path, "-o", tmp_path / "o.jsonl"), f"{path}: no trajectory", why)
    assert not (tmp_path / "o.jsonl").exists()


@pytest.mark.parametrize("mutate,field", [
    (lambda r: r["labels"]["critical"].update(step=r["critical_error"]["critical_step"] + 1),
     "field 'critical_error.critical_step'"),
    (lambda r: r["labels"]["critical"].update(module="memory", type="hallucination"),
     "field 'critical_error.critical_module'"),
    (lambda r: r["labels"].update(critical=None), "field 'critical_error': given, but labels.critical is null"),
    (lambda r: r["labels"].update(steps=-1), "field 'labels.steps'"),
    (lambda r: r["labels"].update(step_limit=0), "field 'labels.step_limit'"),
    (lambda r: r["labels"]["pnr"].update(step=r["labels"]["steps"] + 2), "field 'labels.pnr.step'"),
])
def test_labels_that_contradict_themselves_or_the_critical_error_are_refused(bench_rows, tmp_path, mutate,
                                                                            field):
    good = bench_rows[0]
    bad = json.loads(json.dumps(good))
    mutate(bad)
    path = tmp_path / "b.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(PlanprobeError) as err:
        list(read_trajectories(path))
    assert str(err.value).startswith(f"{path}:2: ") and field in str(err.value), str(err.value)
    one_line_error(pp("import", "agentdebug", path, "-o", tmp_path / "o.jsonl"), f"{path}:2:", field)


def test_json_nested_too_deeply_names_the_file_and_line(tmp_path):
    deep = "[" * 100_000 + "]" * 100_000
    jsonl = tmp_path / "deep.jsonl"
    jsonl.write_text(json.dumps(GOOD) + "\n" + deep + "\n")
    one_line_error(pp_process("import", "agentdebug", jsonl, "-o", tmp_path / "o.jsonl"), f"{jsonl}:2:",
                   "nested too deeply")
    one = tmp_path / "deep.json"
    one.write_text("\n" + deep)
    one_line_error(pp_process("detect", one, "--detector", "oracle"), f"{one}:2:", "nested too deeply")


def test_a_utf8_byte_order_mark_is_read(tmp_path):
    for name, text in (("bom.jsonl", json.dumps(GOOD) + "\n"), ("bom.json", json.dumps([GOOD], indent=1))):
        path = tmp_path / name
        path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
        assert [r["messages"] for r in read_trajectories(path)] == [GOOD["messages"]]
        r = pp("import", "agentdebug", path, "-o", tmp_path / "o.jsonl")
        assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("limit", ["-1", "0"])
def test_limit_must_be_at_least_one(bench_rows, runs, tmp_path, limit):
    bench = tmp_path / "b.jsonl"
    bench.write_text("".join(json.dumps(r) + "\n" for r in bench_rows))
    one_line_error(pp("detect", bench, "--detector", "oracle", "--limit", limit), f"--limit {limit}", "at least 1")
    one_line_error(pp("debug", runs / "c", "--detector", "oracle", "--agent", "tools", "--limit", limit),
                   f"--limit {limit}", "at least 1")
    r = pp("detect", bench, "--detector", "oracle", "--limit", "1", "--json", "-q")
    assert r.returncode == 0 and json.loads(r.stdout)["n"] == 1, r.stderr


def test_a_run_still_being_written_is_labelled_with_a_warning(tmp_path):
    import sqlite3

    run = tmp_path / "r"
    run_suite(constraint_cases(6, seed=2), "faulty:unknown-tool", run, concurrency=1)
    db = sqlite3.connect(run / "run.sqlite")
    with db:
        db.execute("DELETE FROM results WHERE rowid IN (SELECT rowid FROM results ORDER BY rowid LIMIT 2)")
    db.close()
    for args in (("label", run, "-o", tmp_path / "l.jsonl"), ("errorbench", run, "-o", tmp_path / "b.jsonl")):
        r = pp(*args)
        assert r.returncode == 0, r.stderr
        assert "unfinished: 2 of 6 results" in r.stderr and "4 stored" in r.stderr, r.stderr
    assert len((tmp_path / "b.jsonl").read_text().splitlines()) == 4


def test_a_run_named_twice_is_written_once(runs, tmp_path):
    once, twice = tmp_path / "once.jsonl", tmp_path / "twice.jsonl"
    assert pp("errorbench", runs / "c", "-o", once, "-q").returncode == 0
    r = pp("errorbench", runs / "c", f"{runs / 'c'}/", runs / "p" / ".." / "c", "-o", twice, "-q")
    assert r.returncode == 0, r.stderr
    assert twice.read_bytes() == once.read_bytes()
    assert "read once" in r.stderr and "unfinished" not in r.stderr  # a finished run: no warning
