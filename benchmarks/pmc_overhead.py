"""PMC against the single agents (tools, react) with one model on one suite: pass rate,
model calls and tokens per case, and PMC's usage per role (issue #15 figures).

    PYTHONPATH=src python benchmarks/pmc_overhead.py --n 4 --actions 2-3 --model local --out /tmp/pmc_bench
    PYTHONPATH=src python benchmarks/pmc_overhead.py --family travel --n 3 --model local --out /tmp/pmc_travel

Each agent runs the same suite through the CLI (``planprobe run``) into OUT/<agent>; the
table is read back from the run stores. With the embedded SmolLM2-135M the pass rates say
nothing about planning (it cannot plan); the call and token counts are what this measures.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from planprobe.runner.store import RunStore


def run(cmd: list[str]) -> None:
    subprocess.run([sys.executable, "-m", "planprobe", *cmd], check=True)


def summarise(run_dir: Path) -> dict:
    store = RunStore(run_dir)
    try:
        rows = list(store.results())
    finally:
        store.close()
    n = len(rows) or 1
    out = {"cases": len(rows), "passed": sum(v.passed for _, v in rows),
           "model_calls": sum(t.usage.model_calls for t, _ in rows) / n,
           "tokens": sum(t.usage.prompt_tokens + t.usage.completion_tokens for t, _ in rows) / n}
    roles: dict[str, dict[str, float]] = {}
    for t, _ in rows:
        for role, u in (t.meta.get("pmc") or {}).get("usage_by_role", {}).items():
            r = roles.setdefault(role, {"model_calls": 0.0, "tokens": 0.0})
            r["model_calls"] += u["model_calls"] / n
            r["tokens"] += (u["prompt_tokens"] + u["completion_tokens"]) / n
    if roles:
        out["by_role"] = roles
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument("--actions", default="2-3")
    ap.add_argument("--model", default="local")
    ap.add_argument("--max-tokens", default="96")
    ap.add_argument("--timeout", default="900")
    ap.add_argument("--max-iterations", default="6", help="per case, every agent (PMC: per executor)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/pmc_bench"))
    ap.add_argument("--agents", default="tools,react,pmc")
    ap.add_argument("--family", choices=("constraints", "travel"), default="constraints",
                    help="constraints: --actions actions per case; travel: easy 3-day trips, 1 city")
    args = ap.parse_args()
    suite = args.out / "suite.jsonl"
    args.out.mkdir(parents=True, exist_ok=True)
    if args.family == "travel":
        run(["generate", "travel", "--level", "easy", "--days", "3", "--n", str(args.n), "--seed", "1", "-o", str(suite),
             "-q"])
    else:
        run(["generate", "constraints", "--actions", args.actions, "--n", str(args.n), "--seed", "1", "-o",
             str(suite)])
    table = {}
    for agent in args.agents.split(","):
        run(["run", str(suite), "--agent", agent, "--model", args.model, "--max-tokens", args.max_tokens,
             "--max-iterations", args.max_iterations, "--timeout", args.timeout, "--out", str(args.out / agent), "-q"])
        table[agent] = summarise(args.out / agent)
    print(json.dumps(table, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
