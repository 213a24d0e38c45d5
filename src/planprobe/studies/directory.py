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
from dataclasses import asdict, dataclass, replace
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
    params: str = ""  # the model settings that change results (run's model_params: temperature, max tokens)

    def describe(self) -> str:
        model = self.model or "no model"
        text = f"study {self.study!r}, agent {self.agent}, model {model}, size {self.size}, seed {self.seed}"
        return text + (f", model settings {self.params}" if self.params else "")


FIELDS = ("study", "model", "agent", "size", "seed", "params")
_OPTION = {"params": "model settings (--temperature/--max-tokens/--tool-results-as)"}


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
        return Identity(str(i["study"]), i.get("model"), str(i["agent"]), str(i["size"]), int(i["seed"]),
                        str(i.get("params", "")))
    except (KeyError, TypeError, ValueError):
        raise PlanprobeError(f"{STUDY_FILE}: its identity is malformed ({i!r})") from None


def open_study_dir(directory: Path, identity: Identity, settings: list[Setting] | None = None) -> bool:
    """Check that ``directory`` may hold this study (new, empty, or this same study's, made with the
    same model settings and the same study settings); True when it resumes an earlier run. Raises a
    one-line PlanprobeError otherwise, having changed nothing: resuming must not mix figures made
    under other settings into one table (as ``run`` refuses to resume with other settings)."""
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise PlanprobeError(f"--out {directory}: is a file, not a directory")
    if (directory / STUDY_FILE).exists():
        data = read_study(directory)
        found = _identity_of(data)
        if "params" not in data["identity"]:  # a study directory made before the model settings were stored
            found = replace(found, params=identity.params)
        if found != identity:
            diff = [f for f in FIELDS if getattr(found, f) != getattr(identity, f)]
            raise PlanprobeError(f"--out {directory}: holds {found.describe()}; this command asks for "
                                 f"{', '.join(f'{_OPTION.get(f, f)} {getattr(identity, f)!r}' for f in diff)}: use "
                                 "another --out (nothing was changed)")
        if settings is not None:
            _check_settings(directory, data.get("settings"), settings)
        return True
    if directory.exists() and any(directory.iterdir()):
        raise PlanprobeError(f"--out {directory}: not empty and not a study directory (no {STUDY_FILE}); "
                             "use a new directory (nothing was changed)")
    return False


def _check_settings(directory: Path, stored: Any, settings: list[Setting]) -> None:
    """The stored settings must be this study's now: a study whose sizes or settings changed (another
    planprobe) would otherwise resume its old suites into tables labelled with the new settings."""
    if not isinstance(stored, list):
        return
    old = {s.get("name"): s.get("value") for s in stored if isinstance(s, dict)}
    for s in settings:
        now = json.loads(json.dumps(s.value))  # as stored: tuples are lists
        if s.name in old and old[s.name] != now:
            raise PlanprobeError(f"--out {directory}: its study was made with {s.name} {old[s.name]!r}, this "
                                 f"planprobe runs it with {now!r}: use another --out (nothing was changed)")


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
