"""CPU time per case of the constraint generator's last two stages: rendering a case
(``generator.render_case``: text, spec, metadata) and writing its suite line (``_case_json``).

Run it with each tree (or build) on the path in turn, in one sitting, to compare them:
    PYTHONPATH=src python benchmarks/render_stages.py --mode extended
    PYTHONPATH=src PLANPROBE_PURE=1 python benchmarks/render_stages.py --mode extended
The cases are generated first (untimed), then each stage is timed over all of them
``--reps`` times; the best repetition is printed (the machine is shared and noisy).
Works with trees whose drafts keep the skeleton in the spec (before issue #10's render
pass) and with those that carry the sentences on the draft.
"""

from __future__ import annotations

import argparse
import time

from planprobe.suites.constraints import generator as G
from planprobe.suites.constraints import native
from planprobe.suites.constraints.grammar import sentence_from_json


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", choices=["basic", "extended"], default="extended")
    ap.add_argument("--cases", type=int, default=1500)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    extended = args.mode == "extended"
    opts = G.ConstraintSuiteOptions(actions=(3, 5), n=args.cases, seed=args.seed, extended=extended)
    drafts = [G._draft(i, opts) for i in range(opts.n)]
    inputs = []
    for d in drafts:
        sentences = list(d.sentences) if hasattr(d, "sentences") else [sentence_from_json(s) for s in d.spec["skeleton"]]
        durations = [a["duration"] for a in d.spec["actions"]] if extended else None
        inputs.append((sentences, d.names, durations, d.meta["generator"]["sat_checks"]))
    clock = time.process_time
    render = line = float("inf")
    for _ in range(args.reps):
        t0 = clock()
        for i, (sentences, names, durations, sat) in enumerate(inputs):
            G.render_case(i, opts, "topic", names, durations, sentences, sat)
        t1 = clock()
        for d in drafts:
            G._case_json(d)
        t2 = clock()
        render, line = min(render, t1 - t0), min(line, t2 - t1)
    per = 1e6 / len(drafts)
    print(f"{args.mode:8}  {native.status()}")
    print(f"  render_case {render * per:6.1f} us/case   _case_json {line * per:6.1f} us/case")


if __name__ == "__main__":
    main()
