"""What a directory holds: its run directories (a ``run.sqlite``) and study directories (a
``study.json``), found by walking it. A page names a run by its path relative to the root,
and that name is only ever looked up in this catalogue, so no request can reach a file
outside the directory."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import PlanprobeError
from ..runner.store import DB_NAME
from ..studies.directory import STUDY_FILE

MAX_DEPTH = 6  # sweeps and studies nest runs a few levels deep; deeper is not a planprobe layout


@dataclass
class Catalog:
    root: Path
    runs: list[str] = field(default_factory=list)  # relative names, "." for the root itself
    studies: list[str] = field(default_factory=list)

    def run_dir(self, name: str) -> Path:
        if name not in self.runs:
            raise PlanprobeError(f"no run {name!r} in {self.root}")
        return self.root / name

    def study_dir(self, name: str) -> Path:
        if name not in self.studies:
            raise PlanprobeError(f"no study {name!r} in {self.root}")
        return self.root / name


def discover(root: Path) -> Catalog:
    """Every run and study under ``root`` (hidden folders and symlinked folders skipped), sorted."""
    root = Path(root)
    if not root.is_dir():
        raise PlanprobeError(f"{root}: not a directory")
    catalog = Catalog(root)
    base = len(root.parts)
    for here, dirs, files in os.walk(root):
        path = Path(here)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not (path / d).is_symlink())
        if len(path.parts) - base >= MAX_DEPTH:
            dirs[:] = []
        rel = path.relative_to(root).as_posix()
        if DB_NAME in files:
            catalog.runs.append(rel)
        if STUDY_FILE in files:
            catalog.studies.append(rel)
    catalog.runs.sort()
    catalog.studies.sort()
    return catalog
