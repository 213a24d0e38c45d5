"""``planprobe import travelplanner``: a split (or the training directory) as a suite.

Either ``--train-dir`` (TravelPlanner's training files; sandbox rebuilt from the
reference information) or a split file with ``--database`` (the official
database directory). Everything is read and checked before the suite is written
(atomically), so bad input leaves nothing behind.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..errors import PlanprobeError
from ..schema import Case
from ..suites.io import write_suite
from ..suites.travelplanner.cases import MODES, make_case, sandbox_for, training_cases


def build_cases(*, modes: list[str], strict: bool, train_dir: Path | None = None, split_file: Path | None = None,
                database: Path | None = None, split: str | None = None,
                progress: Callable[[str], None] | None = None) -> list[Case]:
    for mode in modes:
        if mode not in MODES:
            raise PlanprobeError(f"--mode {mode!r}: expected one of {', '.join(MODES)}")
    cases: list[Case] = []
    if train_dir is not None:
        if split_file is not None or database is not None:
            raise PlanprobeError("--train-dir: give either the training directory or a split file with --database")
        return training_cases(train_dir, modes, strict)
    if split_file is None or database is None:
        raise PlanprobeError("give --train-dir DIR, or a split file (CSV/JSONL of the HF data set) with --database DIR")
    from .travelplanner_splits import load_split

    queries_o = load_split(Path(split_file))
    directory = str(Path(database).resolve())
    sandbox_for("database", directory, progress)
    name = split or Path(split_file).stem
    for mode in modes:
        for o in queries_o:
            if mode == "sole-planning" and o.reference_information is None:
                raise PlanprobeError(f"{split_file}: query {o.idx}: field 'reference_information' is missing "
                                     "(sole-planning gives it to the agent)")
            cases.append(make_case(split=name, idx=o.idx, mode=mode, fields=o.fields,
                                   sandbox={"kind": "database", "dir": directory}, plan=o.plan, strict=strict,
                                   reference_information=o.reference_information))
    return cases


def import_travelplanner(output: Path, **kwargs) -> int:
    cases = build_cases(**kwargs)
    return write_suite(cases, Path(output))
