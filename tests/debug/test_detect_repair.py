"""detect and debug: detectors scored against formal labels, repair by re-rollouts; scripted
models on loopback, a scripted python: agent, and once the embedded model end to end."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import cases as constraint_cases
from helpers import planprobe_cmd, planprobe_here, subprocess_env
from http_faults import ScriptedServer, chat_reply
from planprobe.api import run_suite
from planprobe.debug.bench import read_trajectories
from planprobe.debug.detectors import probe_prompt, random_pick, steps_of
from planprobe.environment import Limits
from planprobe.lenient_json import first_object
from planprobe.suites.pddl_agent import PDDLSuiteOptions, generate_cases

HERE = Path(__file__).resolve().parent


def pp(*args, **env):
    """The command line in this process (these tests check what commands write, count and say), with this
    folder importable for the python: agents, as pp_process puts it on PYTHONPATH."""
    sys.path.insert(0, str(HERE))
    try:
        return planprobe_here(*args, env={"OPENAI_API_KEY": "sk-test-not-used", **env})
    finally:
        sys.path.remove(str(HERE))


def pp_process(*args, **env):
    """A real process: for the embedded model, loaded and freed as users run it."""
    e = subprocess_env(OPENAI_API_KEY="sk-test-not-used", **env)
    e["PYTHONPATH"] = f"{HERE}:{e.get('PYTHONPATH', '')}"
    return subprocess.run(planprobe_cmd() + [str(a) for a in args], capture_output=True, text=True, env=e,
                          timeout=600)


def one_line_error(r, *fragments):
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    for f in fragments:
        assert f in r.stderr, (f, r.stderr)


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    root = tmp_path_factory.mktemp("bench")
    run_suite(constraint_cases(20, seed=4), "random", root / "c", concurrency=1)
    bw = list(generate_cases(PDDLSuiteOptions(domain="blocksworld", n=8, seed=5, blocks=(3, 4))))
    run_suite(bw, "random", root / "p", concurrency=1, limits=Limits(max_iterations=8))
    r = pp("errorbench", root / "c", root / "p", "-o", root / "b.jsonl", "-q")
    assert r.returncode == 0, r.stderr
    return root


def _scores(r):
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_oracle_detector_scores_100_percent(bench):
    s = _scores(pp("detect", bench / "b.jsonl", "--detector", "oracle", "--json", "-q"))
    assert s["n"] > 10
    for key in ("step", "step_module", "all_correct", "within_e_pnr"):
        assert s[key]["rate"] == 1.0
    assert s["distance_mean"] == 0


def test_random_detector_is_near_chance(bench, tmp_path):
    records = list(read_trajectories(bench / "b.jsonl"))
    chance = sum(1 / (r["labels"]["steps"] + 1) for r in records) / len(records)  # a pick over 1..T+1
    hits = []
    for seed in range(5):
        s = _scores(pp("detect", bench / "b.jsonl", "--detector", "random", "--seed", seed, "--json", "-q"))
        hits.append(s["step"]["rate"])
        assert s["all_correct"]["rate"] <= s["step_module"]["rate"] <= s["step"]["rate"]
    mean = sum(hits) / len(hits)
    assert abs(mean - chance) < 0.12, (mean, chance)
    a = pp("detect", bench / "b.jsonl", "--detector", "random", "-o", tmp_path / "a.jsonl", "-q")
    b = pp("detect", bench / "b.jsonl", "--detector", "random", "-o", tmp_path / "b.jsonl", "-q")
    assert a.returncode == b.returncode == 0
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()  # same seed, same bytes


def test_random_detector_draws_over_the_trajectorys_steps(bench):
    """A pick ranges where the truth does: over the trajectory's steps 1..n (its assistant messages).
    On an answered run n = T+1 (the answer after T actions), never a step after it; on a run cut off
    before answering n = T, where AgentDebug attributes the stop. The same range whether or not the
    record carries planprobe's metadata."""
    answered = [r for r in read_trajectories(bench / "b.jsonl") if r["messages"][-1]["role"] == "assistant"]
    assert len(answered) >= 5
    cut = [{**r, "messages": r["messages"][:-1]} for r in answered]  # the same runs, cut off before the answer
    for r, n in [(r, r["labels"]["steps"] + 1) for r in answered] + [(r, len(steps_of(r))) for r in cut]:
        bare = {**r, "metadata": {k: v for k, v in r["metadata"].items() if k != "steps"}}
        for record in (r, bare):
            drawn = {random_pick(record, seed).step for seed in range(40 * (n + 1))}
            assert drawn == set(range(1, n + 1)), (r["metadata"]["task_id"], n, sorted(drawn))
    for r in answered:
        assert r["critical_error"]["critical_step"] <= r["labels"]["steps"] + 1 == len(steps_of(r))


