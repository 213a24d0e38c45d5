"""``planprobe serve-model solver``: the solver as an OpenAI-compatible endpoint on loopback, used
through the OpenAI Python client and through LiteLLM, and from the command line (issue #27)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from solver_helpers import pddl_cases, run_cases

from helpers import solver_endpoint
from planprobe.models import ModelOptions, make_model

SRC = str(__import__("pathlib").Path(__file__).resolve().parents[2] / "src")


@pytest.fixture
def endpoint():
    with solver_endpoint() as url:
        yield url


def _request(case):
    return dict(model="solver", messages=[{"role": "user", "content": case.task}],
                tools=[{"type": "function", "function": t.model_dump()} for t in case.tools])


def test_the_openai_client_gets_the_first_step_as_a_tool_call(endpoint):
    openai = pytest.importorskip("openai")
    case = pddl_cases("blocksworld", n=1)[0]
    client = openai.OpenAI(base_url=endpoint, api_key="unused")
    reply = client.chat.completions.create(**_request(case))
    (call,) = reply.choices[0].message.tool_calls
    assert call.function.name in {t.name for t in case.tools}
    assert set(json.loads(call.function.arguments)) <= set(next(t for t in case.tools if t.name == call.function.name)
                                                          .parameters["properties"])
    assert reply.choices[0].finish_reason == "tool_calls" and reply.usage.prompt_tokens > 0
    streamed = list(client.chat.completions.create(**_request(case), stream=True))
    calls = [tc for chunk in streamed for tc in (chunk.choices[0].delta.tool_calls or []) if chunk.choices]
    assert [(c.function.name, c.function.arguments) for c in calls] == [(call.function.name, call.function.arguments)]
    assert [m.id for m in client.models.list()] == ["solver"]


@pytest.mark.parametrize("spec", ["openai:solver", "litellm:openai/solver"])
def test_agents_pass_every_case_through_the_endpoint(tmp_path, endpoint, monkeypatch, spec):
    if spec.startswith("litellm"):
        pytest.importorskip("litellm")
    monkeypatch.setenv("OPENAI_API_KEY", "unused")
    cases = pddl_cases("logistics", n=2, seed=3) + pddl_cases("blocksworld-mystery", n=2, seed=3)
    for agent in ("tools", "react"):
        model = make_model(spec, ModelOptions(base_url=endpoint, cache=False))
        verdicts, findings = run_cases(cases, agent, model, tmp_path / agent, concurrency=2)
        assert findings == [] and len(verdicts) == 4 and all(v.passed for v in verdicts.values()), (spec, agent)


def test_a_bad_request_is_a_400_not_a_crash(endpoint):
    import urllib.error
    import urllib.request

    req = urllib.request.Request(endpoint + "/chat/completions", data=b'{"messages": [{"role": "nobody"}]}',
                                 headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=30)
    assert err.value.code == 400


def test_serve_model_from_the_command_line(tmp_path):
    env = {**os.environ, "PYTHONPATH": SRC}  # this checkout's sources, wherever the test runs from
    proc = subprocess.Popen([sys.executable, "-m", "planprobe", "serve-model", "solver", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        import urllib.request

        with urllib.request.urlopen(url + "/models", timeout=30) as r:
            assert json.loads(r.read())["data"][0]["id"] == "solver"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    bad = subprocess.run([sys.executable, "-m", "planprobe", "serve-model", "gpt"], capture_output=True, text=True,
                         env=env)
    assert bad.returncode != 0 and "only 'solver'" in bad.stderr
