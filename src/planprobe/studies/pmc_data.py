"""The data the PMC study runs on: TravelPlanner (the official validation split with its
database, or the 45 training queries) and API-Bank level 3, named by ``--travelplanner DIR``
and ``--api-bank DIR``. Neither is shipped with planprobe; a missing or wrong directory is one
line naming what to download. The source chosen is recorded in the study directory, so a
resumed study cannot mix two data sets.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..atomic import write_text_atomic
from ..errors import PlanprobeError

TP_DOWNLOAD = ("the validation split (validation.csv of the Hugging Face data set osunlp/TravelPlanner) beside "
               "TravelPlanner's database/ directory (github.com/OSU-NLP-Group/TravelPlanner, database.zip), or the "
               "45 training queries (train_queries_and_plans.jsonl and train_ref_info.jsonl of that data set)")
AB_DOWNLOAD = ("API-Bank's folder with test-data/level-3.json (github.com/AlibabaResearch/DAMO-ConvAI, api-bank/)")
TRAIN_FILES = ("train_queries_and_plans.jsonl", "train_ref_info.jsonl")
SPLIT_FILES = ("validation.csv", "validation.jsonl")
DATA_FILE = "pmc-data.json"


@dataclass(frozen=True)
class PMCData:
    """Where the study's data is: ``kind`` "training" or "validation"; the split file for
    "validation" (its database in ``database``); API-Bank's folder."""

    kind: str
    travelplanner: str
    split_file: str | None
    database: str | None
    api_bank: str

    @property
    def label(self) -> str:
        return "training set" if self.kind == "training" else "validation set"


def locate(travelplanner: Path | None, api_bank: Path | None) -> PMCData:
    """The data named by the options, checked: one line naming what to download otherwise."""
    if travelplanner is None:
        raise PlanprobeError(f"study pmc: --travelplanner DIR is required: {TP_DOWNLOAD}")
    tp = Path(travelplanner)
    if not tp.is_dir():
        raise PlanprobeError(f"--travelplanner {tp}: not a directory; expected {TP_DOWNLOAD}")
    split = next((tp / f for f in SPLIT_FILES if (tp / f).is_file()), None)
    if split is not None:
        if not (tp / "database").is_dir():
            raise PlanprobeError(f"--travelplanner {tp}: {split.name} found but no database/ directory beside it "
                                 "(github.com/OSU-NLP-Group/TravelPlanner, database.zip)")
        kind, database = "validation", str((tp / "database").resolve())
    elif all((tp / f).is_file() for f in TRAIN_FILES):
        kind, database = "training", None
    else:
        raise PlanprobeError(f"--travelplanner {tp}: neither {' nor '.join(SPLIT_FILES)} with database/, nor "
                             f"{' and '.join(TRAIN_FILES)}; expected {TP_DOWNLOAD}")
    if api_bank is None:
        raise PlanprobeError(f"study pmc: --api-bank DIR is required: {AB_DOWNLOAD}")
    if not (Path(api_bank) / "test-data" / "level-3.json").is_file():
        raise PlanprobeError(f"--api-bank {api_bank}: no test-data/level-3.json; expected {AB_DOWNLOAD}")
    return PMCData(kind=kind, travelplanner=str(tp.resolve()), split_file=str(split.resolve()) if split else None,
                   database=database, api_bank=str(Path(api_bank).resolve()))


def check_recorded(directory: Path, data: PMCData) -> None:
    """A study directory made on other data is refused (one line, nothing changed)."""
    path = Path(directory) / DATA_FILE
    if not path.exists():
        return
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PlanprobeError(f"{path}: cannot be read ({exc})") from None
    if found != asdict(data):
        raise PlanprobeError(f"--out {directory}: its study ran on other data ({path}: TravelPlanner "
                             f"{found.get('travelplanner')!r}, API-Bank {found.get('api_bank')!r}); use another --out "
                             "(nothing was changed)")


def record(directory: Path, data: PMCData) -> None:
    Path(directory).mkdir(parents=True, exist_ok=True)
    write_text_atomic(Path(directory) / DATA_FILE, json.dumps(asdict(data), indent=2, sort_keys=True) + "\n")


def from_options(data: dict[str, Any]) -> PMCData:
    tp, ab = data.get("travelplanner"), data.get("api_bank")
    return locate(Path(tp) if tp else None, Path(ab) if ab else None)
