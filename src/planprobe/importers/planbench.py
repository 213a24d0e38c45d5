"""Re-score PlanBench's recorded responses with PlanBench's readers (reproduced
bug for bug) or planprobe's own, and planprobe's validator and planner.

Why: PlanBench (seed 004) publishes model responses with its own verdicts
(``llm_correct``; ``llm_correct_binary`` for plan verification). Reading the
same responses as PlanBench reads them (``pddl.planbench_rules``), checking them
with planprobe's validator and optimal planner and comparing verdicts — and the
extractions PlanBench recorded — is the conformance test of the PDDL family. It
lets a user re-score PlanBench runs (or their own model's responses in
PlanBench's format) without PlanBench's toolchain (Fast Downward, VAL, tarski),
with numbers comparable to PlanBench's, or with planprobe's stricter reader
(``rules="planprobe"``, ``pddl.reply_parser``).

Input: JSONL (optionally gzipped), one response per line with ``instance_id``,
``query``, ``llm_raw_response``, ``domain`` (PlanBench's config name:
``blocksworld``, ``blocksworld_3``, ``mystery_blocksworld``, ``logistics``, …),
``task`` (``t1``/``task_1_plan_generation``…; else taken from the file name)
and PlanBench's verdict fields. The PDDL comes from a PlanBench ``instances``
folder: ``DIR/<domain>/generated_domain.pddl`` and
``DIR/<domain>/generated_basic/instance-N.pddl`` (see ``LAYOUTS``).

In three modules: ``planbench_instances`` (where PlanBench's PDDL lives, which task
a record is), ``planbench_tasks`` (what each task checks, read both ways) and this
one (files and records in; verdicts and the conformance report out).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import PlanprobeError
from ..pddl import PDDLSyntaxError
from ..suites.planbench.planbench_rules import PlanBenchReader
from .planbench_instances import PlanBenchInstances, task_id
from .planbench_tasks import SCORERS, TaskContext

__all__ = [
    "RULES",
    "ConformanceReport",
    "Rescore",
    "read_results",
    "rescore_file",
    "rescore_record",
]

RULES = ("planbench", "planbench-code", "planprobe")



@dataclass
class Rescore:
    """planprobe's verdict on one recorded response, next to PlanBench's."""

    instance_id: Any
    task: str
    planbench: bool | None
    planprobe: bool
    reason: str
    plan: list[str] | None = None
    unparsed: list[str] = field(default_factory=list)
    own: bool | None = None  # the verdict under planprobe's own reading rules
    exact: bool | None = None  # the verdict under PlanBench's rules (its reader, bug for bug)
    # PlanBench's recorded extraction (extracted_llm_plan; t3 also the parsed reference answer and
    # the three levels) equals what PlanBench's reader gives here; None: the record has none
    extraction: bool | None = None

    @property
    def agree(self) -> bool:
        return self.planbench is None or self.planbench == self.planprobe

    def to_dict(self) -> dict[str, Any]:
        return {"instance_id": self.instance_id, "planbench": self.planbench, "planprobe": self.planprobe,
                "reason": self.reason}


@dataclass
class ConformanceReport:
    file: str
    task: str
    domain: str
    results: list[Rescore]
    rules: str = "planbench"

    @property
    def instances(self) -> int:
        return len(self.results)

    @property
    def compared(self) -> int:
        return sum(r.planbench is not None for r in self.results)

    @property
    def agree(self) -> int:
        return sum(r.planbench is not None and r.agree for r in self.results)

    @property
    def disagreements(self) -> list[Rescore]:
        return [r for r in self.results if not r.agree]

    @property
    def agreement(self) -> float:
        return self.agree / self.compared if self.compared else 1.0

    @property
    def extraction_compared(self) -> int:
        """Records with a recorded extraction to compare with PlanBench's reader."""
        return sum(r.extraction is not None for r in self.results)

    @property
    def extraction_agree(self) -> int:
        return sum(bool(r.extraction) for r in self.results)

    @property
    def extraction_differs(self) -> list[Rescore]:
        return [r for r in self.results if r.extraction is False]

    def to_json(self) -> dict[str, Any]:
        return {
            "instances": self.instances, "agree": self.agree,
            "disagreements": [r.to_dict() for r in self.disagreements],
            "file": self.file, "task": self.task, "domain": self.domain, "rules": self.rules,
            "compared": self.compared,
            "planprobe_correct": sum(r.planprobe for r in self.results),
            "planbench_correct": sum(bool(r.planbench) for r in self.results),
            "extraction_compared": self.extraction_compared, "extraction_agree": self.extraction_agree,
            "extraction_differs": [r.instance_id for r in self.extraction_differs],
        }


