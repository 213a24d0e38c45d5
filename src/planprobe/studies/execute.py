"""Running a study in its directory: check the directory, record the settings, run the
study's steps (each resumable), then write every figure to ``DIR/study.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import StudyContext, StudyOutcome, StudyStopped
from .directory import Identity, open_study_dir, study_json, write_study
from .registry import get_study


def run_study(directory: Path, identity: Identity, ctx: StudyContext) -> tuple[StudyOutcome | None, dict[str, Any]]:
    """Run (or resume) the study ``identity.study`` in ``directory``; returns its outcome (None
    when it stopped early on ``ctx.max_steps``) and the study.json written."""
    study = get_study(identity.study)
    settings = study.settings(identity.size)
    resumed = open_study_dir(directory, identity, settings)  # one line, nothing changed, if it is another study's
    if resumed:
        ctx.say(f"resuming the study in {directory}: finished steps are read back, not redone")
    write_study(directory, study_json(identity, study.paper, settings, None, "running"))
    try:
        outcome = study.run(ctx)
    except StudyStopped as stop:
        data = study_json(identity, study.paper, settings, None, "stopped")
        data["stopped"] = str(stop)
        write_study(directory, data)
        return None, data
    data = study_json(identity, study.paper, settings, outcome, "complete")
    write_study(directory, data)
    return outcome, data
