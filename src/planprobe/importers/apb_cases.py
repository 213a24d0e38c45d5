"""APB records as cases run under APB's own protocol.

One record becomes one ``judged`` case whose system prompt is APB's
``PREDICT_SYSTEM`` and whose task is APB's user message text, character for
character (``apb_format.prediction_text``): the split's instruction, the tools,
the query and, for step-wise splits, the trajectory prefix, all as APB
serialises them — nothing clipped, renamed or normalised, so OpenCUA's
natural-language actions, FrameThinker's ``<action>`` text, recorded tool
outputs and ``optional``/``required`` flags reach the model exactly as APB
shows them. No tool is offered: the reply is the answer (holistic: plan +
tool chain; step-wise: the next steps; unsolvable: a refusal), and nothing is
executed. The record itself is kept verbatim in the spec, so predictions and
judgements are written back in APB's JSONL.

Files (``files: [{"path", "type"}]``) are resolved the way APB's runner does,
against the APB data directory: images become image content parts of the
user message (checked by SHA-256 at run time), text files are inlined into
``file_context`` (APB's 12,000-character cut; how much was cut is recorded
in the case's meta), other files are named. A path that does not exist, or no
data directory at all, gives APB's own "[Missing referenced file: …]" line; a
directory exists, as APB's ``exists()`` says, so it is named like any other file
(or refused where APB would crash reading it as an image or as text).
A path that leaves the data directory is refused. For a text-only model,
``attach_images=False`` (``--no-images``) names each image in ``file_context``
instead of attaching it — a deliberate change to APB's text, counted.

APB's prompt texts come from the user's checkout of APB's code (``apb_prompts``;
planprobe ships none); each case records the SHA-256 of the prompts file in
``meta.generator.apb_prompts_sha256``.
"""

from __future__ import annotations

import hashlib
import mimetypes
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import PlanprobeError
from ..schema import Case, CaseMeta, OracleKind
from ..suites.judged.apb_format import SPLIT_SETTINGS, SPLITS, prediction_text
from ..suites.judged.spec import FAMILY, SPEC_VERSION, ImageRef, JudgedSpec, check_spec
from .apb_prompts import ApbPrompts, load
from .apb_records import ApbRowError, iter_rows, skip_or_stop

MAX_TEXT_CHARS = 12000  # APB's --max-text-chars default
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".gif")
TEXT_SUFFIXES = (".txt", ".md", ".json", ".jsonl", ".csv", ".tsv", ".xml", ".html")


@dataclass
class ImportTally:
    """What the import changed or could not provide, so nothing goes unmentioned."""

    cases: int = 0
    skipped: int = 0
    duplicate_ids: int = 0
    files: int = 0
    images: int = 0
    images_withheld: int = 0
    text_files: int = 0
    missing_files: int = 0
    other_files: int = 0
    clipped_text_files: int = 0
    clipped_chars: int = 0
    files_not_a_list: int = 0
    by_split: dict[str, int] = field(default_factory=dict)

    def notes(self, data_dir: Path | None) -> list[str]:
        out = []
        if self.duplicate_ids:
            out.append(f"{self.duplicate_ids} record(s) repeat an earlier id: their case ids get '~LINE' "
                       "(the APB id is kept in the record)")
        if self.missing_files:
            where = f"not found under {data_dir}" if data_dir else "not available (no --data-dir)"
            out.append(f"{self.missing_files} of {self.files} referenced file(s) {where}: the model is told "
                       "'[Missing referenced file: …]', as APB's runner does")
        if self.images:
            out.append(f"{self.images} image(s) attached as image content parts (text-only models get a note "
                       "instead; see docs/judge.md)")
        if self.images_withheld:
            out.append(f"{self.images_withheld} image(s) not attached (--no-images): the model is told "
                       "'[Image not shown to this text-only model: …]' instead")
        if self.clipped_text_files:
            out.append(f"{self.clipped_text_files} text file(s) cut at {MAX_TEXT_CHARS} characters as APB does "
                       f"({self.clipped_chars} characters left out in all)")
        if self.files_not_a_list:
            out.append(f"{self.files_not_a_list} record(s) whose 'files' is not a list: no file given, as in APB")
        return out


def record_case(record: dict[str, Any], case_id: str, data_dir: Path | None, tally: ImportTally,
                file_name: str = "", lineno: int = 0, attach_images: bool = True,
                prompts: ApbPrompts | None = None) -> Case:
    """One checked APB record as a case under APB's protocol (``prompts``: APB's texts,
    default from ``$PLANPROBE_APB_CODE``)."""
    prompts = prompts or load()
    split = str(record["split"])
    file_context, images, clipped = _files(record.get("files"), data_dir, tally, attach_images)
    spec = JudgedSpec(
        version=SPEC_VERSION, settings=list(SPLIT_SETTINGS[split]), protocol="apb", apb=record, images=images,
        data_dir=str(data_dir.resolve()) if data_dir is not None and images else None,
        files=[i.path for i in images],
        source={k: record[k] for k in ("id", "split", "planning_regime", "task_category", "task_family", "source",
                                       "source_subset") if record.get(k) is not None},
    )
    generator: dict[str, Any] = {"importer": "apb", "protocol": "apb", "file": file_name, "line": lineno,
                                 "split": split, "apb_prompts_sha256": prompts.sha256}
    if clipped:
        generator["file_chars_cut"] = clipped
    topic = record.get("task_category")
    case = Case(
        id=case_id, family=FAMILY, task=prediction_text(record, prompts.texts, file_context),
        system=prompts["PREDICT_SYSTEM"],
        tools=[], oracle=OracleKind.JUDGED, spec=spec.model_dump(mode="json", exclude_defaults=True),
        meta=CaseMeta(topic=topic if isinstance(topic, str) and topic else None, generator=generator,
                      tags=["apb", split, "protocol:apb"] + (["has_images"] if images else [])),
    )
    check_spec(case, spec)
    return case


