"""AgentDebug's own trajectory readers, loaded from its code for the tests that check planprobe's
output against them (planprobe itself never imports AgentDebug).

Where the code is: ``$PLANPROBE_AGENTDEBUG_CODE`` (a checkout of ulab-uiuc/AgentDebug, the folder
holding ``detector/``), else the bare clone the session's ``fetch`` leaves at MIRROR (its three
detector files are written out with ``git show``). Neither: the tests that need it skip.

The modules are imported by file path, in this test process only. Their module-level imports
are ``aiohttp`` (for their HTTP calls, which the readers never make: a stand-in is used when it
is not installed) and their sibling ``error_definitions``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

ENV_VAR = "PLANPROBE_AGENTDEBUG_CODE"
MIRROR = Path("/work/.mirror/ulab-uiuc+AgentDebug/repo")
FILES = ("error_definitions.py", "fine_grained_analysis.py", "critical_error_detection.py")


def _detector_dir(tmp: Path) -> Path | None:
    given = os.environ.get(ENV_VAR)
    if given:
        folder = Path(given) / "detector"
        return folder if all((folder / f).is_file() for f in FILES) else None
    if not MIRROR.is_dir():
        return None
    out = tmp / "agentdebug-detector"
    out.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        shown = subprocess.run(["git", "--git-dir", str(MIRROR), "show", f"HEAD:detector/{name}"],
                               capture_output=True, timeout=60)
        if shown.returncode != 0:
            return None
        (out / name).write_bytes(shown.stdout)
    return out


def _load(path: Path, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class AgentDebugReaders:
    """``parse_trajectory`` (stage 1's reader) and ``load_original_trajectory`` (stage 2's), each
    reading one trajectory per .json file as AgentDebug does; ``valid_types(module)`` from its
    error definitions."""

    def __init__(self, folder: Path, tmp: Path):
        # a real aiohttp, once imported, stays imported: dropping it from sys.modules would leave its
        # submodules behind, and the next `import aiohttp` (openai's) would see a package without them
        stub = importlib.util.find_spec("aiohttp") is None
        previous = sys.modules.get("error_definitions")
        try:
            if stub:
                sys.modules["aiohttp"] = types.ModuleType("aiohttp")  # the readers make no HTTP call
            sys.modules["error_definitions"] = _load(folder / "error_definitions.py", "error_definitions")
            stage1 = _load(folder / "fine_grained_analysis.py", "agentdebug_fine_grained_analysis")
            stage2 = _load(folder / "critical_error_detection.py", "agentdebug_critical_error_detection")
        finally:
            if stub:
                sys.modules.pop("aiohttp", None)
            if previous is not None:
                sys.modules["error_definitions"] = previous
            else:
                sys.modules.pop("error_definitions", None)
        config = {"api_key": "not-used", "model": "not-used", "base_url": "http://127.0.0.1:9"}
        self._stage1 = stage1.ErrorTypeDetector(config)
        self._stage2 = stage2.CriticalErrorAnalyzer(config)
        self._tmp = tmp
        self._n = 0

    def _file(self, trajectory: dict[str, Any]) -> str:
        self._n += 1
        path = self._tmp / f"trajectory-{self._n}.json"
        path.write_text(json.dumps(trajectory, ensure_ascii=False), encoding="utf-8")
        return str(path)

    def parse_trajectory(self, trajectory: dict[str, Any]) -> dict[str, Any]:
        return self._stage1.parse_trajectory(self._file(trajectory))

    def load_original_trajectory(self, trajectory: dict[str, Any]) -> dict[str, Any]:
        return self._stage2.load_original_trajectory(self._file(trajectory))

    def valid_types(self, module: str) -> list[str]:
        return [t for t in self._stage1.error_loader.get_valid_error_types(module) if t != "no_error"]

    def definition(self, module: str, name: str) -> str:
        return self._stage1.error_loader.definitions[module][name]["definition"]


def agentdebug_readers(tmp: Path) -> AgentDebugReaders | None:
    """The readers, or None when AgentDebug's code is not on this machine."""
    folder = _detector_dir(tmp)
    return None if folder is None else AgentDebugReaders(folder, tmp)


def require(readers: AgentDebugReaders | None) -> AgentDebugReaders:
    if readers is None:
        pytest.skip(f"AgentDebug's code not found (set {ENV_VAR} to a checkout of ulab-uiuc/AgentDebug)")
    return readers
