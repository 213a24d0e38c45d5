"""How well each surface cue tells unsolvable variants from their controls (issue #11).

    python benchmarks/shortcut_scores.py [--n 800] [--pddl-n 240]

For each family and unsolvable kind: the best balanced accuracy any cue reaches at its
best threshold (either direction), the cue that reaches it, and the cues that are the
kind's own skill with their scores. Not a timing; the figures go to docs/robustness.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from planprobe import ConstraintSuiteOptions, generate_cases  # noqa: E402
from planprobe.suites.pddl_agent import PDDLSuiteOptions  # noqa: E402
from planprobe.suites.pddl_agent import generate_cases as pddl_cases  # noqa: E402
from planprobe.suites.robust import parse_transforms, robustify  # noqa: E402
from planprobe.suites.robust.tells import cue_scores  # noqa: E402

KINDS = ("unsolvable", "unsolvable:removal", "unsolvable:contradiction", "unsolvable:missing-info")
SKILL: dict[str, set[str]] = {}  # missing-info's params-not-in-task is a shortcut since issue #26
PDDL_SKILL = {"unsolvable:removal": {"description-spread", "params-not-in-task"}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=800)
    ap.add_argument("--pddl-n", type=int, default=240)
    args = ap.parse_args()
    families = {
        "constraints basic": lambda: generate_cases(ConstraintSuiteOptions(n=args.n, seed=11)),
        "constraints timed": lambda: generate_cases(ConstraintSuiteOptions(n=args.n, seed=11, extended=True)),
        "blocksworld": lambda: pddl_cases(PDDLSuiteOptions(domain="blocksworld", n=args.pddl_n, seed=11)),
        "logistics": lambda: pddl_cases(PDDLSuiteOptions(domain="logistics", n=args.pddl_n // 2, seed=11)),
    }
    print("| family | transform | cases | best cue (balanced accuracy) | skill cues |")
    print("|---|---|---|---|---|")
    for family, make in families.items():
        base = list(make())
        pddl = family in ("blocksworld", "logistics")
        for kind in KINDS:
            skill = set(SKILL.get(kind, ()))
            if pddl:
                skill |= PDDL_SKILL.get(kind, set())
            if kind == "unsolvable":
                skill = {c for d in (SKILL, PDDL_SKILL if pddl else {}) for cues in d.values() for c in cues}
            variants = [robustify(c, parse_transforms([kind]), 7) for c in base]
            scores = cue_scores(variants)
            best = max((s for s in scores if s.cue not in skill), key=lambda s: s.balanced_accuracy)
            skills = ", ".join(f"{s.cue} {s.balanced_accuracy:.2f}" for s in scores if s.cue in skill) or "—"
            print(f"| {family} | {kind} | {len(variants)} | {best.cue} {best.balanced_accuracy:.2f} | {skills} |",
                  flush=True)


if __name__ == "__main__":
    main()
