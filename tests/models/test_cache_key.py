"""The record/replay cache never answers for a different endpoint, model or model file."""

from __future__ import annotations

import asyncio
import os

import pytest

from http_faults import ScriptedServer, chat_reply
from planprobe.models import ModelOptions, make_model
from planprobe.models.base import ChatParams
from planprobe.models.cache import CachedModel
from planprobe.schema import Message

ASK = [Message(role="user", content="which server are you?")]


def ask(model):
    async def go():
        try:
            return await model.chat(ASK, None, ChatParams())
        finally:
            await model.aclose()
    return asyncio.run(go())


def served(url, cache, name="m"):
    return make_model(f"openai:{name}", ModelOptions(base_url=url, cache_path=cache))


def test_a_reply_recorded_from_one_server_is_not_replayed_for_another(tmp_path):
    cache = tmp_path / "cache.sqlite"
    with ScriptedServer(lambda i, b, h: chat_reply("from A")) as a, \
            ScriptedServer(lambda i, b, h: chat_reply("from B")) as b:
        assert ask(served(a.url, cache)).message.content == "from A"
        assert ask(served(b.url, cache)).message.content == "from B"  # same model name, other endpoint
        assert ask(served(b.url, cache, name="other")).message.content == "from B" and len(b.requests) == 2
        replay = ask(served(a.url, cache))  # the same endpoint and model: replayed, no request
        assert replay.cached and replay.message.content == "from A" and len(a.requests) == 1


class FileModel:
    """A stand-in for a local backend: answers with its file's content."""

    def __init__(self, path):
        self.path = path
        self.name = f"local:{path.stem}"
        self.calls = 0

    def identity(self):
        return {"backend": "local", "model_file": str(self.path.resolve())}

    async def chat(self, messages, tools, params):
        from planprobe.models.base import ChatResult

        self.calls += 1
        return ChatResult(message=Message(role="assistant", content=self.path.read_text()))

    async def aclose(self):
        pass


def test_two_model_files_with_the_same_name_never_share_answers(tmp_path):
    cache = tmp_path / "cache.sqlite"
    one, two = tmp_path / "a" / "model.gguf", tmp_path / "b" / "model.gguf"
    for path, text in ((one, "weights one"), (two, "weights two")):
        path.parent.mkdir()
        path.write_text(text)
    assert ask(CachedModel(FileModel(one), cache)).message.content == "weights one"
    assert ask(CachedModel(FileModel(two), cache)).message.content == "weights two"  # same name, other file
    again = FileModel(one)
    assert ask(CachedModel(again, cache)).cached and again.calls == 0
    one.write_text("weights ONE")  # the same path with new content (a re-download, a new quantization)
    os.utime(one, ns=(1, 1))
    changed = FileModel(one)
    assert ask(CachedModel(changed, cache)).message.content == "weights ONE" and changed.calls == 1


def test_a_model_file_is_hashed_once_while_unchanged(tmp_path, monkeypatch):
    path = tmp_path / "m.gguf"
    path.write_bytes(b"x" * 1000)
    first = CachedModel(FileModel(path), tmp_path / "cache.sqlite")
    digest = first.identity["model_file_sha256"]

    def no_reading(*args, **kwargs):
        raise AssertionError("the model file was hashed again")
    monkeypatch.setattr("planprobe.models.cache.open", no_reading, raising=False)
    assert CachedModel(FileModel(path), tmp_path / "cache.sqlite").identity["model_file_sha256"] == digest
    path.write_bytes(b"y" * 1001)  # changed: hashed again
    with pytest.raises(AssertionError, match="hashed again"):
        CachedModel(FileModel(path), tmp_path / "cache.sqlite")
