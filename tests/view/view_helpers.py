"""Shared by the view tests: a directory of runs (two agents on one suite, a hostile run, a
run still being written, a labelled failure with a re-rollout, a study) and ``planprobe view``
over it as a real subprocess on loopback, stopped by PID."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from helpers import cases, planprobe_cmd, subprocess_env
from llama_server import stop
from planprobe.api import run_suite
from planprobe.debug.labels import as_json, label_trace
from planprobe.runner.store import RunStore
from planprobe.schema import Case, Message, Origin, Verdict
from planprobe.studies.base import Measure, StudyOutcome, StudyTable, TableRow
from planprobe.studies.directory import Identity, study_json, write_study

# each part sets a flag a test reads back: none may ever be set, and no dialog may open
PAYLOAD = ("<script>window.__pwned=1;alert(1)</script><img src=x onerror=\"window.__pwned=2;alert(2)\">"
           "<svg onload=\"window.__pwned=3\"></svg><b>bold</b>")


# a run directory whose very name is markup
PMC_RUN = "pmc-<b onmouseover=\"window.__pwned=6\">x</b>'"


class HostileAgent:
    """Puts the payload everywhere a run keeps text: its replies, tool arguments, an unknown
    tool's name (so the tool result repeats it), and the final answer."""

    name = "hostile"

    async def __call__(self, case: Case, env) -> str:
        env.log(Message(role="assistant", content="I reply " + PAYLOAD))
        for tool in reversed(env.tools):  # the wrong order: order errors citing the task's clauses
            env.step()
            env.call(tool.name, "{}")
        env.step()
        env.call(PAYLOAD, json.dumps({"x": PAYLOAD}))
        return "final " + PAYLOAD


def hostile_cases() -> list[Case]:
    out = []
    for i, case in enumerate(cases(3, seed=11)):
        out.append(case.model_copy(update={
            "id": f"evil-{i}-\"'><img src=x onerror=\"window.__pwned=4\">",
            "task": case.task + "\n" + PAYLOAD,  # appended: the clauses' spans still point at their words
            "meta": case.meta.model_copy(update={"topic": PAYLOAD})}))
    return out


@dataclass
class ViewDir:
    root: Path
    suite: list[Case]
    live: RunStore | None  # the run still being written: the test adds its results
    labelled: tuple[str, int] = ("", 0)  # (case id, trial) with formal labels and a re-rollout
    labels: dict = field(default_factory=dict)


def make_view_dir(root: Path, live: bool = True) -> ViewDir:
    suite = cases(12, seed=5)
    run_suite(suite, "random", root / "sweep" / "rand", concurrency=1)
    run_suite(suite, "oracle", root / "sweep" / "orac", concurrency=1)
    run_suite(hostile_cases(), HostileAgent(), root / "evil", concurrency=1)
    # the README's picture: an agent that misreads "after" passes some cases and fails others
    run_suite(cases(40, seed=8), "misread:after", root / "constraints-misread-after", concurrency=1)
    rand = root / "sweep" / "rand"
    with RunStore(rand, write=True) as store:
        case_of = {c.id: c for c in suite}
        trace, verdict = next((t, v) for t, v in store.results() if not v.passed and t.tool_calls)
        labels = as_json(label_trace(case_of[trace.case_id], trace, verdict))
        (rand / "labels.jsonl").write_text(json.dumps(labels) + "\n", encoding="utf-8")
        again = trace.model_copy(update={"origin": Origin(
            case_id=trace.case_id, trial=trace.trial, agent=trace.agent, trace_sha256="0" * 64, steps=1,
            replayed_calls=1, replayed_messages=0, guidance="try the order the task gives", attempt=1)})
        store.add_rerollout(again, Verdict(case_id=trace.case_id, passed=True, checker=verdict.checker))
    table = StudyTable(id="demo.table1", where="Table 1", title="pass rate <b>by</b> agent", columns=["rate"],
                       rows=[TableRow("paper", {"rate": "50.0%"}, "paper"),
                             TableRow("yours", {"rate": Measure(3, 12)})])
    outcome = StudyOutcome(tables=[table])
    write_study(root / "study", study_json(Identity("demo", None, "random", "quick", 0), "A paper", [], outcome,
                                           "complete"))
    # a result with PMC's sub-task plan (as the pmc agent records it) in a run of its own
    plan = {"subtasks": [{"id": "s1", "description": "book " + PAYLOAD, "executor": "tools", "depends_on": []},
                         {"id": "s2", "description": "pay", "executor": "tools", "depends_on": ["s1"]}],
            "global_constraints": ["stay under " + PAYLOAD]}
    with RunStore(root / PMC_RUN, create=True) as pmc:
        pmc.initialize([case_of[trace.case_id]], {"agent": "pmc", "trials": "1"})
        pmc.add_result(trace.model_copy(update={"meta": {"pmc": {"plan": plan, "waves": [["s1"], ["s2"]]}}}),
                       verdict)
    writer = None
    if live:
        writer = RunStore(root / "live", create=True)
        writer.initialize(suite, {"agent": "random", "trials": "1", "suite": "s.jsonl"})
    return ViewDir(root, suite, writer, (trace.case_id, trace.trial), labels)


class ViewServer:
    """``planprobe view ROOT`` as a subprocess; ``url`` is the printed URL with its token."""

    def __init__(self, root: Path):
        self.proc = subprocess.Popen(planprobe_cmd() + ["view", str(root)], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=subprocess_env(PYTHONUNBUFFERED="1"))
        line = self.proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/\?token=[\w-]+", line)
        if not found:
            stop(self.proc)
            raise AssertionError(f"view did not print its URL: {line!r} {self.proc.stderr.read()}")
        self.url = found.group(0)
        self.base = self.url.split("/?")[0]
        self.token = self.url.split("token=")[1]

    def stop(self) -> None:
        stop(self.proc)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()
