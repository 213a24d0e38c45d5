"""Users plug in their own agent as a Python callable."""

import json
import subprocess
import textwrap

from helpers import planprobe_cmd, subprocess_env

AGENT = textwrap.dedent('''
    async def in_listed_order(case, env):
        for tool in env.tools:
            env.step()
            env.call(tool.name, "{}")
        return "done"

    def sync_agent(case, env):
        env.step()
        env.call(env.tools[0].name, "{}")
        return "gave up"
''')


def _run(tmp_path, agent):
    (tmp_path / "my_agent.py").write_text(AGENT)
    suite = tmp_path / "s.jsonl"
    subprocess.run(planprobe_cmd() + ["generate", "constraints", "--n", "20", "-o", str(suite)], check=True,
                   capture_output=True)
    r = subprocess.run(planprobe_cmd() + ["run", str(suite), "--agent", agent, "--out", str(tmp_path / agent[-8:]),
                                          "-q"], capture_output=True, text=True, env=subprocess_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = subprocess.run(planprobe_cmd() + ["show", str(tmp_path / agent[-8:]), "--json"], capture_output=True,
                         text=True)
    return json.loads(out.stdout)


def test_an_async_callable_from_a_file(tmp_path):
    data = _run(tmp_path, f"python:{tmp_path / 'my_agent.py'}:in_listed_order")
    assert data["cases"] == 20 and set(data["errors"]) <= {"order_error"}


def test_a_plain_function_works_too(tmp_path):
    data = _run(tmp_path, "python:my_agent.py:sync_agent")
    assert data["cases"] == 20 and data["errors"] == {"action_lost": 20}


def test_bad_adapter_specs_are_one_clear_line(tmp_path):
    for spec, message in [("python:nothing", "expected python:<module or file.py>:<function>"),
                          ("python:missing.py:f", "file not found"),
                          ("python:no_such_module_xyz:f", "cannot import")]:
        r = subprocess.run(planprobe_cmd() + ["run", "x.jsonl", "--agent", spec, "--out", "r"], capture_output=True,
                           text=True, cwd=tmp_path)
        assert r.returncode != 0 and message in r.stderr and "Traceback" not in r.stderr


def test_model_options_are_checked_before_anything_runs(tmp_path):
    for args, message in [(["--agent", "tools"], "needs a model"),
                          (["--agent", "oracle", "--model", "local"], "(and python:, langgraph: agents), not by --agent oracle"),
                          (["--model", "gpt-4"], "unknown model"),
                          (["--model", "openai:gpt-4o"], "no API key")]:
        (tmp_path / "s.jsonl").write_text("")
        subprocess.run(planprobe_cmd() + ["generate", "constraints", "--n", "2", "-o", str(tmp_path / "s.jsonl")],
                       check=True, capture_output=True)
        env = subprocess_env()
        env.pop("OPENAI_API_KEY", None)
        r = subprocess.run(planprobe_cmd() + ["run", str(tmp_path / "s.jsonl"), "--out", str(tmp_path / "r")] + args,
                           capture_output=True, text=True, env=env)
        assert r.returncode != 0 and message in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)
