"""``judge --style apb`` over a run directory or an APB prediction file.

Either source becomes APB prediction records — the APB record as imported,
plus ``tested_model`` and ``model_response`` (the reply of the run's model, or
the one already in the file: the tested model is never called again). Each is
judged once and appended to an APB judgement file (the prediction record plus
``judge_model`` and ``judgement``) as soon as it is judged, so APB's own
``score`` reads the file and an interrupted judging resumes: records already
judged by the same judge model are skipped, as APB's runner skips them.
Records from a run also carry ``planprobe: {case_id, trial}`` (APB's scorer
ignores the key) so repeated trials stay apart, and ``prompts_sha256``: the
APB prompts file the tested model's messages were built from (at import).
Every judged row gets ``planprobe.judge_prompts_sha256``, the prompts file the
judge prompt came from; resuming with a different one is refused, so one file
never mixes two versions of APB's judge prompts.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import PlanprobeError
from ..importers.apb_prompts import ApbPrompts, load
from ..importers.apb_records import append_jsonl, iter_rows, iter_scored_rows
from ..models.base import Model
from ..runner.store import RunStore
from ..schema import TraceStatus
from ..suites.judged.apb_format import SPLITS
from ..suites.judged.spec import FAMILY, parse_spec
from .apb import JUDGE_MAX_TOKENS, judge_record

PREDICTIONS_NAME = "apb_predictions.jsonl"
JUDGEMENTS_NAME = "apb_judgements.jsonl"
FAILURES_NAME = "apb_judge_unreadable.jsonl"

Record = dict[str, Any]

BACKENDS = ("openai:", "litellm:", "local:")  # planprobe's model kinds whose name part is the model id


def apb_model_id(name: str) -> str:
    """The model id as APB writes it (``tested_model``, ``judge_model``): the id sent to the
    endpoint, without planprobe's backend prefix — ``openai:gpt-4o`` is ``gpt-4o`` — so APB's
    resume recognises planprobe's rows and planprobe's resume recognises APB's."""
    for prefix in BACKENDS:
        if name.startswith(prefix) and len(name) > len(prefix):
            return name[len(prefix):]
    return name


@dataclass
class Source:
    """Prediction records to judge, and what was left out on the way (with counts)."""

    records: list[Record] = field(default_factory=list)
    infra: int = 0  # run results that are infrastructure failures: no reply to judge
    not_apb: int = 0  # results of cases not imported under APB's protocol
    skipped: int = 0  # bad rows of a prediction file (--skip-invalid)
    unfinished: int = 0  # episodes that ended without a normal reply (time or iteration limit …)
    trials: int = 1  # replies per record in the run
    prompts_sha256: set[str] = field(default_factory=set)  # prompts files the cases were imported with

    def notes(self) -> list[str]:
        out = []
        if self.infra:
            out.append(f"{self.infra} result(s) left out: the model service failed, there is no reply to judge "
                       "(re-run the run's command)")
        if self.not_apb:
            out.append(f"{self.not_apb} result(s) left out: not APB cases imported with --protocol apb "
                       "(judge them with --style planprobe)")
        if self.skipped:
            out.append(f"{self.skipped} bad row(s) of the prediction file skipped (named above)")
        if self.unfinished:
            out.append(f"{self.unfinished} episode(s) ended without a normal reply (a time or iteration limit): "
                       "judged on what the model said, often nothing")
        if self.trials > 1:
            out.append(f"the run has {self.trials} trials per record and each counts as a record in APB's "
                       "scores (APB has one reply per record)")
        if len(self.prompts_sha256) > 1:
            out.append(f"the cases were imported with {len(self.prompts_sha256)} different APB prompts files "
                       f"(sha256 {', '.join(sorted(h[:12] for h in self.prompts_sha256))}): the replies answer "
                       "different prompts")
        return out

    def prompt_notes(self, judge: ApbPrompts) -> list[str]:
        """A note when the judge's prompts file is not the one the cases were imported with."""
        other = sorted(h[:12] for h in self.prompts_sha256 if h != judge.sha256)
        if not other:
            return []
        return [(f"the tested model's prompts came from a prompts.py with sha256 {', '.join(other)}, the judge's "
                 f"from {judge.path} (sha256 {judge.sha256[:12]}): two versions of APB's prompts")]


def key(record: Record) -> tuple[str, str, int, str]:
    """APB's resume key (id, tested model), plus the run's trial and case id when present
    (a repeated APB id imports as two cases)."""
    extra = record.get("planprobe")
    trial = extra.get("trial", 0) if isinstance(extra, dict) else 0
    case_id = extra.get("case_id", "") if isinstance(extra, dict) else ""
    return str(record.get("id")), apb_model_id(str(record.get("tested_model", ""))), int(trial), str(case_id)


