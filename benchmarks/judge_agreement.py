"""How far to trust the LLM judge: judge vs exact oracle on formal cases.

    python benchmarks/judge_agreement.py [--out DIR] [--n 200] [--samples 3] [--format tool]
                                         [--control 0]

1. generates N constraint cases (2-4 actions, seed 0);
2. runs the function-calling agent with the embedded SmolLM2-135M on them
   (temperature 0, at most 16 iterations per case);
3. judges every trace with the embedded model as judge (APB rubric, N samples)
   and compares the judge's pass/fail with the exact oracle's: confusion matrix,
   agreement, Cohen's kappa.

With ``--control K`` the first K cases are also run by reference agents (the
solver's plan on even cases, a plan with one injected fault on odd ones) and
judged the same way: a control set where about half the traces are correct,
so the judge has something to agree on.

On a machine whose cores other jobs share, pass ``--threads 1``: two llama.cpp
processes with two threads each on two cores spin against each other.

Every phase is resumable: the run store and ``judge.jsonl`` live in ``--out``;
model calls are cached. Re-running the script after it finished prints the
figure again in seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine

from planprobe import ConstraintSuiteOptions, Limits, generate_cases
from planprobe.agents.reference import FaultyAgent, OracleAgent
from planprobe.agents.tools_agent import ToolsAgent
from planprobe.llm_judge.judge import JudgeConfig
from planprobe.llm_judge.report import calibration, summarize_rows
from planprobe.llm_judge.run import judge_run_async
from planprobe.models import ModelOptions, make_model
from planprobe.models.base import ChatParams
from planprobe.runner.engine import RunConfig, open_run, run_pending
from planprobe.runner.store import RunStore

FAULTS = ("swap", "drop", "duplicate", "unknown-tool")


class ControlAgent:
    """The solver's plan on even-numbered cases, one injected fault on odd ones."""

    name = "control"

    def __init__(self, cases):
        self.index = {c.id: k for k, c in enumerate(cases)}

    async def __call__(self, case, env):
        k = self.index[case.id]
        agent = OracleAgent() if k % 2 == 0 else FaultyAgent(FAULTS[(k // 2) % len(FAULTS)], seed=k)
        return await agent(case, env)


def phase(title: str) -> float:
    print(f"== {title}", flush=True)
    return time.perf_counter()


async def main_async(args) -> dict:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cases = list(generate_cases(ConstraintSuiteOptions(n=args.n, seed=0, actions=(2, 4))))
    model = make_model("local", ModelOptions(threads=args.threads))
    figures: dict = {"machine": machine(), "cases": len(cases), "judge_model": model.name, "samples": args.samples,
                     "format": args.format}
    try:
        t0 = phase(f"run: tools agent + {model.name} on {len(cases)} cases")
        params = ChatParams(temperature=0.0, seed=0, max_tokens=512)
        config = RunConfig(agent="tools", model=model.name, concurrency=1,
                           limits=Limits(max_iterations=args.max_iterations, timeout_s=180.0), seed=0,
                           model_params=f"temperature={params.temperature},max_tokens={params.max_tokens}")
        store = open_run(out / "run", cases, config, suite_name="judge_agreement")
        done = [0]

        def progress(trace, verdict):
            done[0] += 1
            if done[0] % 10 == 0:
                print(f"  {done[0]} more cases run", flush=True)

        ran = await run_pending(store, ToolsAgent(model, params), config, progress)
        store.close()
        figures["run_s"] = round(time.perf_counter() - t0, 1) if ran else None

        runs = [("agent", out / "run")]
        if args.control:
            control_cases = cases[: args.control]
            ctrl_config = RunConfig(agent="control", concurrency=1, seed=0)
            store = open_run(out / "control", control_cases, ctrl_config, suite_name="judge_agreement_control")
            await run_pending(store, ControlAgent(control_cases), ctrl_config)
            store.close()
            runs.append(("control", out / "control"))

        judge_config = JudgeConfig(samples=args.samples, reply_format=args.format, max_tokens=args.judge_max_tokens)
        for label, run_dir in runs:
            t0 = phase(f"judge: {label} traces, {args.samples} samples each, format {args.format}")
            counter = [0]

            def on_row(row, counter=counter):
                counter[0] += 1
                if counter[0] % 10 == 0:
                    print(f"  {counter[0]} more traces judged", flush=True)

            rows = await judge_run_async(run_dir, model, judge_config, calibrate=True, on_row=on_row)
            store = RunStore(run_dir)
            infra = sum(r.infra for r in store.rows())
            store.close()
            figures[label] = {"judge_s": round(time.perf_counter() - t0, 1) if counter[0] else None,
                              "infra_skipped": infra, "summary": summarize_rows(rows),
                              "calibration": calibration(rows)}
    finally:
        await model.aclose()
    return figures


def report(figures: dict) -> None:
    print(f"\nmachine: {figures['machine']}")
    print(f"judge: {figures['judge_model']}, {figures['samples']} samples, format {figures['format']}, "
          f"threshold 1.0 (median grade)")
    for label in ("agent", "control"):
        if label not in figures:
            continue
        f = figures[label]
        cal, s = f["calibration"], f["summary"]
        c = cal["confusion"]
        kappa = "undefined" if cal["cohen_kappa"] is None else f"{cal['cohen_kappa']:.3f}"
        print(f"\n[{label}] {cal['cases']} formal cases (judging took {f['judge_s']} s)")
        print(f"  oracle passes {100 * cal['oracle_pass_rate']:.1f}%, judge passes {100 * cal['judge_pass_rate']:.1f}%")
        print("                oracle pass  oracle fail")
        print(f"  judge pass   {c['judge_pass_oracle_pass']:>11}  {c['judge_pass_oracle_fail']:>11}")
        print(f"  judge fail   {c['judge_fail_oracle_pass']:>11}  {c['judge_fail_oracle_fail']:>11}")
        print(f"  agreement {100 * cal['agreement']:.1f}%, Cohen's kappa {kappa}")
        ag = s["sample_agreement"]
        print(f"  samples: {s['samples']}; unparseable traces {s['unparseable_traces']}; "
              f"sample agreement mean {ag['mean']}, unanimous {ag['unanimous']}, Fleiss kappa {ag['fleiss_kappa']}")
        print(f"  mean judge score: oracle pass {cal['mean_score']['oracle_pass']}, "
              f"oracle fail {cal['mean_score']['oracle_fail']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="/tmp/planprobe-judge-agreement")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--samples", type=int, default=3)
    ap.add_argument("--format", choices=("json", "tool"), default="tool")
    ap.add_argument("--judge-max-tokens", type=int, default=256)
    ap.add_argument("--max-iterations", type=int, default=16)
    ap.add_argument("--control", type=int, default=0)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()
    figures = asyncio.run(main_async(args))
    report(figures)
    (Path(args.out) / f"figures-{args.format}.json").write_text(json.dumps(figures, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
