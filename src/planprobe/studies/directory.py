"""The study directory: one resumable directory per (study, model, agent, size, seed).

``DIR/study.json`` is written when the study starts (its identity and settings, status
"running") and rewritten when it ends (every table, every new figure with its 95% interval,
the plots' data, status "complete"). Every run, sweep and dissection lives under ``DIR`` in the
layout of the command that makes it (``planprobe sweep``'s, ``run``'s), so re-running the
study calls the same resumable library functions, which skip what is done.

A directory made for another study, model, agent, size or seed, or a non-empty directory that
is not a study's, is refused in one line before anything is written: nothing is lost.
No timestamps: the same study with the same seed writes the same bytes.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..atomic import write_text_atomic
from ..errors import PlanprobeError
from ..version import __version__
from .base import QUICK_NOTE, Setting, StudyOutcome

STUDY_FILE = "study.json"
STUDY_FORMAT = 1


@dataclass(frozen=True)
class Identity:
    """What makes two study runs the same study: a directory holds one."""

    study: str
    model: str | None
    agent: str
    size: str
    seed: int

    def describe(self) -> str:
        model = self.model or "no model"
        return f"study {self.study!r}, agent {self.agent}, model {model}, size {self.size}, seed {self.seed}"


def read_study(directory: Path) -> dict[str, Any]:
    """``DIR/study.json``, checked: one line naming the file when it is missing or not a study's."""
    path = Path(directory) / STUDY_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PlanprobeError(f"{path}: not found; is {directory} a directory made by 'planprobe study'?") from None
    except (OSError, ValueError) as exc:
        raise PlanprobeError(f"{path}: cannot be read ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != STUDY_FORMAT or not isinstance(data.get("identity"), dict):
        raise PlanprobeError(f"{path}: not a study file of this planprobe (format "
                             f"{data.get('format') if isinstance(data, dict) else None!r}, expected {STUDY_FORMAT})")
    return data


def _identity_of(data: dict[str, Any]) -> Identity:
    i = data["identity"]
    try:
        return Identity(str(i["study"]), i.get("model"), str(i["agent"]), str(i["size"]), int(i["seed"]))
    except (KeyError, TypeError, ValueError):
        raise PlanprobeError(f"{STUDY_FILE}: its identity is malformed ({i!r})") from None


def open_study_dir(directory: Path, identity: Identity) -> bool:
    """Check that ``directory`` may hold this study (new, empty, or this same study's); True when
    it resumes an earlier run. Raises a one-line PlanprobeError otherwise, having changed nothing."""
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise PlanprobeError(f"--out {directory}: is a file, not a directory")
    if (directory / STUDY_FILE).exists():
        found = _identity_of(read_study(directory))
        if found != identity:
            diff = [f for f in ("study", "model", "agent", "size", "seed")
                    if getattr(found, f) != getattr(identity, f)]
            raise PlanprobeError(f"--out {directory}: holds {found.describe()}; this command asks for "
                                 f"{', '.join(f'{f} {getattr(identity, f)!r}' for f in diff)}: use another --out "
                                 "(nothing was changed)")
        return True
    if directory.exists() and any(directory.iterdir()):
        raise PlanprobeError(f"--out {directory}: not empty and not a study directory (no {STUDY_FILE}); "
                             "use a new directory (nothing was changed)")
    return False


def study_json(identity: Identity, paper: str, settings: list[Setting], outcome: StudyOutcome | None,
               status: str) -> dict[str, Any]:
    data: dict[str, Any] = {
        "format": STUDY_FORMAT, "status": status, "study": identity.study, "paper": paper,
        "identity": asdict(identity), "planprobe_version": __version__,
        "comparable_with_paper": identity.size == "full",
        "settings": [s.to_json() for s in settings],
    }
    if identity.size != "full":
        data["note"] = QUICK_NOTE
    if outcome is not None:
        data["tables"] = [t.to_json() for t in outcome.tables]
        data["figures"] = [f for t in outcome.tables for f in t.figures()]
        data["plots"] = outcome.plots
        data["notes"] = outcome.notes
        data["runs"] = outcome.runs
    return data


def write_study(directory: Path, data: dict[str, Any]) -> None:
    Path(directory).mkdir(parents=True, exist_ok=True)
    write_text_atomic(Path(directory) / STUDY_FILE, json.dumps(data, indent=2, sort_keys=True) + "\n")
