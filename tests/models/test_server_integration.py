"""A real OpenAI-compatible server (llama.cpp's, with the embedded model) driven through
the HTTP backend by both agent strategies, from Python and from the command line."""

from __future__ import annotations

import json
import subprocess

from helpers import planprobe_cmd, subprocess_env
from planprobe import ConstraintSuiteOptions, Limits, generate_cases, run_suite
from planprobe.agents.react import ReactAgent
from planprobe.agents.tools_agent import ToolsAgent
from planprobe.models import ModelOptions, make_model
from planprobe.models.base import ChatParams
from planprobe.runner.store import RunStore
from planprobe.suites.io import write_suite

# The cases' time limit and the request deadline are out of reach: what these tests check must not
# depend on how fast a loaded machine answers (llama.cpp's server answers one request at a time).
LIMITS = Limits(max_iterations=6, timeout_s=10 ** 6)
UNREACHED = ["--timeout", "1000000", "--request-timeout", "100000"]


def small_suite(n):
    """Few cases: the model's work is what these tests cost, and one case (two for concurrency) checks the
    plumbing as well as more would."""
    return list(generate_cases(ConstraintSuiteOptions(actions=(2, 2), n=n, seed=4)))


def http_model(url, **kw):
    return make_model("openai:smollm2", ModelOptions(base_url=url, tool_result_role="user", cache=False,
                                                      request_timeout=100000, **kw))


def _check_run(out, cases, expect_calls=True):
    store = RunStore(out)
    results = list(store.results())
    assert len(results) == len(cases)
    for trace, verdict in results:
        assert trace.status.value in ("completed", "iteration_limit"), trace.errors
        assert not verdict.infra and verdict.checker == "constraints/1"
        assert trace.usage.model_calls >= 1 and trace.usage.prompt_tokens > 0
        if expect_calls:
            assert trace.tool_calls, "the function-calling agent should have called tools"
    return results


def test_tools_agent_over_http(llama_server, tmp_path):
    cases = small_suite(2)  # two cases at concurrency 2: two episodes share the server at once
    model = http_model(llama_server)
    summary = run_suite(cases, ToolsAgent(model, ChatParams(max_tokens=64)), tmp_path / "run", limits=LIMITS,
                        concurrency=2)
    assert summary.overall.cases == 2 and summary.infra == 0
    results = _check_run(tmp_path / "run", cases)
    # tool calls reached the mock tools with the model's own arguments
    assert all(c.name in {t.name for t in cases[0].tools} | {x.name for cs in cases for x in cs.tools}
               for tr, _ in results for c in tr.tool_calls)


def test_react_agent_over_http(llama_server, tmp_path):
    cases = small_suite(1)
    model = http_model(llama_server)
    run_suite(cases, ReactAgent(model, ChatParams(max_tokens=64)), tmp_path / "run", limits=LIMITS)
    results = _check_run(tmp_path / "run", cases, expect_calls=False)
    for trace, verdict in results:  # whatever it wrote was parsed or recorded as an Act Error, never a crash
        assert trace.messages[0].role == "user" and "Action Input" in trace.messages[0].content
        assert all(m.role in ("user", "assistant") for m in trace.messages)


def test_cli_run_against_the_server_and_record_replay(llama_server, tmp_path):
    suite = tmp_path / "suite.jsonl"
    write_suite(small_suite(1), suite)
    cache = tmp_path / "cache.sqlite"
    args = ["run", str(suite), "--model", "openai:smollm2", "--base-url", llama_server, "--agent", "tools",
            "--tool-results-as", "user", "--max-iterations", "5", "--max-tokens", "64", "--cache-path", str(cache),
            "-q", "--price-in", "1", "--price-out", "2", *UNREACHED]
    env = subprocess_env(OPENAI_API_KEY="sk-test-never-stored")
    first = subprocess.run(planprobe_cmd() + args + ["--out", str(tmp_path / "a")], capture_output=True, text=True,
                           env=env, timeout=600)
    assert first.returncode == 0, first.stderr
    second = subprocess.run(planprobe_cmd() + args + ["--out", str(tmp_path / "b")], capture_output=True, text=True,
                            env=env, timeout=600)
    assert second.returncode == 0, second.stderr
    a = json.loads(subprocess.run(planprobe_cmd() + ["show", str(tmp_path / "a"), "--json"], capture_output=True,
                                  text=True).stdout)
    b = json.loads(subprocess.run(planprobe_cmd() + ["show", str(tmp_path / "b"), "--json"], capture_output=True,
                                  text=True).stdout)
    assert a["usage"]["model_calls"] > 0 and a["usage"]["cost_usd"] > 0
    assert b["usage"]["model_calls"] == 0 and b["usage"]["cached_calls"] == a["usage"]["model_calls"]
    assert (a["passed"], a["errors"]) == (b["passed"], b["errors"])
    # the key is read from the environment and written nowhere
    for path in [tmp_path / "a" / "run.sqlite", cache]:
        assert b"sk-test-never-stored" not in path.read_bytes()
