"""One suite, one model, run five ways — planprobe's ``tools`` agent, the same agent as an external
MCP client of ``planprobe serve`` (its model calls through the recording proxy), LangGraph's prebuilt
ReAct agent (``--agent langgraph:…``), the ``tools`` agent on ``--model litellm:…`` and the exported
Inspect task under ``inspect eval`` (graded by ``import inspect``) — and the verdicts side by side.

``--model-server scripted`` (the default): a scripted OpenAI-compatible server on loopback
(tests/http_faults.py) answers each case with a plan: the reference plan for half the cases, the
same calls shuffled for the other half, so some verdicts fail. Same replies in, so every way must
give the same verdict per case.

``--model-server llama``: llama.cpp's OpenAI-compatible server with the embedded SmolLM2-135M on
loopback (started here, stopped by PID; temperature 0, seed 0, ``--max-tokens`` per reply and
``--max-iterations`` per case). A real model: each framework sends its own prompt, so the ways
are compared by pass count and failure classes, not case by case.

    PYTHONPATH=src python benchmarks/integrations_side_by_side.py --n 20 --seed 5
    PYTHONPATH=src python benchmarks/integrations_side_by_side.py --model-server llama --n 4 --actions 3
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "integrations")]
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from planprobe.environment import Limits  # after the path set-up above
from planprobe.models.base import ChatParams

WAYS = ("tools", "mcp", "langgraph", "litellm", "inspect")
UNBOUNDED_S = 10.0 ** 6
# way -> case id -> (passed, error classes, model calls)
Verdicts = dict[str, tuple[bool, tuple[str, ...], int]]


@dataclass(frozen=True)
class Setup:
    """The one model every way is driven by, and the limits they share."""

    url: str  # the model server's base URL (…/v1)
    model: str = "scripted"  # the model name sent to it
    params: ChatParams = field(default_factory=lambda: ChatParams(seed=0))
    limits: Limits = field(default_factory=lambda: Limits(timeout_s=UNBOUNDED_S))
    tool_results_as: str = "tool"  # "user" for llama.cpp's chatml-function-calling (it drops role tool)
    message_limit: int | None = None  # Inspect's limit standing for max_iterations (None: unbounded)


class MixedScript:
    """Reference plans for even-indexed cases, shuffled plans for the others."""

    def __init__(self, cases):
        from plan_script import PlanScript

        self.good = PlanScript(cases[0::2], "reference")
        self.bad = PlanScript(cases[1::2], "shuffled")

    def __call__(self, index, body, headers):
        first = next((m.get("content") for m in body.get("messages", []) if m.get("role") == "user"), None)
        return (self.good if first in self.good.plans else self.bad)(index, body, headers)


def subprocess_env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests" / "integrations"),
                                                        os.environ.get("PYTHONPATH", "")]))


def stored(out: Path) -> Verdicts:
    from planprobe.runner.store import RunStore

    return {t.case_id: (v.passed, tuple(v.errors), t.usage.model_calls) for t, v in RunStore(out).results()}


def _model(spec: str, setup: Setup, base_url: str):
    from planprobe.models import ModelOptions, make_model

    return make_model(spec, ModelOptions(base_url=base_url, cache=False, request_timeout=UNBOUNDED_S,
                                         tool_result_role=setup.tool_results_as))


def planprobe_way(way: str, cases, out: Path, setup: Setup) -> Verdicts:
    """tools, langgraph or litellm: an agent of planprobe's run engine."""
    from planprobe.agents import make_agent
    from planprobe.runner.engine import RunConfig
    from planprobe.runner.suite_run import run_suite

    agent_spec, prefix = {"tools": ("tools", "openai:"), "langgraph": ("langgraph:lg_agents:react", "openai:"),
                          "litellm": ("tools", "litellm:openai/")}[way]
    model = _model(prefix + setup.model, setup, setup.url)
    agent = make_agent(agent_spec, 0, model=model, params=setup.params)
    config = RunConfig(agent=agent_spec, concurrency=1, limits=setup.limits, seed=0)
    run_suite(out, cases, agent, config, aclose=model.aclose)  # the model's client closed on the run's loop
    return stored(out)


