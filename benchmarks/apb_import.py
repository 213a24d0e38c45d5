"""APB mode: import speed and suite size at APB's full size, and APB's scoring.

    python benchmarks/apb_import.py [--reps 3] [--apb-code DIR]

Builds APB's 4,209 records (its six splits at their published counts) from the
test fixture's realistic rows (tests/judge/apb_fixture.py, new ids), with the
fixture's images and text file in a temporary data directory. Times, best of
``--reps``, in one process: the APB-protocol import (with ``--data-dir``: images
hashed, text inlined), the execute-mode import of the same file (the peer), and
APB's ``score()`` over 4,209 judgements. APB's prompt texts come from
``--apb-code DIR`` (a checkout of APB's code), else ``$PLANPROBE_APB_CODE``,
else the tests' stand-in prompts.py (other words, similar length).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests" / "judge"))
from _common import machine  # noqa: E402
from apb_fixture import STANDIN_APB_CODE, records, write_split_files  # noqa: E402

from planprobe.llm_judge.apb_score import score  # noqa: E402
from planprobe.importers.apb import iter_apb  # noqa: E402
from planprobe.importers.apb_cases import iter_apb_protocol  # noqa: E402
from planprobe.importers.apb_prompts import ENV_VAR, load  # noqa: E402

COUNTS = {"holistic_planning": 1109, "holistic_tool_extraneous": 750, "holistic_unsolvable": 400,
          "step_wise_planning": 900, "step_wise_tool_extraneous": 750, "step_wise_tool_broken": 300}


def full_size(path: Path) -> list[dict]:
    by_split: dict[str, list[dict]] = {}
    for r in records():
        by_split.setdefault(r["split"], []).append(r)
    rows = []
    for split, n in COUNTS.items():
        for i in range(n):
            base = by_split[split][i % len(by_split[split])]
            rows.append({**base, "id": f"{base['id']}-{i}"})
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return rows


def best(fn, reps: int) -> tuple[float, int]:
    out, fastest = 0, float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        fastest = min(fastest, time.perf_counter() - t0)
    return fastest, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--apb-code", type=Path, default=None, help="a checkout of APB's code (for its prompts.py)")
    args = ap.parse_args()
    import os

    prompts = load(args.apb_code or (None if os.environ.get(ENV_VAR) else STANDIN_APB_CODE))
    print(f"machine: {machine()}")
    print(prompts.describe())
    with tempfile.TemporaryDirectory() as tmp:
        root, _ = write_split_files(Path(tmp) / "apb")
        path = Path(tmp) / "all.jsonl"
        rows = full_size(path)
        n = len(rows)
        t_apb, size_apb = best(lambda: sum(len(c.model_dump_json()) + 1
                                           for c in iter_apb_protocol([path], root, prompts=prompts)),
                               args.reps)
        t_exe, size_exe = best(lambda: sum(len(c.model_dump_json()) + 1 for c in iter_apb(path)), args.reps)
        judged = [{**r, "judgement": {"is_correct": i % 3 == 0, "grade": (i % 6) / 5}} for i, r in enumerate(rows)]
        t_score, _ = best(lambda: len(score(judged)["groups"]), args.reps)
    print(f"| step | records | records/s | bytes per case |")
    print("|---|---|---|---|")
    print(f"| import --protocol apb --data-dir | {n:,} | {n / t_apb:,.0f} | {size_apb / n:,.0f} |")
    print(f"| import --protocol execute (peer) | {n:,} | {n / t_exe:,.0f} | {size_exe / n:,.0f} |")
    print(f"| APB score() | {n:,} | {n / t_score:,.0f} | |")
    print(f"apb/execute import speed ratio: {t_exe / t_apb:.2f}")


if __name__ == "__main__":
    main()
