"""Plan validation speed: planprobe's validator vs unified-planning's, same plans, one run.

    python benchmarks/pddl_validator.py [--up-plans 300] [--reps 5]

Plans: for each of PlanBench's 501 Blocksworld instances (generated_basic), the
optimal plan, a truncated one, one with a step dropped, one with two steps
swapped, one with a random action inserted, plus GPT-4's plans where
../shared has them (about 3,000 plans). Problems are parsed and prepared before
timing (target: ≤ 25 µs per plan, median, problem pre-parsed).

planprobe is timed three ways: *cold* — every plan on a freshly prepared
problem, so each step is parsed and grounded; *pre-grounded* — the problem's
ground actions computed once (``GroundProblem.actions()``), each step parsed and
looked up by name and arguments; *warm* — step texts already cached per
problem, as when many plans are checked for one problem. unified-planning is timed on a
sample (its validator takes milliseconds per plan) with its problems parsed and
its plan objects built before timing.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine

from planprobe.pddl import (
    GroundProblem,
    load_domain,
    load_problem,
    solve,
    validate,
)

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "planbench"
BW = SHARED / "instances" / "blocksworld"


def corpus(rng: random.Random):
    domain = load_domain(BW / "generated_domain.pddl")
    gpt4: dict[int, list[list[str]]] = {}
    responses = SHARED / "gpt4_responses" / "blocksworld" / "task_1_plan_generation.jsonl.gz"
    if responses.exists():
        with gzip.open(responses, "rt") as f:
            for line in f:
                row = json.loads(line)
                gpt4.setdefault(row["instance_id"], []).append(row["extracted_llm_plan"])
    out = []
    for i in range(1, 502):
        prob = load_problem(BW / "generated_basic" / f"instance-{i}.pddl", domain)
        plan = list(solve(prob).steps)
        actions = [str(a) for a in GroundProblem(prob).actions()]
        plans = [plan, plan[:-1], plan[:rng.randrange(len(plan))]]
        p = list(plan)
        del p[rng.randrange(len(p))]
        plans.append(p)
        p = list(plan)
        if len(p) > 1:
            a, b = rng.sample(range(len(p)), 2)
            p[a], p[b] = p[b], p[a]
        plans.append(p)
        p = list(plan)
        p.insert(rng.randrange(len(p) + 1), rng.choice(actions))
        plans.append(p)
        plans += gpt4.get(i, [])
        out.append((prob, plans))
    return out


def time_planprobe(problems, mode: str) -> list[float]:
    """Per-plan seconds. mode: cold | pregrounded | warm (see the module docstring)."""
    times = []
    for prob, plans in problems:
        gp = GroundProblem(prob)
        if mode == "warm":
            for plan in plans:
                validate(gp, plan)
        for plan in plans:
            if mode == "cold":
                gp = GroundProblem(prob)  # fresh: every step parsed and grounded
            elif mode == "pregrounded":
                gp.actions()  # all ground actions precomputed once per problem
                gp.step_cache.clear()  # but every step of every plan parsed and looked up
            t0 = time.perf_counter()
            validate(gp, plan)
            times.append(time.perf_counter() - t0)
    return times


def time_unified_planning(problems, n: int, rng: random.Random) -> tuple[list[float], int]:
    import unified_planning as up
    from unified_planning.io import PDDLReader
    from unified_planning.plans import ActionInstance, SequentialPlan
    from unified_planning.shortcuts import PlanValidator

    up.shortcuts.get_environment().credits_stream = None
    sample = rng.sample(problems, max(1, n // 6))
    times, disagreements = [], 0
    with PlanValidator(name="sequential_plan_validator") as validator:
        for prob, plans in sample:
            upp = PDDLReader().parse_problem(str(BW / "generated_domain.pddl"), prob.filename)
            actions = {a.name: a for a in upp.actions}
            objects = {o.name: o for o in upp.all_objects}
            for plan in plans[:6]:
                steps = [s.strip("()").split() for s in plan]
                up_plan = SequentialPlan([ActionInstance(actions[s[0]], [objects[x] for x in s[1:]]) for s in steps])
                t0 = time.perf_counter()
                result = validator.validate(upp, up_plan)
                times.append(time.perf_counter() - t0)
                disagreements += (result.status.name == "VALID") != validate(prob, plan).valid
    return times, disagreements


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--up-plans", type=int, default=300, help="plans timed with unified-planning (0: skip)")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    print(f"machine: {machine()}")
    rng = random.Random(1)
    problems = corpus(rng)
    n_plans = sum(len(plans) for _, plans in problems)
    print(f"{len(problems)} Blocksworld problems, {n_plans} plans "
          f"({sum(not validate(p, x).valid for p, plans in problems for x in plans)} invalid)")
    up_times: list[float] = []
    if args.up_plans:
        try:
            up_times, dis = time_unified_planning(problems, args.up_plans, rng)
            print(f"unified-planning (before): {len(up_times)} plans, median {statistics.median(up_times) * 1e3:.2f} ms "
                  f"per plan, mean {statistics.mean(up_times) * 1e3:.2f} ms; verdict disagreements: {dis}")
        except ImportError:
            print("unified-planning is not installed: skipped (pip install unified-planning)")
    labels = {"cold": "cold (every step parsed and grounded)",
              "pregrounded": "pre-grounded (every step parsed, actions looked up)",
              "warm": "warm (step texts cached)"}
    for mode, label in labels.items():
        medians, means = [], []
        for _ in range(args.reps):
            t = time_planprobe(problems, mode)
            medians.append(statistics.median(t))
            means.append(statistics.mean(t))
        print(f"planprobe {label}: median {min(medians) * 1e6:.2f} µs per plan (best of {args.reps} runs; "
              f"median of runs {statistics.median(medians) * 1e6:.2f} µs), mean {statistics.median(means) * 1e6:.2f} µs")
    if up_times:
        up_times2, _ = time_unified_planning(problems, args.up_plans, random.Random(2))
        print(f"unified-planning (after): {len(up_times2)} plans, median {statistics.median(up_times2) * 1e3:.2f} ms "
              f"per plan")


if __name__ == "__main__":
    main()