def _files(files: Any, data_dir: Path | None, tally: ImportTally,
           attach_images: bool = True) -> tuple[str, list[ImageRef], int]:
    """APB's file handling: (file_context text, images to attach, characters cut)."""
    if files in (None, "", []):
        return "", [], 0
    if not isinstance(files, list):
        tally.files_not_a_list += 1
        return "", [], 0
    blocks: list[str] = []
    images: list[ImageRef] = []
    cut = 0
    root = data_dir.resolve() if data_dir is not None else None
    for i, item in enumerate(files):
        if not isinstance(item, dict):
            continue
        rel = str(item.get("path") or "")
        if not rel:
            continue
        tally.files += 1
        full = _inside(root, rel, i) if root is not None else None
        if full is None or not full.exists():  # APB asks exists(): a directory is there, not missing
            tally.missing_files += 1
            blocks.append(f"[Missing referenced file: {rel}]")
            continue
        kind = str(item.get("type") or "").lower()
        suffix = full.suffix.lower()
        is_image = kind == "image" or suffix in IMAGE_SUFFIXES
        if not full.is_file() and (is_image or suffix in TEXT_SUFFIXES):
            raise ApbRowError(f"files[{i}].path", f"{rel!r} is not a file: APB's runner would stop reading it as "
                                                  + ("an image" if is_image else "text"))
        if is_image and not attach_images:
            blocks.append(f"[Image not shown to this text-only model: {rel}]")
            tally.images_withheld += 1
        elif is_image:
            data = full.read_bytes()
            mime = mimetypes.guess_type(full.name)[0] or "image/png"
            images.append(ImageRef(path=rel, mime=mime, sha256=hashlib.sha256(data).hexdigest()))
            tally.images += 1
        elif suffix in TEXT_SUFFIXES:
            text = full.read_text(encoding="utf-8", errors="replace")
            if len(text) > MAX_TEXT_CHARS:
                tally.clipped_text_files += 1
                tally.clipped_chars += len(text) - MAX_TEXT_CHARS
                cut += len(text) - MAX_TEXT_CHARS
            blocks.append(f"[File: {rel}]\n{text[:MAX_TEXT_CHARS]}")
            tally.text_files += 1
        else:
            blocks.append(f"[Referenced file available at: {rel}]")
            tally.other_files += 1
    return "\n\n".join(blocks), images, cut


def _inside(root: Path, rel: str, index: int) -> Path:
    full = (root / rel).resolve()
    if full != root and root not in full.parents:
        raise ApbRowError(f"files[{index}].path", f"{rel!r} points outside the data directory {root}")
    return full


def iter_apb_protocol(paths: Iterable[Path], data_dir: Path | None, splits: Iterable[str] | None = None,
                      skip_invalid: bool = False, on_skip: Callable[[str], None] = lambda msg: None,
                      tally: ImportTally | None = None, attach_images: bool = True,
                      prompts: ApbPrompts | None = None) -> Iterator[Case]:
    """Cases from APB split files, in file order; ``splits`` keeps only those splits.
    ``prompts``: APB's texts (default: from ``$PLANPROBE_APB_CODE``), needed before any row is read."""
    wanted = set(splits) if splits else None
    if wanted:
        unknown = sorted(wanted - set(SPLITS))
        if unknown:
            raise PlanprobeError(f"--split: unknown APB split {unknown[0]!r} (known: {', '.join(SPLITS)})")
    tally = tally if tally is not None else ImportTally()
    prompts = prompts or load()
    seen: set[str] = set()

    def skip(message: str) -> None:
        tally.skipped += 1
        on_skip(message)

    for path in paths:
        for row in iter_rows(path, "records", skip_invalid, skip):
            record = row.record
            if wanted and record["split"] not in wanted:
                continue
            case_id = f"apb-{record['id']}"
            if case_id in seen:
                case_id = f"{case_id}~{row.line}"
                tally.duplicate_ids += 1
            try:
                case = record_case(record, case_id, data_dir, tally, Path(path).name, row.line, attach_images,
                                   prompts)
            except ApbRowError as exc:
                skip_or_stop(f"{row.where}: field '{exc.field}': {exc.message}", skip_invalid, skip)
                continue
            except PlanprobeError as exc:
                skip_or_stop(f"{row.where}: {exc}", skip_invalid, skip)
                continue
            seen.add(case_id)
            tally.cases += 1
            tally.by_split[record["split"]] = tally.by_split.get(record["split"], 0) + 1
            yield case
