"""Oracle throughput: verdicts per second on recorded traces.

    python benchmarks/oracle_throughput.py [--cases 5000]

Traces are recorded first (reference agents: a mix of valid plans, random plans
and injected faults), then checked repeatedly. "in memory" checks Trace objects
(as the runner does); "from JSON" includes parsing each stored trace. Each case
is compiled on first use and the compiled form is reused, as in a run.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, repeat  # noqa: E402

from planprobe.agents import make_agent  # noqa: E402
from planprobe.environment import IterationLimitExceeded, Limits  # noqa: E402
from planprobe.schema import Trace, TraceStatus  # noqa: E402
from planprobe.suites.constraints.generator import ConstraintSuiteOptions, generate_cases  # noqa: E402
from planprobe.suites.constraints.oracle import check  # noqa: E402
from planprobe.suites.registry import get_family  # noqa: E402

MIXES = {
    "valid plans (oracle agent)": ["oracle"],
    "random plans (random agent)": ["random"],
    "fault mix": ["oracle", "random", "faulty:drop", "faulty:duplicate", "faulty:swap", "faulty:unknown-tool",
                  "faulty:malformed-args"],
}


def record(cases, agent_names):
    family = get_family("constraints")
    agents = [make_agent(a) for a in agent_names]
    out = []
    for i, case in enumerate(cases):
        agent = agents[i % len(agents)]
        env = family.environment(case, Limits(), 0, agent.name)
        try:
            asyncio.run(agent(case, env))
        except IterationLimitExceeded:
            env.trace.status = TraceStatus.ITERATION_LIMIT
        out.append((case, env.trace))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=5000)
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    print(f"machine: {machine()}")
    print("| mode | traces | failing | in memory best/s | median/s | from JSON best/s | median/s |")
    print("|---|---|---|---|---|---|---|")
    for extended in (False, True):
        cases = list(generate_cases(ConstraintSuiteOptions(actions=(3, 5), n=args.cases, seed=5, extended=extended)))
        for label, agents in MIXES.items():
            pairs = record(cases, agents)
            failing = sum(not check(c, t).passed for c, t in pairs)  # also compiles every case once
            jsons = [(c, t.model_dump_json()) for c, t in pairs]

            def in_memory() -> int:
                for c, t in pairs:
                    check(c, t)
                return len(pairs)

            def from_json() -> int:
                for c, raw in jsons:
                    check(c, Trace.model_validate_json(raw))
                return len(jsons)

            mb, mm = repeat(in_memory, args.reps)
            jb, jm = repeat(from_json, args.reps)
            mode = "extended" if extended else "basic"
            print(f"| {mode}: {label} | {len(pairs)} | {failing} | {mb:,.0f} | {mm:,.0f} | {jb:,.0f} | {jm:,.0f} |")


if __name__ == "__main__":
    main()