def _truth_steps(path):
    return [r["critical_error"]["critical_step"] for r in read_trajectories(path)]


def test_direct_detector_reads_the_models_json(bench):
    """The model always names step 1, action/invalid_action: the score must be exactly what that earns."""
    answer = ('Sure! ```json\n{"critical_step": 1, "critical_module": "action", "error_type": "invalid_action", '
              '"root_cause": "x", "correction_guidance": "y"}\n```')
    with ScriptedServer(lambda i, body, h: chat_reply(answer)) as srv:
        s = _scores(pp("detect", bench / "b.jsonl", "--detector", "direct", "--model", "openai:m", "--base-url",
                       srv.url, "--no-cache", "--json", "-q"))
        assert len(srv.requests) == s["n"] and "Trajectory:" in srv.requests[0]["messages"][0]["content"]
    records = list(read_trajectories(bench / "b.jsonl"))
    want = sum(r["critical_error"]["critical_step"] == 1 for r in records)
    want_all = sum(r["critical_error"]["critical_step"] == 1 and r["critical_error"]["critical_module"] == "action"
                   and r["critical_error"]["error_type"] == "invalid_action" for r in records)
    assert s["step"]["k"] == want and s["all_correct"]["k"] == want_all and s["answered"] == s["n"]


def test_replayed_detector_calls_are_counted_as_replayed_and_spend_no_tokens(bench, tmp_path):
    """A second run answered from the record/replay cache says so instead of reporting 0 tokens silently."""
    answer = '{"critical_step": 2, "critical_module": "plan", "error_type": "constraint_ignorance"}'
    args = ("detect", bench / "b.jsonl", "--detector", "direct", "--model", "openai:m", "--limit", 3, "--json", "-q")
    with ScriptedServer(lambda i, body, h: chat_reply(answer)) as srv:
        first = _scores(pp(*args, "--base-url", srv.url, XDG_CACHE_HOME=str(tmp_path)))
        second = _scores(pp(*args, "--base-url", srv.url, XDG_CACHE_HOME=str(tmp_path)))
        assert len(srv.requests) == 3  # the second run made no request
    assert first["replayed_calls"] == 0 and first["model_calls"] == 3 and first["tokens"] > 0
    assert second["replayed_calls"] == 3 and second["model_calls"] == 3 and second["tokens"] == 0
    assert second["step"] == first["step"]


def test_agentdebug_asks_every_module_of_every_step_then_the_critical_step(bench):
    def script(i, body, h):
        text = body["messages"][0]["content"]
        if "Part to check:" in text:
            return chat_reply('{"error_detected": true, "error_type": "format_error", "reasoning": "r"}'
                              if "Part to check: action" in text else '{"error_detected": false}')
        return chat_reply("I cannot tell.")  # stage 2 unreadable: counted, never guessed
    with ScriptedServer(script) as srv:
        s = _scores(pp("detect", bench / "b.jsonl", "--detector", "agentdebug", "--model", "openai:m", "--base-url",
                       srv.url, "--no-cache", "--limit", "3", "--json", "-q"))
        records = list(read_trajectories(bench / "b.jsonl"))[:3]
        assert len(srv.requests) == sum(4 * len(steps_of(r)) + 1 for r in records) == s["model_calls"]
        finals = [b["messages"][0]["content"] for b in srv.requests if "Part to check:" not in
                  b["messages"][0]["content"]]
        assert len(finals) == 3 and all("Error found: action/format_error" in f for f in finals)
    assert s["answered"] == 0 and s["step"]["rate"] == 0.0


