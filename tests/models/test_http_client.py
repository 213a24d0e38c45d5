"""planprobe's own HTTP/1.1 client for OpenAI-compatible endpoints (models/http.py, issue #30):
the reply framings a server may use (Content-Length, chunked, gzip, to the end of the
connection), keep-alive reuse, a server that closes an idle connection, and when the SDK's
transport is used instead (a proxy, URL credentials). A raw asyncio server on loopback."""

from __future__ import annotations

import asyncio
import gzip
import json

import pytest

from planprobe.models.http import Pool, StatusError, TransportError, needs_sdk

REPLY = json.dumps({"ok": "héllo"}).encode()


def _framed(kind: str) -> bytes:
    if kind == "length":
        return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(REPLY), REPLY)
    if kind == "chunked":
        parts = [REPLY[:5], REPLY[5:]]
        body = b"".join(b"%x;ext=1\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\nX-Trailer: t\r\n\r\n"
        return b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + body
    if kind == "gzip":
        z = gzip.compress(REPLY)
        return b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s" % (len(z), z)
    if kind == "to-close":
        return b"HTTP/1.0 200 OK\r\n\r\n" + REPLY
    if kind == "continue":
        return b"HTTP/1.1 100 Continue\r\n\r\n" + _framed("length")
    if kind == "error":
        return b"HTTP/1.1 429 Too Many\r\nRetry-After: 3\r\nContent-Length: 4\r\n\r\nslow"
    raise AssertionError(kind)


async def _serve(kinds: list[str], close_after: int | None = None):
    """A server answering the n-th request on any connection with kinds[n]; it closes a
    connection after ``close_after`` replies (None: keeps it). Returns (url, stats, server)."""
    stats = {"connections": 0, "requests": 0, "bodies": []}

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        stats["connections"] += 1
        served = 0
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length"))
                stats["bodies"].append(json.loads(await reader.readexactly(length)))
                kind = kinds[min(stats["requests"], len(kinds) - 1)]
                stats["requests"] += 1
                if kind == "drop":  # the request read, the connection closed without a reply
                    break
                writer.write(_framed(kind))
                await writer.drain()
                served += 1
                if kind == "to-close" or (close_after is not None and served >= close_after):
                    break
        except (asyncio.IncompleteReadError, ConnectionResetError):
            pass
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return f"http://127.0.0.1:{port}/v1/chat/completions", stats, server


@pytest.mark.parametrize("kind", ["length", "chunked", "gzip", "to-close", "continue"])
def test_each_reply_framing_is_read(kind):
    async def go():
        url, stats, server = await _serve([kind])
        pool = Pool(url, "k")
        try:
            texts = [await pool.post_json({"n": i, "text": "ü"}) for i in range(3)]
        finally:
            await pool.close()
            server.close()
        return texts, stats

    texts, stats = asyncio.run(go())
    assert [json.loads(t) for t in texts] == [{"ok": "héllo"}] * 3
    assert stats["bodies"] == [{"n": i, "text": "ü"} for i in range(3)]
    # one kept-alive connection, except where the reply ran to the end of its connection
    assert stats["connections"] == (3 if kind == "to-close" else 1)


def test_a_connection_the_server_closed_while_idle_is_replaced_without_a_failure():
    async def go():
        url, stats, server = await _serve(["length"], close_after=1)
        pool = Pool(url, "k")
        try:
            out = []
            for _ in range(3):
                out.append(await pool.post_json({}))
                await asyncio.sleep(0.05)  # the server's close reaches this side (or not: either way it works)
        finally:
            await pool.close()
            server.close()
        return out, stats

    out, stats = asyncio.run(go())
    assert len(out) == 3 and stats["requests"] == 3 and stats["connections"] == 3


def test_a_reused_connection_dropped_after_the_request_is_reported_not_sent_again():
    """The server read the request and closed without a reply (it may have acted on it): the
    caller's retry policy decides and records the retry; the client never re-sends on its own."""
    async def go():
        url, stats, server = await _serve(["length", "drop"])  # the second request, on the kept-alive connection
        pool = Pool(url, "k")
        try:
            await pool.post_json({})
            with pytest.raises(TransportError) as info:
                await pool.post_json({})
        finally:
            await pool.close()
            server.close()
        return info.value, stats

    err, stats = asyncio.run(go())
    assert not err.connecting and "closed before a reply" in err.reason
    assert stats["requests"] == 2  # sent once, not a third time on a fresh connection


def test_a_status_error_carries_its_status_body_and_headers():
    async def go():
        url, _stats, server = await _serve(["error"])
        pool = Pool(url, "k")
        try:
            with pytest.raises(StatusError) as info:
                await pool.post_json({})
        finally:
            await pool.close()
            server.close()
        return info.value

    err = asyncio.run(go())
    assert (err.status, err.text, err.headers["retry-after"]) == (429, "slow", "3")


def test_a_connection_cut_mid_reply_is_a_dropped_connection():
    async def go():
        async def handle(reader, writer):
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort")
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        pool = Pool(f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1/chat/completions", "k")
        try:
            with pytest.raises(TransportError) as info:
                await pool.post_json({})
        finally:
            await pool.close()
            server.close()
        return info.value

    err = asyncio.run(go())
    assert not err.connecting and "cut short" in err.reason


def test_the_sdk_transport_is_chosen_for_a_proxy_or_credentials_only(monkeypatch):
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy", "NO_PROXY",
                 "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert not needs_sdk("https://api.example.com/v1")
    assert needs_sdk("http://user:secret@127.0.0.1:8000/v1")
    monkeypatch.setenv("https_proxy", "http://proxy.example:3128")
    assert needs_sdk("https://api.example.com/v1")
    assert not needs_sdk("http://127.0.0.1:8000/v1")  # no proxy for http
    monkeypatch.setenv("no_proxy", "api.example.com")
    assert not needs_sdk("https://api.example.com/v1")
