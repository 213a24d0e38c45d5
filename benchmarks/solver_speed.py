"""``--model solver`` on PDDL agent tasks and constraint cases: pass rate, answer time per call, run
time vs the random agent (the issue #27 speed target: median answer time per call <= 5 ms).

    PYTHONPATH=src python benchmarks/solver_speed.py [--n 50] [--families pddl,constraints]
        [--agents tools,react,modular,pmc]

For each PDDL variant (plain and obfuscated, English and PDDL texts; robustness variants and the
planning protocols over Blocksworld and Logistics) and each constraint sample (basic, extended, the
paper's style; robustness variants and protocols) ``--n`` cases (seed 1) are run with each agent on the
solver, one case at a time (so each call's time is its own), and with the ``random`` agent (no model)
in the same sitting as the peer. Figures: pass rate; the solver's answer time per chat call (median,
95th percentile, max; the PDDL reader's memo is cleared before each run, so a case's first call reads
the text and plans, later calls of the same text replay the memoised plan); each run's wall time; the
median per family.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine

from planprobe.agents import make_agent
from planprobe.runner.engine import RunConfig
from planprobe.runner.suite_run import run_suite
from planprobe.solver.backend import SolverModel
from planprobe.solver.pddl_reader import READER
from planprobe.suites.constraints.generator import ConstraintSuiteOptions
from planprobe.suites.constraints.generator import generate_cases as constraint_cases
from planprobe.suites.pddl_agent import PDDLSuiteOptions, generate_cases
from planprobe.suites.protocols.wrap import wrap
from planprobe.suites.robust.transforms import parse_transforms, robustify

VARIANTS = {
    "blocksworld": dict(domain="blocksworld"),
    "blocksworld mystery": dict(domain="blocksworld", obfuscate="mystery"),
    "blocksworld random": dict(domain="blocksworld", obfuscate="random"),
    "blocksworld pddl text": dict(domain="blocksworld", language="pddl"),
    "logistics": dict(domain="logistics"),
    "logistics mystery": dict(domain="logistics", obfuscate="mystery"),
    "logistics random": dict(domain="logistics", obfuscate="random"),
}
# over half Blocksworld, half Logistics cases: (robustness transforms, protocol)
WRAPPED = {
    "unsolvable (3 kinds) + controls": (["unsolvable"], None),
    "broken tool": (["broken"], None),
    "extraneous:2": (["extraneous:2"], None),
    "cost": (["cost"], None),
    "holistic protocol": ([], "holistic"),
    "step-wise protocol": ([], "stepwise"),
}


CONSTRAINTS = {
    "constraints basic": dict(actions=(2, 8)),
    "constraints extended": dict(actions=(2, 6), extended=True),
    "constraints paper": dict(actions=(2, 8), style="paper"),
}


def _wrapped(n: int, transforms: list[str], protocol: str | None, family: str = "pddl"):
    if family == "pddl":
        cases = [c for d in ("blocksworld", "logistics")
                 for c in generate_cases(PDDLSuiteOptions(domain=d, n=n // 2, seed=1))]
    else:
        cases = [c for ext in (False, True)
                 for c in constraint_cases(ConstraintSuiteOptions(actions=(2, 6), extended=ext, n=n // 2, seed=1))]
    if transforms:
        cases = [robustify(c, parse_transforms(transforms), seed=1) for c in cases]
    return [wrap(c, protocol, 1, seed=1) for c in cases] if protocol else cases


class TimedSolver(SolverModel):
    def __init__(self) -> None:
        self.times: list[float] = []

    async def chat(self, messages, tools, params):
        t0 = time.perf_counter()
        result = await super().chat(messages, tools, params)
        self.times.append(time.perf_counter() - t0)
        return result


def _run(cases, agent_name: str, model=None) -> tuple[int, float]:
    READER.forget()  # each run reads and plans from a cold start
    passed = []
    with tempfile.TemporaryDirectory() as tmp:
        agent = make_agent(agent_name, model=model) if model is not None else make_agent(agent_name)
        t0 = time.perf_counter()
        run_suite(Path(tmp) / "run", cases, agent, RunConfig(agent=agent_name, model="solver" if model else None,
                                                             concurrency=1),
                  on_result=lambda trace, verdict: passed.append(verdict.passed))
        return sum(passed), time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--families", default="pddl,constraints")
    ap.add_argument("--agents", default="tools,react,modular,pmc")
    args = ap.parse_args()
    families, agents = args.families.split(","), args.agents.split(",")
    print(f"{machine()}; {args.n} cases per variant, seed 1, one case at a time\n")
    print("| variant | agent | passed | calls | median ms/call | p95 | max | run s | random agent run s |")
    print("|---|---|---|---|---|---|---|---|---|")
    times: dict[str, list[float]] = {f: [] for f in families}
    suites = []
    if "pddl" in families:
        suites += [("pddl", label, list(generate_cases(PDDLSuiteOptions(n=args.n, seed=1, **opts))))  # type: ignore[arg-type]
                   for label, opts in VARIANTS.items()]
        suites += [("pddl", label, _wrapped(args.n, t, p)) for label, (t, p) in WRAPPED.items()]
    if "constraints" in families:
        suites += [("constraints", label, list(constraint_cases(ConstraintSuiteOptions(n=args.n, seed=1, **opts))))
                   for label, opts in CONSTRAINTS.items()]
        suites += [("constraints", f"constraints {label}", _wrapped(args.n, t, p, "constraints"))
                   for label, (t, p) in WRAPPED.items()]
    for family, label, cases in suites:
        _, random_s = _run(cases, "random")
        for agent in agents:
            if agent == "pmc" and not cases[0].tools:
                continue  # PMC runs only on cases with tools (not on the protocols)
            model = TimedSolver()
            passed, run_s = _run(cases, agent, model)
            t = sorted(model.times)
            times[family] += t
            p95 = t[min(len(t) - 1, int(0.95 * len(t)))]
            print(f"| {label} | {agent} | {passed}/{len(cases)} | {len(t)} | {1000 * statistics.median(t):.2f} | "
                  f"{1000 * p95:.2f} | {1000 * t[-1]:.1f} | {run_s:.2f} | {random_s:.2f} |", flush=True)
    for family, t in times.items():
        if t:
            slow = ", ".join(f"{1000 * x:.0f}" for x in sorted(t)[-5:])
            print(f"\n{family}: {len(t)} calls, median {1000 * statistics.median(t):.2f} ms; slowest (ms): {slow}")


if __name__ == "__main__":
    main()
