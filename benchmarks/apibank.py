"""API-Bank: how fast its data is imported and its calls are scored.

    python benchmarks/apibank.py DATA_DIR [--reps 5]

DATA_DIR is API-Bank's folder (e.g. ../shared/data/api-bank). Per level:

* **load**: ``import_cases`` (read, check, build every case; levels 1-2 also run each
  recorded call once to mark the gold-consistent cases), cases/s; its peer in the same
  run is a bare ``json.loads`` of every file the import reads.
* **score**: verdicts/s on traces recorded from the oracle agent (valid calls) and from a
  mix of faulty agents; levels 1-2 re-run each judged call on fresh databases, level 3
  matches calls against the recorded ones. Peer in the same run: reading the 19 initial
  database files, which API-Bank's evaluator does for every call it judges (it builds a
  new ToolManager per sample); the ratio is planprobe verdicts per such reload.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, repeat  # noqa: E402

from planprobe.agents import make_agent  # noqa: E402
from planprobe.environment import IterationLimitExceeded, Limits  # noqa: E402
from planprobe.schema import TraceStatus  # noqa: E402
from planprobe.importers.apibank import import_cases  # noqa: E402
from planprobe.importers.apibank_samples import LEVEL3_FILE, LEVEL_DIRS  # noqa: E402
from planprobe.suites.apibank.databases import DATABASES  # noqa: E402
from planprobe.suites.registry import get_family  # noqa: E402

FAULTY = ["faulty:drop", "faulty:unknown-tool", "faulty:malformed-args", "random"]


def record(cases, agent_names):
    agents = [make_agent(a, seed=1) for a in agent_names]
    out = []
    for i, case in enumerate(cases):
        agent = agents[i % len(agents)]
        family = get_family(case.family)
        env = family.environment(case, Limits(), 0, agent.name)
        try:
            asyncio.run(agent(case, env))
        except IterationLimitExceeded:
            env.trace.status = TraceStatus.ITERATION_LIMIT
        out.append((family, case, env.trace))
    return out


def raw_files(root: Path, level: int) -> list[Path]:
    if level == 3:
        return [root / LEVEL3_FILE]
    return sorted((root / LEVEL_DIRS[level]).glob("*.jsonl")) + [root / "init_database" / f"{n}.json" for n in DATABASES]


def read_raw(paths: list[Path]) -> int:
    n = 0
    for p in paths:
        text = p.read_text(encoding="utf-8")
        if p.suffix == ".jsonl":
            n += sum(1 for line in text.splitlines() if line.strip() and json.loads(line))
        else:
            json.loads(text)
            n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data_dir", type=Path)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    root = args.data_dir
    print(f"machine: {machine()}")
    print("| level | cases | load best cases/s | median | load time | peer: json.loads of the same files | "
          "load / peer | score: valid best/s | median | faulty mix best/s | median | peer: database reloads/s | "
          "valid verdicts per reload |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    db_paths = [root / "init_database" / f"{n}.json" for n in DATABASES]
    for level in (1, 2, 3):
        paths = raw_files(root, level)
        peer_before = repeat(lambda: read_raw(paths) and 1, args.reps)
        cases: list = []

        def load() -> int:
            cases[:] = import_cases(root, level)
            return len(cases)

        lb, lm = repeat(load, args.reps)
        peer_after = repeat(lambda: read_raw(paths) and 1, args.reps)
        peer_s = 1 / max(peer_before[0], peer_after[0])  # the faster of the two peer runs
        load_s = len(cases) / lb
        valid = record(cases, ["oracle"])
        faulty = record(cases, FAULTY)

        def score(pairs):
            def go() -> int:
                for family, case, trace in pairs:
                    family.check(case, trace)
                return len(pairs)
            return go

        vb, vm = repeat(score(valid), args.reps)
        fb, fm = repeat(score(faulty), args.reps)

        def reload() -> int:
            for p in db_paths:
                json.loads(p.read_text(encoding="utf-8"))
            return 1

        rb, _ = repeat(reload, args.reps)
        print(f"| {level} | {len(cases)} | {lb:,.0f} | {lm:,.0f} | {load_s * 1000:,.0f} ms | {peer_s * 1000:,.1f} ms | "
              f"{load_s / peer_s:,.0f}× | {vb:,.0f} | {vm:,.0f} | "
              f"{fb:,.0f} | {fm:,.0f} | {rb:,.1f} | {vb / rb:,.0f}× |")


if __name__ == "__main__":
    main()
