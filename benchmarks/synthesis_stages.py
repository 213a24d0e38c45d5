"""Where a generated constraint case's time goes, in either build (pure or mypyc-compiled).

    PYTHONPATH=src python benchmarks/synthesis_stages.py [--mode basic|extended] [--cases 3000] [--reps 3]
    PYTHONPATH=src PLANPROBE_PURE=1 python benchmarks/synthesis_stages.py ...
    PYTHONPATH=src PLANPROBE_PURE=1 python benchmarks/synthesis_stages.py --cprofile --cases 10000

``--cprofile`` instead runs ``case_lines`` under cProfile (pure build: compiled functions are invisible to
it) and prints each stage's cumulative share, then the functions with the most own time.

``benchmarks/synthesis_throughput.py`` splits the time by wrapping the generator's functions, which
compiled code calls directly (past the wrappers). This script instead runs ``generator._draft``'s steps
itself, case by case, timing each step: seeding the
case's random streams with its first draws, synthesis (Alg. 1 with the exact checks), re-arranging the
paragraph (first mentions) and untangling, rendering the case, the read-back (the one-reading proof) and
the suite line. Microseconds per case, best of ``--reps``; then the whole ``case_lines`` on the CPU clock
for comparison. The lines made are checked against ``case_lines`` (the same bytes, or the script says so).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time

from planprobe.suites.constraints import draws, native
from planprobe.suites.constraints import generator as G
from planprobe.suites.constraints.grammar import untangle
from planprobe.suites.constraints.mentions import arrange
from planprobe.suites.constraints.synthesis import synthesize


def _seed(i: int, opts: G.ConstraintSuiteOptions) -> tuple:
    """_draft's first steps: the case's streams and its draws before synthesis."""
    rng = draws.seeded(f"planprobe/constraints/{opts.seed}/{i}")
    lo, hi = opts.actions
    n = draws.randint(rng, lo, hi)
    job = opts.lexicon.job(opts.topic) if opts.topic else draws.choice(rng, opts.lexicon.jobs)
    names = draws.sample(rng, job.activities, n)
    durations = G._draw_durations(rng, n, opts.max_duration) if opts.extended else None
    mention_rng = draws.seeded(f"planprobe/constraints/{opts.seed}/{i}/mentions")
    return rng, n, job, names, durations, mention_rng


def stages(opts: G.ConstraintSuiteOptions) -> tuple[dict[str, float], list[str]]:
    """Seconds per stage over opts.n cases, and the lines made. Case by case, each stage timed on
    the CPU clock around its call (about a microsecond per case goes to reading the clock; the
    wall clock would mostly measure the neighbours on a shared machine), so the stages see the
    same memory state as in ``_draft``; a case whose first skeleton is rejected is made whole by
    ``_draft`` (untimed)."""
    clock = time.process_time
    names_ = ["seeding and first draws", "synthesis", "re-arranging and untangling", "rendering the case",
              "read-back (one-reading proof)", "the suite line"]
    spent = [0.0] * len(names_)
    lines = []
    for i in range(opts.n):
        t0 = clock()
        rng, n, job, names, durations, mention_rng = _seed(i, opts)
        t1 = clock()
        sk = synthesize(rng, n, opts.synthesis, durations)
        t2 = clock()
        if not sk.sentences or not (sk.connected or opts.allow_unconstrained):
            lines.append(G._case_json(G._draft(i, opts)))
            continue
        sentences, atoms = arrange(sk.sentences, sk.atoms, names, mention_rng)
        sentences = [untangle(s, mention_rng) for s in sentences]
        t3 = clock()
        draft = G.render_case(i, opts, job.name, names, durations, sentences, sk.sat_checks, atoms)
        t4 = clock()
        ok = G.reads_as_spec(draft.task, draft.spec)
        t5 = clock()
        if not ok:
            lines.append(G._case_json(G._draft(i, opts)))
            continue
        lines.append(G._case_json(draft))
        t6 = clock()
        for k, (a, b) in enumerate(((t0, t1), (t1, t2), (t2, t3), (t3, t4), (t4, t5), (t5, t6))):
            spent[k] += b - a
    return dict(zip(names_, spent)), lines


# the stage each function's cumulative time stands for (cProfile keys: file name tail, function name)
PROFILED = [("seeding the case's streams", "draws.py", "seeded"),
            ("synthesis (Alg. 1: drawing sub-sentences, exact checks)", "synthesis.py", "synthesize"),
            ("  of which the order/window checks (solver.py)", "solver.py", "closure_add_orders"),
            ("  of which the extended-mode checks (solver.py)", "solver.py", "atoms_add"),
            ("  of which the schedule search (solver.py)", "solver.py", "schedule"),
            ("re-arranging (first mentions)", "mentions.py", "arrange"),
            ("untangling (no \", and\" before a fronted phrase)", "grammar.py", "untangle"),
            ("rendering the case", "generator.py", "render_case"),
            ("read-back (one-reading proof)", "generator.py", "reads_as_spec"),
            ("  of which building the reader", "reader_fast.py", "__init__"),
            ("  of which tokenising", "reader_fast.py", "tokens"),
            ("  of which parsing (the memoised rules)", "reader_fast.py", "whole"),
            ("serialisation (the suite line)", "generator.py", "_case_json")]


def profile(opts: G.ConstraintSuiteOptions) -> None:
    G.case_lines(opts, 0, min(200, opts.n))
    prof = cProfile.Profile(time.process_time)  # CPU time: the wall clock measures the neighbours
    prof.enable()
    G.case_lines(opts, 0, opts.n)
    prof.disable()
    stats = pstats.Stats(prof)
    cumulative: dict[tuple[str, str], float] = {}
    for (file, _, func), (_, _, _, ct, _) in stats.stats.items():  # type: ignore[attr-defined]
        key = (file.rsplit("/", 1)[-1], func)
        cumulative[key] = cumulative.get(key, 0.0) + ct
    total = cumulative.get(("generator.py", "case_lines"), 0.0)
    print(f"cProfile of case_lines over {opts.n} cases ({native.status()}): {total:.2f} s of CPU under the profiler")
    print("| stage | cumulative s | share |")
    print("|---|---|---|")
    for label, file, func in PROFILED:
        ct = cumulative.get((file, func), 0.0)
        print(f"| {label} | {ct:.2f} | {ct / total:.1%} |")
    print("| Z3 | 0 calls | synthesis checks with solver.py's exact procedures; Z3 only cross-checks them in tests |")
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(15)
    print(out.getvalue())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", choices=["basic", "extended"], default="basic")
    ap.add_argument("--cases", type=int, default=3000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--cprofile", action="store_true", help="profile case_lines with cProfile instead")
    args = ap.parse_args()
    opts = G.ConstraintSuiteOptions(actions=(3, 5), n=args.cases, seed=args.seed, extended=args.mode == "extended")
    if args.cprofile:
        profile(opts)
        return
    G.case_lines(opts, 0, min(200, args.cases))  # warm-up: caches of tool JSON, name words
    best: dict[str, float] = {}
    whole = float("inf")
    for _ in range(args.reps):
        spent, lines = stages(opts)
        for stage, s in spent.items():
            best[stage] = min(best.get(stage, float("inf")), s)
        t = time.process_time()
        reference = G.case_lines(opts, 0, opts.n)
        whole = min(whole, time.process_time() - t)
        if lines != reference:
            print("warning: the staged lines differ from case_lines")
    per = 1e6 / opts.n
    total = sum(best.values())
    print(f"{args.mode}, {opts.n} cases, |A| 3-5, seed {opts.seed}; {native.status()}")
    print("| stage | µs/case (CPU, best) | share |")
    print("|---|---|---|")
    for stage, s in best.items():
        print(f"| {stage} | {s * per:.1f} | {s / total:.0%} |")
    print(f"| sum of the stages | {total * per:.1f} | |")
    print(f"| whole case (`case_lines`, CPU clock) | {whole * per:.1f} | |")


if __name__ == "__main__":
    main()