@pytest.mark.parametrize("detector", ["brute-force", "binary-search"])
def test_search_baselines_find_the_first_unrecoverable_step(bench, tmp_path, detector):
    """The model says 'unrecoverable' from step 2 on: both searches must pick step 2; binary search in
    O(log T) questions, brute force in 2."""
    def script(i, body, h):
        upto = int(re.search(r"The first (\d+) steps", body["messages"][0]["content"]).group(1))
        return chat_reply(json.dumps({"recoverable": upto < 2}))
    with ScriptedServer(script) as srv:
        r = pp("detect", bench / "b.jsonl", "--detector", detector, "--model", "openai:m", "--base-url", srv.url,
               "--no-cache", "--limit", "4", "-o", tmp_path / "p.jsonl", "-q")
        assert r.returncode == 0, r.stderr
    rows = [json.loads(x) for x in (tmp_path / "p.jsonl").read_text().splitlines()]
    records = list(read_trajectories(bench / "b.jsonl"))[:4]
    for row, rec in zip(rows, records):
        t = len(steps_of(rec))  # a pick is one of the trajectory's steps: the last when none is judged lost
        assert row["pick"]["critical_step"] == min(2, t)
        if detector == "brute-force":
            assert row["pick"]["model_calls"] == min(2, t - 1)
        else:
            assert row["pick"]["model_calls"] <= (t - 1).bit_length()  # ceil(log2 t)


@pytest.mark.parametrize("detector", ["brute-force", "binary-search"])
def test_a_search_that_finds_no_lost_step_names_the_last_step_as_the_truth_does(tmp_path, detector):
    """A run that stopped at the limit: the truth is its last step (AgentDebug attributes the stop
    there), and a search that judges every step recoverable must pick that step, never one past it."""
    import asyncio

    from planprobe.debug.detectors import detect_one

    async def always_recoverable(prompt):
        return '{"recoverable": true}', 1

    run_suite(constraint_cases(3, seed=8), "oracle", tmp_path / "r", concurrency=1, limits=Limits(max_iterations=2))
    r = pp("errorbench", tmp_path / "r", "-o", tmp_path / "b.jsonl", "-q")
    assert r.returncode == 0, r.stderr
    stops = list(read_trajectories(tmp_path / "b.jsonl"))
    assert len(stops) == 3 and all(r["critical_error"]["error_type"] == "step_limit" for r in stops)
    for rec in stops:
        pick = asyncio.run(detect_one(detector, rec, 0, always_recoverable))
        assert pick.step == rec["critical_error"]["critical_step"] == len(steps_of(rec))


def test_model_replies_are_read_never_run():
    assert first_object('x {"a": 1} y {"b": 2}') == {"a": 1}
    assert first_object("__import__('os').system('echo hi')") is None
    assert "The first 0 steps" in probe_prompt({"messages": [{"role": "user", "content": "t"}]}, 0)


# -- repair ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def failing_run_made(tmp_path_factory):
    """The failing run, made once per module by the command line; each test gets its own copy."""
    root = tmp_path_factory.mktemp("failing")
    r = pp("generate", "constraints", "--actions", "3-4", "--n", "6", "--seed", "3", "-o", root / "s.jsonl")
    assert r.returncode == 0, r.stderr
    r = pp("run", root / "s.jsonl", "--agent", "python:repair_agent:agent", "--out", root / "r", "-q")
    assert r.returncode == 0, r.stderr
    shown = json.loads(pp("show", root / "r", "--json").stdout)
    assert shown["passed"] == 0  # every case fails: the agent breaks the order unless guided
    return root / "r"


@pytest.fixture()
def failing_run(failing_run_made, tmp_path):
    """A private copy of the failing run: what one test's debug writes into it no other test sees."""
    return Path(shutil.copytree(failing_run_made, tmp_path / "r"))


