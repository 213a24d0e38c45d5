"""Record/replay of model calls on disk.

Keyed by (model name, messages, tools, params): re-running a suite replays
every answer it has seen and costs no model calls. The key includes the trial
number, so repeated trials still get independent samples. Stored in one SQLite
file (default ``~/.cache/planprobe/model-calls.sqlite``); ``--no-cache`` turns
it off. Nothing secret is stored: keys are never part of a request body.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path
from typing import Optional

from ..schema import Message, ToolSpec, Usage
from .base import ChatParams, ChatResult, Model, canonical, message_json


def default_cache_path() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(root) / "planprobe" / "model-calls.sqlite"


class CachedModel:
    def __init__(self, inner: Model, path: Optional[Path] = None):
        self.inner = inner
        self.name = inner.name
        self.path = Path(path) if path else default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, response TEXT NOT NULL)")
        self.hits = self.misses = 0

    def key(self, messages: list[Message], tools: Optional[list[ToolSpec]], params: ChatParams) -> str:
        body = {
            "model": self.inner.name,
            "messages": message_json(messages),
            "tools": [t.to_openai() for t in tools or []],
            "params": params.key(),
        }
        return hashlib.sha256(canonical(body).encode()).hexdigest()

    async def chat(self, messages: list[Message], tools: Optional[list[ToolSpec]], params: ChatParams) -> ChatResult:
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
