"""Data for the PDDL tests: PlanBench instances (from ../shared; tests skip when it is
absent), the IPC-style tasks of data/ipc_style, and a generated Freecell-style deal."""

from __future__ import annotations

import gzip
import itertools
import json
from pathlib import Path

from helpers import shared_path
from planprobe.pddl import Domain, Problem, load_domain, load_problem

HERE = Path(__file__).resolve().parent
IPC_STYLE = HERE / "data" / "ipc_style"
_DOMAINS: dict[tuple[Path, str], Domain] = {}


def instances() -> Path:
    return shared_path("data", "planbench", "instances")


def domain(name: str) -> Domain:
    """name: 'blocksworld', 'logistics', 'depots', 'blocksworld/mystery', …"""
    base = instances()
    if (base, name) not in _DOMAINS:
        _DOMAINS[(base, name)] = load_domain(base / name / "generated_domain.pddl")
    return _DOMAINS[(base, name)]


def problem(name: str, i: int, folder: str = "generated_basic") -> Problem:
    return load_problem(instances() / name / folder / f"instance-{i}.pddl", domain(name))


def gpt4_rows(domain_dir: str, task_file: str) -> list[dict]:
    path = shared_path("data", "planbench", "gpt4_responses", domain_dir, task_file)
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def optimal_lengths() -> dict[int, int]:
    """Optimal plan lengths of blocksworld/generated_basic, computed with Fast Downward
    astar(lmcut()); they equal PlanBench's ground-truth plan lengths wherever PlanBench
    ships one (the even instances 2–500, checked in test_pddl_planner)."""
    data = json.loads((HERE / "data" / "blocksworld_generated_basic_optimal.json").read_text())
    return {int(k): v for k, v in data.items()}


def freecell_deal(suits: int = 4, values: int = 13, columns: int = 8) -> str:
    """A full freecell-style deal (4 x 13 cards in 8 columns) for the freecell-style domain."""
    names = "hdcs"[:suits]
    cards = [f"{s}{v}" for s in names for v in range(1, values + 1)]
    deal = sorted(cards, key=lambda c: (int(c[1:]) * 7 + ord(c[0])) % len(cards))
    cols = [deal[i::columns] for i in range(columns)]
    init = [f"(home {s}0)" for s in names] + ["(cellspace n4)", "(colspace n0)"]
    for col in cols:
        init.append(f"(bottomcol {col[0]})")
        init += [f"(on {upper} {lower})" for lower, upper in itertools.pairwise(col)]
        init.append(f"(clear {col[-1]})")
    init += [f"(successor n{i + 1} n{i})" for i in range(values)]
    for s in names:
        init += [f"(suit {s}{v} suit-{s})" for v in range(values + 1)]
        init += [f"(value {s}{v} n{v})" for v in range(values + 1)]
    red = {"h", "d"}
    for a in names:
        for b in names:
            if (a in red) != (b in red):
                init += [f"(canstack {a}{v} {b}{v + 1})" for v in range(1, values)]
    objects = [f"{s}{v}" for s in names for v in range(values + 1)] + [f"suit-{s}" for s in names] + \
        [f"n{i}" for i in range(values + 1)]
    goal = " ".join(f"(home {s}{values})" for s in names)
    return (f"(define (problem deal) (:domain freecell-style) (:objects {' '.join(objects)}) "
            f"(:init {' '.join(init)}) (:goal (and {goal})))")
