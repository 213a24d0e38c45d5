"""Record/replay of model calls on disk.

Keyed by what decides the answer: the backend's identity — for a server its
endpoint URL (without credentials or query) and model id, for a local model the
GGUF file's resolved path *and* its content hash, plus the prompt format — and
the request itself (messages, tools, params). So a reply recorded from one
server is never replayed for another, and two GGUF files with the same name
never share answers. The key includes the trial number, so repeated trials
still get independent samples. Stored in one SQLite file (default
``~/.cache/planprobe/model-calls.sqlite``); ``--no-cache`` turns it off.
Only successful replies are stored, after redaction; keys are never part of a
request body, so nothing secret is stored.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path
from typing import Any

from ..schema import Message, ToolSpec, Usage
from .base import ChatParams, ChatResult, Model, canonical, message_json

KEY_VERSION = 2  # 1: model name + request only


def default_cache_path() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(root) / "planprobe" / "model-calls.sqlite"


def model_identity(model: Model) -> dict[str, Any]:
    """The backend's own identity (``identity()``), or just its name for backends without one."""
    identity = getattr(model, "identity", None)
    return dict(identity()) if callable(identity) else {"name": model.name}


class CachedModel:
    def __init__(self, inner: Model, path: Path | None = None):
        self.inner = inner
        self.name = inner.name
        self.path = Path(path) if path else default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, response TEXT NOT NULL)")
        self.db.execute("CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, size INTEGER NOT NULL, "
                        "mtime_ns INTEGER NOT NULL, sha256 TEXT NOT NULL)")
        self.identity = model_identity(inner)
        if "model_file" in self.identity:
            self.identity["model_file_sha256"] = self.file_sha256(Path(self.identity["model_file"]))
        self.hits = self.misses = 0

    def file_sha256(self, path: Path) -> str:
        """The file's SHA-256, remembered by (path, size, mtime) so a multi-GB model is hashed once."""
        st = path.stat()
        row = self.db.execute("SELECT size, mtime_ns, sha256 FROM files WHERE path = ?", (str(path),)).fetchone()
        if row is not None and (row[0], row[1]) == (st.st_size, st.st_mtime_ns):
            return row[2]
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO files (path, size, mtime_ns, sha256) VALUES (?, ?, ?, ?)",
                            (str(path), st.st_size, st.st_mtime_ns, h.hexdigest()))
        return h.hexdigest()

    def key(self, messages: list[Message], tools: list[ToolSpec] | None, params: ChatParams) -> str:
        body = {
            "v": KEY_VERSION,
            "model": self.identity,
            "messages": message_json(messages),
            "tools": [t.to_openai() for t in tools or []],
            "params": params.key(),
        }
        return hashlib.sha256(canonical(body).encode()).hexdigest()

    async def chat(self, messages: list[Message], tools: list[ToolSpec] | None, params: ChatParams) -> ChatResult:
        key = self.key(messages, tools, params)
        row = self.db.execute("SELECT response FROM calls WHERE key = ?", (key,)).fetchone()
        if row is not None:
            self.hits += 1
            cached = ChatResult(message=Message.model_validate_json(row[0]), cached=True)
            cached.usage = Usage(cached_calls=1)
            return cached
        self.misses += 1
        result = await self.inner.chat(messages, tools, params)
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO calls (key, response) VALUES (?, ?)",
                            (key, result.message.model_dump_json()))
        return result

    async def aclose(self) -> None:
        self.db.close()
        await self.inner.aclose()
