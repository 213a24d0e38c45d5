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


def _one_line_error(done, *expected):
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and all(e in lines[0] for e in expected), done.stderr
    return lines[0]


def test_a_traces_file_that_is_not_utf8_names_its_line(tmp_path):
    cases = make_cases(n=1, seed=3, actions=(3, 3))
    suite = tmp_path / "suite.jsonl"
    write_suite(cases, suite)
    ok = json.dumps({"case_id": cases[0].id, "messages": [{"role": "user", "content": "x" * 3000}]})
    path = tmp_path / "t.jsonl"
    path.write_bytes((ok + "\n").encode() * 4 + b'{"case_id": "\xe9"}\n')  # line 5, in the text reader's chunk
    _one_line_error(_check(suite, path, "--out", tmp_path / "c"), f"{path}:5: not UTF-8")
    assert not (tmp_path / "c").exists()


def test_token_counts_must_be_whole_numbers_of_zero_or_more(tmp_path):
    cases = make_cases(n=1, seed=3, actions=(3, 3))
    suite = tmp_path / "suite.jsonl"
    write_suite(cases, suite)
    run_suite(cases, "oracle", tmp_path / "orig")
    trace = _results(tmp_path / "orig")[(cases[0].id, 0)][0]
    for i, bad in enumerate([-5, True, 2.5, "7"]):
        chat = to_chat(trace)
        chat["usage"]["prompt_tokens"] = bad
        planprobe = json.loads(trace.model_dump_json())
        planprobe["usage"]["completion_tokens"] = bad
        for kind, line, field in (("chat", chat, "usage.prompt_tokens"), ("trace", planprobe, "usage.completion_tokens")):
            path = tmp_path / f"{kind}{i}.jsonl"
            path.write_text(json.dumps(line) + "\n")
            _one_line_error(_check(suite, path, "--out", tmp_path / f"c-{kind}{i}"), f"{path}:1: {field}:",
                            json.dumps(bad))
    chat = to_chat(trace)
    chat["usage"] = {"prompt_tokens": 12.0, "completion_tokens": None}  # a whole float and a null are fine
    path = tmp_path / "fine.jsonl"
    path.write_text(json.dumps(chat) + "\n")
    assert _check(suite, path, "--out", tmp_path / "fine").returncode == 0
    ((got, _),) = _results(tmp_path / "fine").values()
    assert (got.usage.prompt_tokens, got.usage.completion_tokens) == (12, 0)


def test_uneven_trial_counts_are_refused_not_graded_as_crashes(tmp_path):
    """Two traces for one case and one for another: the missing trial is not the agent's failure."""
    cases = make_cases(n=2, seed=3, actions=(3, 3))
    suite = tmp_path / "suite.jsonl"
    write_suite(cases, suite)
    run_suite(cases, "oracle", tmp_path / "orig")
    got = _results(tmp_path / "orig")
    a, b = (json.dumps(to_chat(got[(c.id, 0)][0])) for c in cases)
    path = tmp_path / "t.jsonl"
    path.write_text(f"{a}\n{b}\n{a}\n")
    _one_line_error(_check(suite, path, "--out", tmp_path / "c"), f"{path}:2: case_id:", repr(cases[1].id),
                    "has 1 trace(s)", "needs the same number")
    assert not (tmp_path / "c").exists()
    path.write_text(f"{a}\n{b}\n{a}\n{b}\n")  # even: two trials each, all pass
    assert _check(suite, path, "--out", tmp_path / "c").returncode == 0
    assert all(v.passed for _, v in _results(tmp_path / "c").values()) and len(_results(tmp_path / "c")) == 4


def test_stored_infra_results_exit_3_as_run_does(tmp_path):
    from planprobe.schema import TraceError, TraceStatus

    cases = make_cases(n=2, seed=3, actions=(3, 3))
    suite = tmp_path / "suite.jsonl"
    write_suite(cases, suite)
    run_suite(cases, "oracle", tmp_path / "orig")
    got = _results(tmp_path / "orig")
    failed = got[(cases[1].id, 0)][0]
    failed.status = TraceStatus.INFRA_ERROR
    failed.errors = [TraceError(kind="infra", message="the model service went away")]
    path = tmp_path / "t.jsonl"
    path.write_text(got[(cases[0].id, 0)][0].model_dump_json() + "\n" + failed.model_dump_json() + "\n")
    done = _check(suite, path, "--out", tmp_path / "c")
    assert done.returncode == 3, done.stderr
    assert "1 result(s) failed for infrastructure reasons" in done.stderr
    assert "the model service went away" in done.stderr
    verdicts = {cid: v for (cid, _), (_, v) in _results(tmp_path / "c").items()}
    assert verdicts[cases[0].id].passed and verdicts[cases[1].id].infra