def mcp_way(suite: Path, out: Path, setup: Setup) -> Verdicts:
    """``planprobe serve`` (a subprocess) with the recording proxy before the model server; the
    ``tools`` agent as an external MCP client (the SDK's client) sends its model calls through the
    proxy, so the served case counts them as iterations, as the run engine does for ``tools``."""
    from llama_server import stop
    from planprobe.agents.tools_agent import ToolsAgent
    from planprobe.serve.client import run_mcp_client

    proc = subprocess.Popen([sys.executable, "-m", "planprobe", "serve", str(suite), "--out", str(out), "-q",
                             "--proxy-upstream", setup.url, "--max-iterations", str(setup.limits.max_iterations),
                             "--timeout", str(setup.limits.timeout_s)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=subprocess_env())
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if "model calls: " not in line:
            raise RuntimeError(f"planprobe serve did not start: {line.strip()} {proc.stderr.read() if proc.stderr else ''}")
        endpoint = line.split(": ", 1)[1].split()[0]
        proxy = line.rsplit("model calls: ", 1)[1].strip()
        model = _model("openai:" + setup.model, setup, proxy)
        # the served case enforces the iteration limit (its proxy refuses the call past it); the
        # client's own limit must not come first
        client_limits = Limits(max_iterations=10 ** 6, timeout_s=UNBOUNDED_S)
        asyncio.run(run_mcp_client(endpoint, ToolsAgent(model, setup.params), limits=client_limits,
                                   close_model=model.aclose))
        proc.wait(timeout=600)
    finally:
        stop(proc)
    return stored(out)


def inspect_way(suite: Path, tmp: Path, setup: Setup) -> Verdicts:
    """The exported task under ``inspect eval`` (Inspect's openai-api provider on the same server),
    its log graded by ``planprobe import inspect``."""
    env = subprocess_env()
    task = tmp / "task"
    limit = ["--message-limit", str(setup.message_limit)] if setup.message_limit else []
    subprocess.run([sys.executable, "-m", "planprobe", "export", "inspect", str(suite), "-o", str(task), *limit],
                   check=True, env=env, capture_output=True)
    sampling = ["--temperature", str(setup.params.temperature), "--max-tokens", str(setup.params.max_tokens),
                "--max-connections", "1"] + (["--seed", str(setup.params.seed)] if setup.params.seed is not None else [])
    subprocess.run([sys.executable, "-m", "inspect_ai", "eval", "planprobe_task.py", "--model",
                    f"openai-api/local/{setup.model}", "--log-format", "json", "--log-dir", str(tmp / "logs"),
                    "--display", "none", *sampling], cwd=task, check=True, capture_output=True,
                   env=dict(env, LOCAL_BASE_URL=setup.url, LOCAL_API_KEY="none"))
    (log,) = (tmp / "logs").glob("*.json")
    proc = subprocess.run([sys.executable, "-m", "planprobe", "import", "inspect", str(log), "--suite", str(suite),
                           "--out", str(tmp / "inspect")], env=env, capture_output=True, text=True, check=False)
    if proc.returncode not in (0, 3):  # 3: some sample was infrastructure, still stored
        raise RuntimeError(f"planprobe import inspect failed: {proc.stderr.strip()}")
    return stored(tmp / "inspect")


def run_ways(cases, tmp: Path, setup: Setup, ways: tuple[str, ...] = WAYS) -> dict[str, Verdicts]:
    """Every way on the same cases and model; their verdicts by case."""
    from planprobe.suites.io import write_suite

    suite = tmp / "suite.jsonl"
    write_suite(cases, suite)
    verdicts: dict[str, Verdicts] = {}
    for way in ways:
        t0 = time.monotonic()
        if way == "mcp":
            verdicts[way] = mcp_way(suite, tmp / way, setup)
        elif way == "inspect":
            verdicts[way] = inspect_way(suite, tmp, setup)
        else:
            verdicts[way] = planprobe_way(way, cases, tmp / way, setup)
        print(f"{way}: {len(verdicts[way])} cases in {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
    return verdicts


def table(verdicts: dict[str, Verdicts]) -> list[str]:
    """The Markdown table: per way, passes, failures by their first class, model calls, and how
    many cases got the same verdict (pass and classes) as ``tools``."""
    base = verdicts.get("tools", {})
    lines = ["| way | cases | passed | failures by class | model calls | same verdict as `tools` |",
             "|---|---|---|---|---|---|"]
    for way, got in verdicts.items():
        classes: dict[str, int] = {}
        for passed, errors, _ in got.values():
            if not passed and errors:
                classes[errors[0]] = classes.get(errors[0], 0) + 1
        same = sum(c in base and got[c][:2] == base[c][:2] for c in got)
        lines.append(f"| {way} | {len(got)} | {sum(p for p, _, _ in got.values())} | "
                     f"{', '.join(f'{k} {v}' for k, v in sorted(classes.items())) or '-'} | "
                     f"{sum(m for _, _, m in got.values())} | {same}/{len(got)} |")
    return lines


@contextlib.contextmanager
def model_server(kind: str, cases, tmp: Path) -> Iterator[str]:
    """The base URL of the model every way uses: the scripted server or llama.cpp's."""
    if kind == "scripted":
        from http_faults import ScriptedServer

        with ScriptedServer(MixedScript(cases)) as server:
            yield server.url
        return
    from llama_server import require_local_model, running_llama_server

    (tmp / "llama").mkdir()
    with running_llama_server(require_local_model(), tmp / "llama") as url:
        yield url


def main() -> None:
    from planprobe.suites.constraints.generator import (
        ConstraintSuiteOptions,
        generate_cases,
    )

    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--actions", default=None, help="MIN-MAX or N (default 3-5 scripted, 3 llama)")
    ap.add_argument("--model-server", choices=("scripted", "llama"), default="scripted")
    ap.add_argument("--max-tokens", type=int, default=96, help="per reply, llama only")
    ap.add_argument("--max-iterations", type=int, default=4, help="per case, llama only")
    ap.add_argument("--ways", default=",".join(WAYS), help="comma-separated subset of " + ",".join(WAYS))
    args = ap.parse_args()
    ways = tuple(w for w in args.ways.split(",") if w)
    unknown = [w for w in ways if w not in WAYS]
    if unknown:
        ap.error(f"--ways: unknown way {unknown[0]!r} (one of {', '.join(WAYS)})")
    actions = args.actions or ("3-5" if args.model_server == "scripted" else "3")
    lo, _, hi = actions.partition("-")
    cases = list(generate_cases(ConstraintSuiteOptions(actions=(int(lo), int(hi or lo)), n=args.n, seed=args.seed)))
    tmp = Path(tempfile.mkdtemp(prefix="pp-sbs-"))
    with model_server(args.model_server, cases, tmp) as url:
        if args.model_server == "scripted":
            setup = Setup(url=url)
        else:
            # Inspect counts messages: system + task, then an assistant turn and its tool result per iteration
            setup = Setup(url=url, model="smollm2",
                          params=ChatParams(seed=0, temperature=0.0, max_tokens=args.max_tokens),
                          limits=Limits(max_iterations=args.max_iterations, timeout_s=UNBOUNDED_S),
                          tool_results_as="user", message_limit=2 + 2 * args.max_iterations)
        verdicts = run_ways(cases, tmp, setup, ways)
    print("\n".join(table(verdicts)))
    print(f"(runs kept in {tmp})", file=sys.stderr)


if __name__ == "__main__":
    main()
