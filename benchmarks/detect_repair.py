"""Detector and repair figures (issue #14 items 5-6): oracle/random detectors as bounds on a
few hundred failed traces of the random agent, and the embedded model as agent and detector on a
tiny run (it is a 135M model: expect it to be weak). Prints the command lines it ran and the scores.

    PYTHONPATH=src python benchmarks/detect_repair.py [--bound-cases 200] [--model-cases 12] [--out DIR]
        [--model-iterations 4] [--agentdebug-limit N] [--workers W --threads T]

The two-stage agentdebug detector costs 4 calls per step and module plus one per trace, so on a
large model run `--agentdebug-limit` scores it on the first N traces only (the others on all).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def pp(*args: object) -> str:
    cmd = [sys.executable, "-m", "planprobe", *map(str, args)]
    print("$ planprobe " + " ".join(map(str, args)), flush=True)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode not in (0, 1):
        raise SystemExit(f"failed ({r.returncode}): {r.stderr.strip()[-500:]}")
    return r.stdout


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bound-cases", type=int, default=200)
    ap.add_argument("--model-cases", type=int, default=12)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--model-iterations", type=int, default=4, help="the modular agent's iteration limit")
    ap.add_argument("--agentdebug-limit", type=int, default=None, help="score agentdebug on the first N traces")
    ap.add_argument("--workers", type=int, default=1, help="worker processes for the model's run and repair")
    ap.add_argument("--threads", type=int, default=None, help="CPU threads per embedded model")
    a = ap.parse_args()
    root = a.out or Path(tempfile.mkdtemp(prefix="detect-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    pp("generate", "constraints", "--actions", "3-5", "--n", a.bound_cases, "--seed", 11, "-o", root / "s.jsonl")
    pp("run", root / "s.jsonl", "--agent", "random", "--out", root / "rand", "-q")
    pp("errorbench", root / "rand", "-o", root / "b.jsonl", "-q")
    for det in ("oracle", "random"):
        s = json.loads(pp("detect", root / "b.jsonl", "--detector", det, "--json", "-q"))
        print(json.dumps({k: s[k] for k in ("detector", "n", "step", "step_module", "all_correct", "within_e_pnr",
                                             "distance_mean")}), flush=True)
    pp("generate", "constraints", "--actions", "3", "--n", a.model_cases, "--seed", 12, "-o", root / "m.jsonl")
    threads = ["--threads", a.threads] if a.threads else []
    workers = ["--workers", a.workers] if a.workers > 1 else []
    pp("run", root / "m.jsonl", "--agent", "modular", "--model", "local", "--max-iterations", a.model_iterations,
       "--max-tokens", 64, "--timeout", 1800, *threads, *workers, "--out", root / "local", "-q")
    pp("errorbench", root / "local", "-o", root / "lb.jsonl", "-q")
    for det in ("direct", "oracle", "random", "agentdebug"):
        t0 = time.perf_counter()
        extra = ["--model", "local", "--max-tokens", 64, *threads] if det in ("direct", "agentdebug") else []
        if det == "agentdebug" and a.agentdebug_limit is not None:
            extra += ["--limit", a.agentdebug_limit]
        s = json.loads(pp("detect", root / "lb.jsonl", "--detector", det, *extra, "--json", "-q"))
        print(json.dumps({"detector": det, "n": s["n"], "step": s["step"], "all_correct": s["all_correct"],
                          "within_e_pnr": s["within_e_pnr"], "model_calls": s["model_calls"],
                          "seconds": round(time.perf_counter() - t0, 1)}), flush=True)
    for det in ("oracle", "none"):
        s = json.loads(pp("debug", root / "local", "--detector", det, "--max-rounds", 1, "--model", "local",
                          *threads, *workers, "--json", "-q"))
        print(json.dumps({"repair": det, **s}), flush=True)
    print(f"(work in {root})")


if __name__ == "__main__":
    main()
