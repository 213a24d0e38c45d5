"""One suite, one model, run four ways — planprobe's ``tools`` agent, LangGraph's prebuilt ReAct
agent (``--agent langgraph:…``), the ``tools`` agent on ``--model litellm:…`` and the exported
Inspect task under ``inspect eval`` (graded by ``import inspect``) — and the verdicts side by side.

The model is a scripted OpenAI-compatible server on loopback (tests/http_faults.py) answering each
case with a plan: the reference plan for half the cases, the same calls shuffled for the other
half, so some verdicts fail. Same replies in, so every way must give the same verdict per case.

    PYTHONPATH=src python benchmarks/integrations_side_by_side.py --n 20 --seed 5
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "integrations")]
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


class MixedScript:
    """Reference plans for even-indexed cases, shuffled plans for the others."""

    def __init__(self, cases):
        from plan_script import PlanScript

        self.good = PlanScript(cases[0::2], "reference")
        self.bad = PlanScript(cases[1::2], "shuffled")

    def __call__(self, index, body, headers):
        first = next((m.get("content") for m in body.get("messages", []) if m.get("role") == "user"), None)
        return (self.good if first in self.good.plans else self.bad)(index, body, headers)


def main() -> None:
    from http_faults import ScriptedServer

    from planprobe.api import run_suite
    from planprobe.agents import make_agent
    from planprobe.models import ModelOptions, make_model
    from planprobe.models.base import ChatParams
    from planprobe.runner.store import RunStore
    from planprobe.suites.constraints.generator import ConstraintSuiteOptions, generate_cases
    from planprobe.suites.io import write_suite

    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    cases = list(generate_cases(ConstraintSuiteOptions(actions=(3, 5), n=args.n, seed=args.seed)))
    tmp = Path(tempfile.mkdtemp(prefix="pp-sbs-"))
    suite = tmp / "suite.jsonl"
    write_suite(cases, suite)
    verdicts: dict[str, dict[str, tuple[bool, tuple[str, ...]]]] = {}
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests" / "integrations"),
                                                       os.environ.get("PYTHONPATH", "")]))
    with ScriptedServer(MixedScript(cases)) as server:
        for way, agent_spec, model_spec in [("tools", "tools", "openai:scripted"),
                                            ("langgraph", "langgraph:lg_agents:react", "openai:scripted"),
                                            ("litellm", "tools", "litellm:openai/scripted")]:
            model = make_model(model_spec, ModelOptions(base_url=server.url, cache=False))
            agent = make_agent(agent_spec, 0, model=model, params=ChatParams(seed=0))
            run_suite(cases, agent, tmp / way, concurrency=1)
            verdicts[way] = {t.case_id: (v.passed, tuple(v.errors)) for t, v in RunStore(tmp / way).results()}
        task = tmp / "task"
        subprocess.run([sys.executable, "-m", "planprobe", "export", "inspect", str(suite), "-o", str(task)],
                       check=True, env=env, capture_output=True)
        subprocess.run([sys.executable, "-m", "inspect_ai", "eval", "planprobe_task.py", "--model",
                        "openai-api/local/scripted", "--log-format", "json", "--log-dir", str(tmp / "logs"),
                        "--display", "none"], cwd=task, check=True, capture_output=True,
                       env=dict(env, LOCAL_BASE_URL=server.url, LOCAL_API_KEY="none"))
    log, = (tmp / "logs").glob("*.json")
    subprocess.run([sys.executable, "-m", "planprobe", "import", "inspect", str(log), "--suite", str(suite), "--out",
                    str(tmp / "inspect")], check=True, env=env, capture_output=True)
    verdicts["inspect"] = {t.case_id: (v.passed, tuple(v.errors)) for t, v in RunStore(tmp / "inspect").results()}
    ways = list(verdicts)
    print("| way | cases | passed | failures by class | same verdict as `tools` |")
    print("|---|---|---|---|---|")
    for way in ways:
        got = verdicts[way]
        classes: dict[str, int] = {}
        for passed, errors in got.values():
            if not passed and errors:
                classes[errors[0]] = classes.get(errors[0], 0) + 1
        same = sum(got[c] == verdicts["tools"][c] for c in got)
        print(f"| {way} | {len(got)} | {sum(p for p, _ in got.values())} | "
              f"{', '.join(f'{k} {v}' for k, v in sorted(classes.items())) or '-'} | {same}/{len(got)} |")


if __name__ == "__main__":
    main()
