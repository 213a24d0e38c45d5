"""TravelPlanner: load and scoring speed.

Load: the training directory (45 queries, sandbox rebuilt from the reference
information), and a database directory in the official layout written from that
sandbox with every table repeated ``--copies`` times (the real database is not
redistributable: rows/s is the figure to scale by).

Scoring: plans per second of planprobe's evaluator (official and strict reading)
against the peer, tests/travelplanner_port.py — a straightforward pure-Python port
of the official evaluator (full-table scans where the official code filters
pandas frames) — on the same plans (the 45 annotated plans and random plans) in
the same run. Both give the same verdicts (the tests check it).

    PYTHONPATH=src python benchmarks/travelplanner_speed.py --train-dir ../shared/data/travelplanner
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import travelplanner_port as port  # noqa: E402
from _common import machine, repeat  # noqa: E402

from planprobe.suites.travelplanner.reference_answers import random_plan  # noqa: E402
from planprobe.suites.travelplanner.evaluate import Evaluator  # noqa: E402
from planprobe.suites.travelplanner.sandbox import TABLES, load_database  # noqa: E402
from planprobe.suites.travelplanner.training import load_training, training_sandbox  # noqa: E402


def write_database(box, root: Path, copies: int) -> int:
    rows_written = 0
    for table, (rel, columns, _) in TABLES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = box.distances if table == "distances" else getattr(box, table)
        with path.open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow([""] + list(columns))
            k = 0
            for _ in range(copies):
                for r in rows:
                    vals = [getattr(r, c) for c in columns] if table == "distances" else [r[c] for c in columns]
                    w.writerow([k] + ["" if v is None else v for v in vals])
                    k += 1
            rows_written += k
    (root / "background").mkdir(exist_ok=True)
    (root / "background" / "citySet_with_states.txt").write_text(
        "\n".join(f"{c}\t{s or 'X'}" for c, s in box.cities.items()), encoding="utf-8")
    return rows_written


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--train-dir", type=Path, required=True)
    ap.add_argument("--copies", type=int, default=50)
    ap.add_argument("--random-plans", type=int, default=4, help="random plans per query (besides the annotated one)")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    print(f"machine: {machine()}")

    t0 = time.perf_counter()
    queries = load_training(args.train_dir)
    box = training_sandbox(queries, str(args.train_dir))
    print(f"load training directory (45 queries + sandbox): {time.perf_counter() - t0:.3f} s")

    with tempfile.TemporaryDirectory() as tmp:
        n = write_database(box, Path(tmp), args.copies)
        t0 = time.perf_counter()
        load_database(Path(tmp))
        dt = time.perf_counter() - t0
        print(f"load database directory: {n} rows in {dt:.2f} s = {n / dt:,.0f} rows/s")

    work = [(q.fields, q.plan) for q in queries]
    for k in range(args.random_plans):
        work += [(q.fields, random_plan(q.fields, box, random.Random(f"{k}/{q.idx}"))) for q in queries]
    dist = [{"origin": d.origin, "destination": d.destination, "duration": d.duration, "distance": d.distance}
            for d in box.distances]
    tables = port.Tables(box.flights, box.accommodations, box.restaurants, box.attractions, dist, box.cities)

    def ours(strict: bool):
        def go() -> int:
            for fields, plan in work:
                Evaluator(fields, box, strict).evaluate(plan)
            return len(work)
        return go

    def peer() -> int:
        for fields, plan in work:
            port.evaluate(tables, fields.to_json(), plan)
        return len(work)

    best_o, med_o = repeat(ours(False), args.reps)
    best_s, med_s = repeat(ours(True), args.reps)
    best_p, med_p = repeat(peer, args.reps)
    print(f"score {len(work)} plans: planprobe official {med_o:,.0f} plans/s (best {best_o:,.0f}); "
          f"strict {med_s:,.0f} plans/s; peer (port of the official evaluator) {med_p:,.0f} plans/s; "
          f"ratio planprobe/peer {med_o / med_p:.1f}x")


if __name__ == "__main__":
    main()