def from_run(run_dir: Path) -> Source:
    """The run's APB cases as prediction records, in case order."""
    store = RunStore(run_dir)
    try:
        cases = {c.id: c for c in store.cases()}
        meta = store.meta()
        src = Source(trials=int(meta.get("trials") or 1))
        for trace, verdict in store.results():
            case = cases.get(trace.case_id)
            if case is None or case.family != FAMILY or parse_spec(case).protocol != "apb":
                src.not_apb += 1
                continue
            if verdict.infra:
                src.infra += 1
                continue
            if trace.status != TraceStatus.COMPLETED:
                src.unfinished += 1
            record = dict(parse_spec(case).apb or {})
            record["tested_model"] = apb_model_id(trace.model or str(meta.get("model") or "unknown"))
            record["model_response"] = trace.final_answer or ""
            record["planprobe"] = {"case_id": case.id, "trial": trace.trial}
            sha = case.meta.generator.get("apb_prompts_sha256") if case.meta.generator else None
            if isinstance(sha, str):
                record["planprobe"]["prompts_sha256"] = sha
                src.prompts_sha256.add(sha)
            src.records.append(record)
    finally:
        store.close()
    return src


def from_predictions(path: Path, skip_invalid: bool = False,
                     on_skip: Callable[[str], None] = lambda m: None) -> Source:
    src = Source()

    def skip(message: str) -> None:
        src.skipped += 1
        on_skip(message)

    src.records = [row.record for row in iter_rows(path, "predictions", skip_invalid, skip)]
    for record in src.records:
        extra = record.get("planprobe")
        if isinstance(extra, dict) and isinstance(extra.get("prompts_sha256"), str):
            src.prompts_sha256.add(extra["prompts_sha256"])
    return src


def same_model(written: Any, name: str) -> bool:
    """Whether a row's model field names this model (``openai:x`` and APB's ``x`` alike)."""
    return apb_model_id(str(written)) == apb_model_id(name)


def judged_keys(path: Path, judge_model: str) -> set[tuple[str, str, int, str]]:
    """Records already judged by this judge model (APB's resume rule)."""
    if not path.exists():
        return set()
    done = set()
    for row in iter_rows(path, "judgements"):
        if same_model(row.record.get("judge_model"), judge_model):
            done.add(key(row.record))
    return done


def check_judge_prompts(path: Path, judge_model: str, prompts: ApbPrompts) -> None:
    """Refuse to resume a judgement file whose rows by this judge model came from another
    prompts file (rows without the hash, e.g. from APB's own runner, are not checked)."""
    if not path.exists():
        return
    other: set[str] = set()
    for row in iter_rows(path, "judgements"):
        extra = row.record.get("planprobe")
        sha = extra.get("judge_prompts_sha256") if isinstance(extra, dict) else None
        if same_model(row.record.get("judge_model"), judge_model) and isinstance(sha, str) and sha != prompts.sha256:
            other.add(sha[:12])
    if other:
        raise PlanprobeError(f"{path}: records judged by {judge_model} with another APB prompts file (sha256 "
                             f"{', '.join(sorted(other))}; this one is {prompts.sha256[:12]}): judge into "
                             "another --out, or point --apb-code at the checkout used before")


