"""API-Bank's initial databases (``init_database/*.json`` in API-Bank's folder), read with every
problem named by file and field. The family reads them whenever a level-1/2 case is judged (its
``World`` starts from them); ``planprobe import apibank`` reads them too, for each case's digest.

Nothing read here is evaluated: JSON only.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ...errors import PlanprobeError

DATABASE_DIR = "init_database"
# the databases API-Bank's level-1/2 APIs are declared over
DATABASES = ("Account", "Agenda", "Alarm", "Appointments", "Bank", "HealthData", "History", "Hotel",
             "ImageCaptioning", "Meeting", "QuestionAnswering", "Reminder", "Scenes", "SearchEngine",
             "SpeechRecognition", "Stock", "Symptom", "TimeSwitch", "Wiki")


def read_databases(root: Path) -> tuple[dict[str, Any], str]:
    """Every initial database, and a digest of their files (recorded in each case so a
    run notices when the databases change)."""
    folder = root / DATABASE_DIR
    if not folder.is_dir():
        raise PlanprobeError(f"{folder}: missing (API-Bank's initial databases)")
    dbs: dict[str, Any] = {}
    h = hashlib.sha256()
    for name in DATABASES:
        path = folder / f"{name}.json"
        if not path.is_file():
            raise PlanprobeError(f"{path}: missing (the {name} table of API-Bank's initial databases)")
        raw = path.read_bytes()
        h.update(name.encode() + b"\0" + raw + b"\0")
        try:
            dbs[name] = json.loads(raw)
        except ValueError as exc:
            raise PlanprobeError(f"{path}: not JSON ({str(exc)[:80]})") from None
    _check_tables(folder, dbs)
    return dbs, h.hexdigest()[:16]


def _check_tables(folder: Path, dbs: dict[str, Any]) -> None:
    """The shape each API relies on, so a damaged table is named here, not met mid-run."""
    shapes = {"ImageCaptioning": list}
    for name, value in dbs.items():
        want = shapes.get(name, dict)
        if not isinstance(value, want):
            raise PlanprobeError(f"{folder / (name + '.json')}: expected a JSON {'list' if want is list else 'object'}")
    for user, account in dbs["Account"].items():
        for key in ("password", "token", "email"):
            if not isinstance(account, dict) or key not in account:
                raise PlanprobeError(f"{folder / 'Account.json'}: account {user!r}: field '{key}' missing")
    for key in ("raw_documents", "tokenized_documents"):
        if key not in dbs["SearchEngine"]:
            raise PlanprobeError(f"{folder / 'SearchEngine.json'}: field '{key}' missing")
