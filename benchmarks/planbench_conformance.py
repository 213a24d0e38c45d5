"""Conformance with PlanBench: re-score every recorded GPT-4 response file and
print one markdown row per file (instances, verdict agreement, disagreements,
recorded extractions reproduced, time).

    python benchmarks/planbench_conformance.py [--data ../shared/data/planbench]
                                               [--rules planbench|planbench-code|planprobe]

All rule sets are run when --rules is not given. Needs PlanBench's instances
and responses (../shared/data/planbench by default).
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

from planprobe.importers.planbench import RULES, rescore_file
from planprobe.importers.planbench_instances import PlanBenchInstances

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "planbench")
    ap.add_argument("--rules", choices=RULES, action="append")
    args = ap.parse_args()
    files = sorted((args.data / "gpt4_responses").glob("*/*.jsonl.gz"))
    print(f"# {platform.python_implementation()} {platform.python_version()}, {len(files)} files")
    for rules in args.rules or list(RULES):
        pb = PlanBenchInstances(args.data / "instances")  # fresh caches: times include parsing and planning
        print(f"\nrules = {rules}\n")
        print("| file | instances | agree | agreement | disagreements (instance ids) | extractions reproduced | "
              "planprobe correct | PlanBench correct | seconds |")
        print("|---|---|---|---|---|---|---|---|---|")
        total = agree = ext = ext_n = 0
        start_all = time.perf_counter()
        for path in files:
            start = time.perf_counter()
            r = rescore_file(path, pb, rules)
            secs = time.perf_counter() - start
            total += r.instances
            agree += r.agree
            ext += r.extraction_agree
            ext_n += r.extraction_compared
            ids = ", ".join(str(d.instance_id) for d in r.disagreements) or "—"
            print(f"| {path.parent.name}/{path.name.removesuffix('.jsonl.gz')} | {r.instances} | {r.agree} | "
                  f"{100 * r.agreement:.1f}% | {ids} | {_extractions(r, rules)} | "
                  f"{sum(x.planprobe for x in r.results)} | {sum(bool(x.planbench) for x in r.results)} | {secs:.2f} |")
        secs = time.perf_counter() - start_all
        ext_total = f"{ext}/{ext_n}" if rules != "planprobe" else "—"
        print(f"| **all** | {total} | {agree} | {100 * agree / total:.2f}% | | {ext_total} | | | {secs:.1f} |")


def _extractions(report, rules: str) -> str:
    """Recorded extractions reproduced by PlanBench's reader (not meaningful for planprobe's own)."""
    if rules == "planprobe" or not report.extraction_compared:
        return "—"
    differ = [str(r.instance_id) for r in report.extraction_differs]
    text = f"{report.extraction_agree}/{report.extraction_compared}"
    return text + (f" (not: {', '.join(differ[:8])}{' …' if len(differ) > 8 else ''})" if differ else "")


if __name__ == "__main__":
    main()