# ---------------------------------------------------------------------------
# reading the files
# ---------------------------------------------------------------------------

def read_results(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) for each non-blank line of a JSONL(.gz) file."""
    path = Path(path)
    if not path.is_file():
        raise PlanprobeError(f"{path}: no such file")
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise PlanprobeError(f"{path}:{lineno}: not valid JSON: {exc.msg} (column {exc.colno})") from None
                if not isinstance(record, dict):
                    raise PlanprobeError(f"{path}:{lineno}: expected a JSON object per line")
                yield lineno, record
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise PlanprobeError(f"{path}: cannot read: {exc}") from None


def rescore_file(path: str | Path, instances: str | Path | PlanBenchInstances, rules: str = "planbench",
                 on_result: Callable[[Rescore], None] | None = None) -> ConformanceReport:
    """Re-score every response of a PlanBench results file (see the module docstring).
    ``rules``: ``"planbench"`` reads replies with PlanBench's own readers, bug for
    bug (``pddl.planbench_rules``: "X is no longer clear" states that X is clear,
    "both the X block and the Y block are on the table" one fact, …), as they
    read PlanBench's published results (t7 answers split at commas only);
    ``"planbench-code"`` as LLMs-Planning's code reads them today (t7 answers
    also split at " and "); ``"planprobe"`` with planprobe's own, more careful
    reader (``pddl.reply_parser``). PlanBench's and planprobe's verdicts are both
    computed; the other one is named in ``reason`` when it differs."""
    if rules not in RULES:
        raise PlanprobeError(f"rules {rules!r}: expected one of {', '.join(RULES)}")
    pb = instances if isinstance(instances, PlanBenchInstances) else PlanBenchInstances(instances)
    results: list[Rescore] = []
    task = domain = ""
    for lineno, record in read_results(path):
        where = f"{path}:{lineno}"
        for key in ("instance_id", "domain"):
            if key not in record:
                raise PlanprobeError(f"{where}: missing field {key!r}")
        rtask = task_id(record["task"]) if record.get("task") else task_id(Path(path).name)
        try:
            r = rescore_record(record, pb, rtask, rules)
        except PDDLSyntaxError:
            raise
        except PlanprobeError as exc:
            raise PlanprobeError(f"{where}: {exc}") from None
        task, domain = rtask, str(record["domain"])
        results.append(r)
        if on_result is not None:
            on_result(r)
    return ConformanceReport(str(path), task, domain, results, rules)


# ---------------------------------------------------------------------------
# one record
# ---------------------------------------------------------------------------

def rescore_record(record: dict[str, Any], pb: PlanBenchInstances, task: str | None = None,
                   rules: str = "planbench") -> Rescore:
    """planprobe's verdict on one PlanBench result record (``task``: taken from the
    record when not given; ``rules``: see ``rescore_file``)."""
    if rules not in RULES:
        raise PlanprobeError(f"rules {rules!r}: expected one of {', '.join(RULES)}")
    task = task_id(task or record.get("task", ""))
    domain = str(record["domain"])
    try:
        iid = int(record["instance_id"])
    except (TypeError, ValueError):
        raise PlanprobeError(f"instance_id {record['instance_id']!r}: expected a number") from None
    response = record.get("llm_raw_response") or ""
    if not isinstance(response, str):
        raise PlanprobeError("field 'llm_raw_response': expected a string")
    verdict_key = "llm_correct_binary" if task == "t3" else "llm_correct"
    planbench = record.get(verdict_key)
    problem = pb.problem(domain, iid, generalized=task == "t5")
    ctx = TaskContext(problem=problem, config=pb.translation(domain), response=response,
                   query=str(record.get("query") or ""), record=record, pb=pb, domain=domain, instance_id=iid,
                   rules=rules, reader=PlanBenchReader.for_config(domain, problem.domain))
    v = SCORERS[task](ctx)
    verdict = v.own if rules == "planprobe" else v.exact
    reason = v.reason
    if not response:
        reason += ("; the recorded response is empty: PlanBench skips such a record (its verdict, if any, "
                   "is from an earlier run)")
    return Rescore(iid, task, None if planbench is None else bool(planbench), verdict, reason, v.plan,
                   v.unparsed, v.own, v.exact, v.extraction)