def write_predictions(records: list[Record], path: Path) -> None:
    """APB's prediction file (the rows as its runner writes them), replacing any old one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)
    append_jsonl(tmp, records)
    tmp.replace(path)


async def judge_all(model: Model, records: list[Record], out: Path, failures: Path, *, max_tokens: int =
                    JUDGE_MAX_TOKENS, json_mode: bool = True, concurrency: int = 1,
                    on_row: Callable[[Record | None], None] = lambda r: None,
                    prompts: ApbPrompts | None = None) -> tuple[int, int]:
    """Judge ``records`` (already filtered for resume) in order of completion; returns
    (judged, unreadable). ``on_row`` gets each judged record, or None for an unreadable reply.
    ``prompts``: APB's texts (default: from ``$PLANPROBE_APB_CODE``)."""
    if concurrency < 1:
        raise PlanprobeError("--concurrency must be at least 1")
    texts = prompts or load()
    judge_id = apb_model_id(model.name)

    def stamped(record: Record) -> dict[str, Any]:
        extra = record.get("planprobe")
        return {**(extra if isinstance(extra, dict) else {}), "judge_prompts_sha256": texts.sha256}
    queue: asyncio.Queue = asyncio.Queue()
    for r in records:
        queue.put_nowait(r)
    counts = {"judged": 0, "unreadable": 0}

    async def worker() -> None:
        while True:
            try:
                record = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            result = await judge_record(model, record, texts, max_tokens=max_tokens, json_mode=json_mode)
            if result.judgement is None:
                failure = {"id": record.get("id"), "split": record.get("split"),
                           "tested_model": record.get("tested_model"), "judge_model": judge_id,
                           "problem": result.problem, "raw": result.raw, "planprobe": stamped(record)}
                append_jsonl(failures, [failure], ascii_only=True)  # a lone surrogate fits as an escape
                counts["unreadable"] += 1
                on_row(None)
                continue
            judged = dict(record)
            judged["judge_model"] = judge_id
            judged["judgement"] = result.judgement
            judged["planprobe"] = stamped(record)
            append_jsonl(out, [judged])
            counts["judged"] += 1
            on_row(judged)

    tasks = [asyncio.create_task(worker()) for _ in range(min(concurrency, max(1, len(records))))]
    try:
        await asyncio.gather(*tasks)
    finally:
        for t in tasks:
            t.cancel()
    return counts["judged"], counts["unreadable"]


def read_judgements(path: Path, skip_invalid: bool = False,
                    on_skip: Callable[[str], None] = lambda m: None) -> list[Record]:
    """Every row of an APB judgement file, as APB's scorer reads them (no de-duplication);
    ``skip_invalid``: see ``iter_scored_rows``."""
    return [row.record for row in iter_scored_rows(path, skip_invalid, on_skip)]


def apb_scores(run_dir: Path) -> dict[str, Any]:
    """APB's scores of the run, per judge model ({} when it was never judged --style apb)."""
    from .apb_score import score

    path = Path(run_dir) / JUDGEMENTS_NAME
    if not path.exists():
        return {}
    rows = read_judgements(path)
    return {judge: score([r for r in rows if str(r.get("judge_model")) == judge])
            for judge in sorted({str(r.get("judge_model")) for r in rows})}


def _prompt_hashes(rows: list[Record]) -> str:
    """'; APB prompts sha256 …' for the rows' judge (and tested-model) prompts files."""
    found: dict[str, set[str]] = {"judge_prompts_sha256": set(), "prompts_sha256": set()}
    for row in rows:
        extra = row.get("planprobe")
        for k, seen in found.items():
            if isinstance(extra, dict) and isinstance(extra.get(k), str):
                seen.add(extra[k][:12])
    judge, tested = found["judge_prompts_sha256"], found["prompts_sha256"]
    if not judge and not tested:
        return ""
    if judge == tested or not tested:
        return "; APB prompts sha256 " + ", ".join(sorted(judge))
    return (f"; APB prompts sha256 {', '.join(sorted(judge)) or '?'} (judge), "
            f"{', '.join(sorted(tested))} (tested model)")


def judgement_lines(run_dir: Path) -> list[str]:
    """One line per judge of the run (APB's accuracy overall and per split; planprobe's judged
    pass rate), for ``show`` and ``report``. Empty when the run was never judged."""
    from .apb_score import score
    from .run import LOG_NAME

    lines = []
    path = Path(run_dir) / JUDGEMENTS_NAME
    if path.exists():
        rows = read_judgements(path)
        for judge in sorted({str(r.get("judge_model")) for r in rows}):
            mine = [r for r in rows if str(r.get("judge_model")) == judge]
            summary = score(mine)
            parts = [f"{name} {100 * g['accuracy']:.1f}% (n={g['records']})" for name in ("overall", *SPLITS)
                     if (g := summary["groups"].get(name)) and g["accuracy"] is not None]
            lines.append(f"APB judged by {judge}: accuracy " + ", ".join(parts) + _prompt_hashes(mine)
                         + f"; details: planprobe apb score {path}")
    log = Path(run_dir) / LOG_NAME
    if log.exists():
        by_judge: dict[str, list[bool]] = {}
        for line in log.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
                by_judge.setdefault(str(row["identity"]["judge_model"]), []).append(bool(row["verdict"]["passed"]))
            except (ValueError, KeyError, TypeError):
                continue
        for judge, passed in sorted(by_judge.items()):
            lines.append(f"planprobe judge {judge}: judged pass rate {100 * sum(passed) / len(passed):.1f}% "
                         f"(n={len(passed)}); details: planprobe judge {run_dir}")
    return lines
