"""Where a study's time goes on the embedded model: model calls, tokens and time in the model.

    python benchmarks/study_quick.py --json OUT.json -- study apb --quick --model local --out DIR [...]

Runs ``planprobe ARGS`` in this process with the embedded model's ``_complete`` wrapped to count
every call that reached llama.cpp (prompt and completion tokens, seconds inside it), and prints
them beside the wall time, the process's CPU time (user + system: on a machine shared with
other work it is close to the wall time the same run takes alone with ``--threads 1``), the machine and its load average before and after. Calls replayed
from the model-call cache never reach llama.cpp and are not counted: give the study a fresh
``--cache-path`` (inside its directory) to measure all of its calls.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", type=Path, default=None, help="write the figures here too")
    ap.add_argument("--calls", type=Path, default=None, help="append one JSON line per model call here")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="planprobe's arguments (after --)")
    args = ap.parse_args()
    argv = [a for a in args.args if a != "--"] if args.args[:1] == ["--"] else args.args

    from planprobe.models import local

    usage: dict[str, Any] = {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "model_s": 0.0,
                             "longest_call_s": 0.0}
    original = local.LocalModel._complete

    def counted(self: Any, prompt: str, grammar: Any, params: Any) -> Any:
        t0 = time.perf_counter()
        out = original(self, prompt, grammar, params)
        took = time.perf_counter() - t0
        usage["calls"] += 1
        usage["prompt_tokens"] += out["usage"]["prompt_tokens"]
        usage["completion_tokens"] += out["usage"]["completion_tokens"]
        usage["model_s"] += took
        usage["longest_call_s"] = max(usage["longest_call_s"], took)
        if args.calls is not None:
            with args.calls.open("a", encoding="utf-8") as f:
                f.write(json.dumps({"prompt": out["usage"]["prompt_tokens"],
                                    "completion": out["usage"]["completion_tokens"], "s": round(took, 2),
                                    "finish": out["choices"][0].get("finish_reason"),
                                    "grammar": grammar is not None}) + "\n")
        return out

    local.LocalModel._complete = counted  # type: ignore[method-assign]
    from planprobe.cli import main as planprobe_main

    load_before = os.getloadavg()
    t0 = time.perf_counter()
    code = 0
    sys.argv = ["planprobe", *argv]
    try:
        planprobe_main()  # the command line's own entry point: its error lines and exit codes
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    wall = time.perf_counter() - t0
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    figures = {"argv": argv, "exit": code, "wall_s": round(wall, 1),
               "cpu_s": round(cpu.ru_utime + cpu.ru_stime, 1), "machine": machine(),
               "load_before": [round(x, 2) for x in load_before],
               "load_after": [round(x, 2) for x in os.getloadavg()],
               **{k: round(v, 1) if isinstance(v, float) else v for k, v in usage.items()}}
    print(json.dumps(figures), file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    sys.exit(code)


if __name__ == "__main__":
    main()