def _debug(run, detector, rounds=2, *extra, run_with=None, **env):
    r = (run_with or pp)("debug", run, "--detector", detector, "--max-rounds", rounds, "--json", "-q", *extra, **env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_repair_from_the_oracle_pick_fixes_every_case_and_restarts_do_not(failing_run):
    s = _debug(failing_run, "oracle")
    assert s["failed"] == 6 and s["rounds"][0]["fixed"] == 6 and s["paired"]["before_fail_after_pass"] == 6
    assert s["paired"]["mcnemar_p"] < 0.05
    rows = [json.loads(x) for x in (failing_run / "debug-oracle.jsonl").read_text().splitlines()]
    assert all(r["fixed_at"] == 1 and r["from_step"] == r["pick"]["critical_step"] - 1 for r in rows)
    assert all("error of type" in r["rounds"][0]["guidance"] and "Instead:" in r["rounds"][0]["guidance"]
               for r in rows)
    none = _debug(failing_run, "none", 3)
    assert none["fixed"] == 0 and len(none["rounds"]) == 3 and none["paired"]["mcnemar_p"] == 1.0


def test_replayed_repair_calls_are_counted_as_replayed_and_spend_no_tokens(tmp_path):
    """debug run twice against the same cache: the second makes no request and says its calls were replayed."""
    assert pp("generate", "constraints", "--n", "2", "--actions", "3", "--seed", "2", "-o",
              tmp_path / "s.jsonl").returncode == 0
    with ScriptedServer(lambda i, body, h: chat_reply("I am not sure what to do.")) as srv:
        model = ("--model", "openai:m", "--base-url", srv.url)
        r = pp("run", tmp_path / "s.jsonl", "--agent", "modular", *model, "--max-iterations", "2", "--no-cache",
               "--out", tmp_path / "r", "-q")
        assert r.returncode in (0, 1), r.stderr
        assert json.loads(pp("show", tmp_path / "r", "--json").stdout)["passed"] == 0  # no reply is a tool call
        asked = len(srv.requests)
        first = _debug(tmp_path / "r", "oracle", 1, *model, XDG_CACHE_HOME=str(tmp_path))
        made = len(srv.requests) - asked
        second = _debug(tmp_path / "r", "oracle", 1, *model, XDG_CACHE_HOME=str(tmp_path))
        assert len(srv.requests) == asked + made and made > 0  # the second debug run made no request
    assert first["rounds"][0]["replayed_calls"] == 0 and first["rounds"][0]["tokens"] == 12 * made
    assert second["rounds"][0]["replayed_calls"] == made and second["rounds"][0]["tokens"] == 0
    assert second["fixed"] == first["fixed"] == 0


def test_a_pick_after_the_mistake_cannot_repair_and_feedback_is_refined(failing_run):
    """random picks: fixed exactly when the kept prefix is still clean (pick <= E); failures refine."""
    s = _debug(failing_run, "random", 2, "--seed", "7")
    rows = [json.loads(x) for x in (failing_run / "debug-random.jsonl").read_text().splitlines()]
    labels = {json.loads(x)["case_id"]: json.loads(x) for x in
              subprocess.run(planprobe_cmd() + ["label", str(failing_run), "-o", "/dev/stdout", "-q"],
                             capture_output=True, text=True, env=subprocess_env()).stdout.splitlines()
              if x.startswith("{")}
    for r in rows:
        e = labels[r["case_id"]]["critical"]["step"]
        assert (r["fixed_at"] == 1) == (r["pick"]["critical_step"] <= e), (r, e)
        if r["fixed_at"] is None:
            assert len(r["rounds"]) == 2 and "Attempt 1 with this feedback still failed" in r["rounds"][1]["guidance"]
    assert s["fixed"] == sum(r["fixed_at"] is not None for r in rows)


def test_self_refine_restarts_with_the_failure_as_feedback(failing_run):
    s = _debug(failing_run, "self-refine", 1)
    rows = [json.loads(x) for x in (failing_run / "debug-self-refine.jsonl").read_text().splitlines()]
    assert all(r["from_step"] == 0 and "Your previous attempt" in r["rounds"][0]["guidance"] for r in rows)
    assert s["fixed"] == 6


def test_bad_input_is_one_line(bench, tmp_path):
    one_line_error(pp("detect", bench / "b.jsonl", "--detector", "psychic"), "unknown detector", "agentdebug",
                   "oracle")
    one_line_error(pp("detect", bench / "b.jsonl", "--detector", "direct"), "needs a model")
    one_line_error(pp("debug", bench / "c", "--detector", "psychic"), "unknown detector")
    one_line_error(pp("debug", bench / "c", "--detector", "oracle"), "cannot continue from a step")
    one_line_error(pp("debug", bench / "c", "--detector", "oracle", "--max-rounds", "0"), "--max-rounds")
    one_line_error(pp("debug", bench / "c", "--detector", "oracle", "--threads", "0"), "--threads")
    one_line_error(pp("detect", bench / "b.jsonl", "--detector", "oracle", "--ctx", "0"), "--ctx")
    run_suite(constraint_cases(2, seed=1), "oracle", tmp_path / "ok", concurrency=1)
    r = pp("debug", tmp_path / "ok", "--detector", "oracle")
    assert r.returncode == 0 and "all 2 results passed; nothing to debug" in r.stdout
    assert not list((tmp_path / "ok").glob("debug-*"))


def test_debug_refuses_a_family_without_labels(tmp_path):
    pytest.importorskip("planprobe.suites.travelplanner")
    from planprobe.debug.run_labels import no_labels_message

    msg = no_labels_message("RUN", {"travelplanner": 3})
    assert "formal labels exist for:" in msg and "constraints" in msg


def test_embedded_model_end_to_end(tmp_path):
    """The 135M model as agent and detector on a tiny run: weak, but every stage runs."""
    from llama_server import require_local_model

    require_local_model()
    assert pp("generate", "constraints", "--n", "1", "--actions", "3", "--seed", "2", "-o",
              tmp_path / "s.jsonl").returncode == 0
    r = pp_process("run", tmp_path / "s.jsonl", "--agent", "modular", "--model", "local", "--max-iterations", "2",
                   "--max-tokens", "64", "--timeout", "900", "--out", tmp_path / "r", "-q")
    assert r.returncode in (0, 1), r.stderr
    if r.returncode == 0:
        pytest.skip("the embedded model solved the case")
    assert pp("errorbench", tmp_path / "r", "-o", tmp_path / "b.jsonl", "-q").returncode == 0
    s = _scores(pp_process("detect", tmp_path / "b.jsonl", "--detector", "direct", "--model", "local",
                           "--max-tokens", "48", "--json", "-q"))
    assert s["n"] == 1 and s["model_calls"] == 1
    d = _debug(tmp_path / "r", "oracle", 1, "--model", "local", run_with=pp_process)
    assert d["failed"] == 1 and len(d["rounds"]) == 1


def test_timeline_html_marks_e_pnr_and_pick_and_escapes_everything(failing_run, tmp_path):
    from planprobe.debug.timeline_html import render

    bad = "<script>alert(1)</script>"
    page = render(bad, "oracle", [{"labels": {"case_id": bad, "steps": 3, "critical": {"step": 2, "module": bad,
                                                                                       "type": "t", "evidence": bad},
                                              "pnr": {"step": 3}, "labels": []},
                                   "repair": {"pick": {"critical_step": 2}, "from_step": 1, "rounds": [
                                       {"round": 1, "passed": False, "errors": [bad], "guidance": bad, "tokens": 5}]}}])
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert 'class="e pick"' in page and 'class="pnr"' in page
    r = pp("debug", failing_run, "--detector", "oracle", "--max-rounds", "1", "--html", tmp_path / "d.html", "-q")
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "d.html").read_text()
    assert text.count("<h2>") == 6 and "round 1" in text and "passed" in text
