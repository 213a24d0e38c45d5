"""``planprobe export inspect`` run under ``inspect eval`` (a subprocess) against real servers
on loopback, and ``planprobe import inspect`` grading its log: exact verdicts with a scripted
model (equal to the ``tools`` agent's on the same replies), the embedded model on llama.cpp's
server, and one-line errors for bad input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason="the inspect extra is not installed")

from plan_script import PlanScript

from helpers import cases, planprobe_cmd, run_agent, subprocess_env
from http_faults import ScriptedServer
from planprobe import check
from planprobe.agents import make_agent
from planprobe.models import ModelOptions, make_model
from planprobe.models.base import ChatParams
from planprobe.runner.store import RunStore
from planprobe.suites.io import write_suite


def _env(**extra):
    import planprobe

    src = str(Path(planprobe.__file__).parents[1])
    return subprocess_env(PYTHONPATH=os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]), **extra)


def _export(tmp_path, suite_cases, *extra):
    suite = tmp_path / "suite.jsonl"
    write_suite(suite_cases, suite)
    task = tmp_path / "task"
    proc = subprocess.run(planprobe_cmd() + ["export", "inspect", str(suite), "-o", str(task), *extra],
                          capture_output=True, text=True, check=False, env=_env())
    assert proc.returncode == 0, proc.stderr
    return suite, task


def _inspect_eval(task, url, logs, model="scripted", *extra):
    """inspect eval on the exported task, its OpenAI-compatible provider pointed at ``url``."""
    proc = subprocess.run([sys.executable, "-m", "inspect_ai", "eval", "planprobe_task.py", "--model",
                           f"openai-api/local/{model}", "--log-format", "json", "--log-dir", str(logs),
                           "--display", "plain", *extra],
                          cwd=task, capture_output=True, text=True, check=False,
                          env=_env(LOCAL_BASE_URL=url, LOCAL_API_KEY="none"))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    log, = logs.glob("*.json")
    return log


def _import(log, suite, out):
    return subprocess.run(planprobe_cmd() + ["import", "inspect", str(log), "--suite", str(suite), "--out", str(out)],
                          capture_output=True, text=True, check=False, env=_env())


@pytest.mark.parametrize("mode", ["reference", "reversed"])
def test_an_exported_suite_under_inspect_eval_is_judged_like_the_tools_agent(tmp_path, mode):
    from inspect_ai.log import read_eval_log

    suite_cases = cases(3, seed=31, actions=(3, 3))
    suite, task = _export(tmp_path, suite_cases)
    assert "suite_cases" not in (task / "planprobe_task.py").read_text()  # the task file holds no case text
    assert suite_cases[0].task not in (task / "planprobe_task.py").read_text()
    with ScriptedServer(PlanScript(suite_cases, mode)) as server:
        log = _inspect_eval(task, server.url, tmp_path / "logs")
        expected = {}
        for case in suite_cases:
            model = make_model("openai:scripted", ModelOptions(base_url=server.url, cache=False))
            trace = run_agent(make_agent("tools", 0, model=model, params=ChatParams(seed=0)), case)
            expected[case.id] = check(case, trace)
    # Inspect's own scores come from planprobe's oracle
    scores = {s.id: s.scores["planprobe_oracle"] for s in read_eval_log(str(log)).samples}
    for cid, verdict in expected.items():
        assert scores[cid].value == ("C" if verdict.passed else "I")
        assert scores[cid].metadata["errors"] == list(verdict.errors)
    assert any(not v.passed for v in expected.values()) is (mode == "reversed")
    # and the imported log is a normal run with the same verdicts and the tokens Inspect counted
    proc = _import(log, suite, tmp_path / "run")
    assert proc.returncode == 0, proc.stderr
    results = {t.case_id: (t, v) for t, v in RunStore(tmp_path / "run").results()}
    assert set(results) == set(expected)
    for cid, (trace, verdict) in results.items():
        assert (verdict.passed, verdict.errors) == (expected[cid].passed, expected[cid].errors)
        n = len(trace.tool_calls)
        assert trace.agent == "inspect" and trace.final_answer == "All done."
        assert trace.usage.prompt_tokens == sum(100 + i for i in range(n)) + 200
    show = subprocess.run(planprobe_cmd() + ["show", str(tmp_path / "run"), "--json"], capture_output=True,
                          text=True, check=False, env=_env())
    assert show.returncode == 0 and '"cases": 3' in show.stdout
    # importing again resumes: nothing is re-judged, nothing changes
    again = _import(log, suite, tmp_path / "run")
    assert again.returncode == 0, again.stderr
    assert len(list(RunStore(tmp_path / "run").results())) == 3


def test_inspect_with_the_embedded_model_on_llama_cpp(llama_server, tmp_path):
    suite_cases = cases(1, seed=4, actions=(2, 2))  # one case: the plumbing, not the model, is under test
    suite, task = _export(tmp_path, suite_cases, "--message-limit", "6")
    log = _inspect_eval(task, llama_server, tmp_path / "logs", "smollm2", "--max-tokens", "64", "--max-connections", "1")
    proc = _import(log, suite, tmp_path / "run")
    assert proc.returncode in (0, 3), proc.stderr
    results = list(RunStore(tmp_path / "run").results())
    assert len(results) == 1
    for trace, verdict in results:
        assert trace.messages[0].role == "system" and trace.usage.prompt_tokens > 0
        assert verdict.checker == "constraints/1"


def test_bad_input_is_one_line(tmp_path):
    suite_cases = cases(2, seed=4, actions=(2, 2))
    suite = tmp_path / "suite.jsonl"
    write_suite(suite_cases, suite)
    not_a_log = tmp_path / "x.json"
    not_a_log.write_text("{not json")
    runs = [
        (["import", "inspect", str(not_a_log), "--suite", str(suite), "--out", str(tmp_path / "r1")],
         "not an Inspect log"),
        (["import", "inspect", str(tmp_path / "missing.json"), "--suite", str(suite), "--out", str(tmp_path / "r2")],
         "no such Inspect log"),
        (["export", "inspect", str(suite), "-o", str(tmp_path / "t"), "--message-limit", "1"], "--message-limit 1"),
    ]
    for args, message in runs:
        proc = subprocess.run(planprobe_cmd() + args, capture_output=True, text=True, check=False, env=_env())
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1 and message in lines[0], proc.stderr


def test_an_errored_sample_is_infra_and_the_import_exits_3_as_run_does(tmp_path):
    import json

    suite_cases = cases(2, seed=32, actions=(3, 3))
    suite, task = _export(tmp_path, suite_cases)
    with ScriptedServer(PlanScript(suite_cases, "reference")) as server:
        log = _inspect_eval(task, server.url, tmp_path / "logs")
    data = json.loads(log.read_text())
    failed = data["samples"][1]
    failed["error"] = {"message": "RuntimeError: the provider went away", "traceback": "", "traceback_ansi": ""}
    log.write_text(json.dumps(data))
    proc = _import(log, suite, tmp_path / "run")
    assert proc.returncode == 3, proc.stderr
    assert "1 result(s) failed for infrastructure reasons" in proc.stderr and "the provider went away" in proc.stderr
    verdicts = {t.case_id: v for t, v in RunStore(tmp_path / "run").results()}
    assert verdicts[str(failed["id"])].infra and sum(v.passed for v in verdicts.values()) == 1
