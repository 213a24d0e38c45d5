"""LM-cut's time per state against the LM-cut of another git revision, in one run.

    python benchmarks/lmcut_against_revision.py [--base main] [--states 2000] [--passes 10] [--reps 7] [--costs]

Loads ``src/planprobe/pddl/lmcut.py`` as it is at ``--base`` (``git show``) next to
the working tree's, evaluates both on the same states — breadth-first from the
initial state of each IPC-style test task (``tests/pddl/data/ipc_style``), up to
``--states`` per task, each round evaluating every state ``--passes`` times — and
prints the best CPU time of ``--reps`` alternating rounds and the ratio. Both must give the same estimates and cuts on every state
(checked first; a difference stops the run). ``--costs`` gives every action a
seeded cost from 0 to 4 instead of unit costs.

Why: a change to LM-cut's code (a refactor, an optimisation) should be measured
against the code it replaces on the same machine at the same time; the machine's
load moves absolute figures by tens of percent, the ratio much less.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import subprocess
import sys
import tempfile
import time
from collections import deque
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine

from planprobe.pddl import ground, load
from planprobe.pddl.lmcut import LMCut
from planprobe.pddl.search_task import SearchTask

DATA = ROOT / "tests" / "pddl" / "data" / "ipc_style"


def base_class(rev: str) -> type:
    """The ``LMCut`` class of ``rev``, imported as a module of the ``planprobe.pddl`` package."""
    text = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:src/planprobe/pddl/lmcut.py"],
                          capture_output=True, text=True, check=True).stdout
    path = Path(tempfile.mkdtemp()) / "lmcut_base.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("planprobe.pddl._lmcut_base", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.LMCut


def tasks(per_task: int, costs: bool) -> list[tuple[tuple, dict, list[int]]]:
    out = []
    for d in sorted(p for p in DATA.iterdir() if p.is_dir()):
        for p in sorted(d.glob("p*.pddl")):
            gp = ground(load(d / "domain.pddl", p))
            task = SearchTask(gp, gp.actions(), prune=False)
            pres, adds, goal = task.ordered_conditions()
            kwargs = {"costs": [random.Random(f"{p.name}/{n}").randint(0, 4) for n in range(len(pres))]} if costs else {}
            todo, seen, states = deque([task.init]), {task.init}, []
            while todo and len(states) < per_task:
                s = todo.popleft()
                states.append(s)
                for n in task.applicable(s):
                    x = (s & task.keep[n]) | task.add[n]
                    if x not in seen:
                        seen.add(x)
                        todo.append(x)
            out.append(((pres, adds, goal, len(gp.atoms)), kwargs, states))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="main")
    ap.add_argument("--states", type=int, default=2000)
    ap.add_argument("--passes", type=int, default=10)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--costs", action="store_true")
    args = ap.parse_args()
    base = base_class(args.base)
    work = tasks(args.states, args.costs)
    n = sum(len(states) for _, _, states in work)
    for a, kw, states in work:
        mine, theirs = LMCut(*a, **kw), base(*a, **kw)
        for s in states:
            if mine.landmarks(s) != theirs.landmarks(s):
                sys.exit(f"the estimates differ from {args.base}'s on a state: not a like-for-like comparison")
    best = {"this tree": float("inf"), args.base: float("inf")}
    for _ in range(args.reps):
        for name, cls in (("this tree", LMCut), (args.base, base)):
            hs = [(cls(*a, **kw), states) for a, kw, states in work]
            t0 = time.process_time()
            for h, states in hs * args.passes:
                for s in states:
                    h.landmarks(s)
            best[name] = min(best[name], time.process_time() - t0)
    print(f"machine: {machine()}")
    print(f"LM-cut ({'costs 0-4' if args.costs else 'unit costs'}), {n} states of {len(work)} tasks, "
          f"{args.passes} passes, best CPU of {args.reps} rounds:")
    for name, seconds in best.items():
        print(f"  {name}: {seconds:.3f} s ({seconds / (n * args.passes) * 1e6:.0f} us per state)")
    print(f"  this tree / {args.base}: {best['this tree'] / best[args.base]:.3f}")


if __name__ == "__main__":
    main()
