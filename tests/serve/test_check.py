"""`planprobe check`: traces recorded elsewhere are replayed into their cases' environments
and judged; the verdicts equal those of the original runs, whatever the recorded results
claim; unreadable lines are one FILE:LINE: field error; unknown tools are act errors."""

from __future__ import annotations

import json
import subprocess

from helpers import cases as make_cases
from helpers import planprobe_cmd, subprocess_env
from planprobe import run_suite
from planprobe.runner.store import RunStore
from planprobe.suites.io import write_suite

AGENTS = ["oracle", "random", "faulty:drop", "faulty:swap", "faulty:unknown-tool", "faulty:malformed-args",
          "faulty:duplicate"]


def _check(*args):
    return subprocess.run(planprobe_cmd() + ["check", *map(str, args), "-q"], capture_output=True, text=True,
                          env=subprocess_env(), timeout=600)


def _results(out):
    store = RunStore(out)
    try:
        return {(t.case_id, t.trial): (t, v) for t, v in store.results()}
    finally:
        store.close()


def to_chat(trace) -> dict:
    """A planprobe trace as an OpenAI chat conversation; every tool result is a lie."""
    messages = [{"role": "user", "content": "the task"}]
    for call in trace.tool_calls:
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{call.index}", "type": "function", "function": {"name": call.name, "arguments": call.arguments}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{call.index}", "content": "Success, all constraints met."})
    messages.append({"role": "assistant", "content": trace.final_answer or "done"})
    return {"case_id": trace.case_id, "messages": messages, "usage": {"prompt_tokens": 11, "completion_tokens": 4}}


def _recorded(tmp_path):
    cases = make_cases(n=4, seed=3, actions=(3, 4))
    suite = tmp_path / "suite.jsonl"
    write_suite(cases, suite)
    originals = []
    for i, agent in enumerate(AGENTS):
        run_suite(cases, agent, tmp_path / f"orig{i}")
        originals.append(_results(tmp_path / f"orig{i}"))
    return cases, suite, originals


def test_replayed_traces_get_the_original_verdicts_in_both_formats(tmp_path):
    _cases, suite, originals = _recorded(tmp_path)
    kinds = {}
    for fmt in ("planprobe", "openai"):
        for i, original in enumerate(originals):
            path = tmp_path / f"{fmt}{i}.jsonl"
            with open(path, "w") as f:
                f.writelines((trace.model_dump_json() if fmt == "planprobe" else json.dumps(to_chat(trace))) + "\n" for (_cid, _trial), (trace, _) in sorted(original.items()))
            done = _check(suite, path, "--out", tmp_path / f"check-{fmt}{i}")
            assert done.returncode == 0, done.stderr
            checked = _results(tmp_path / f"check-{fmt}{i}")
            assert set(checked) == set(original)
            for key, (trace, verdict) in checked.items():
                o_trace, o_verdict = original[key]
                assert (verdict.passed, verdict.errors) == (o_verdict.passed, o_verdict.errors), (AGENTS[i], key)
                # the results are the environment's, not the recorded ones
                assert [(c.name, c.result, c.error) for c in trace.tool_calls] == \
                    [(c.name, c.result, c.error) for c in o_trace.tool_calls]
                kinds.setdefault(AGENTS[i], set()).update(verdict.errors[:1] or ["pass"])
            if fmt == "openai":
                assert all(t.usage.prompt_tokens == 11 for t, _ in checked.values())
    # the agents cover passes and several failure classes, so equal verdicts mean something
    assert {"pass"} == kinds["oracle"] and "act_error" in kinds["faulty:unknown-tool"]
    assert len(set().union(*kinds.values())) >= 4


def test_unknown_tool_is_an_act_error_for_that_case_only(tmp_path):
    cases = make_cases(n=2, seed=3, actions=(3, 3))
    suite = tmp_path / "suite.jsonl"
    write_suite(cases, suite)
    run_suite(cases, "oracle", tmp_path / "orig")
    good = _results(tmp_path / "orig")[(cases[0].id, 0)][0]
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(to_chat(good)) + "\n" + json.dumps({"case_id": cases[1].id, "messages": [
        {"role": "assistant", "tool_calls": [{"id": "x", "type": "function",
                                              "function": {"name": "rm_rf", "arguments": {}}}]}]}) + "\n")
    done = _check(suite, path, "--out", tmp_path / "c")
    assert done.returncode == 0, done.stderr
    got = _results(tmp_path / "c")
    assert got[(cases[0].id, 0)][1].passed
    trace, verdict = got[(cases[1].id, 0)]
    assert not verdict.passed and verdict.errors[0] == "act_error" and trace.tool_calls[0].error == "unknown_tool"
    again = _check(suite, path, "--out", tmp_path / "c")  # resuming: nothing to do, same results
    assert again.returncode == 0 and _results(tmp_path / "c").keys() == got.keys()


def test_unreadable_lines_name_file_line_and_field(tmp_path):
    cases = make_cases(n=1, seed=3, actions=(3, 3))
    suite = tmp_path / "suite.jsonl"
    write_suite(cases, suite)
    cid = cases[0].id
    ok = json.dumps({"case_id": cid, "messages": []})
    bad = {
        "not json {": "not valid JSON",
        "[1, 2]": "expected a JSON object",
        json.dumps({"messages": []}): "case_id:",
        json.dumps({"case_id": "nope", "messages": []}): "case_id: no case 'nope'",
        json.dumps({"case_id": cid, "messages": {}}): "messages: expected a list",
        json.dumps({"case_id": cid, "messages": [{"role": "robot"}]}): "messages[0].role:",
        json.dumps({"case_id": cid, "messages": [{"role": "assistant", "tool_calls": [{"function": {}}]}]}):
            "messages[0].tool_calls[0].function.name:",
        json.dumps({"case_id": cid, "messages": [], "usage": 5}): "usage:",
        json.dumps({"case_id": cid, "agent": "x", "messages": [], "tool_calls": [{"name": "a"}]}):
            "field 'tool_calls.0.index'",
    }
    for i, (line, expected) in enumerate(bad.items()):
        path = tmp_path / f"bad{i}.jsonl"
        path.write_text(ok + "\n\n" + line + "\n")
        done = _check(suite, path, "--out", tmp_path / f"out{i}")
        assert done.returncode == 2, (line, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and f"{path}:3: " in lines[0] and expected in lines[0], (line, lines)
        assert not (tmp_path / f"out{i}").exists()  # nothing graded, nothing half-written
