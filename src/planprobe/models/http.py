"""A small HTTP/1.1 client for the one request the OpenAI-compatible backend makes: a JSON
POST to ``…/chat/completions``, one JSON reply (issue #30).

Why not the ``openai`` SDK: importing it costs ~0.6 s (its hundreds of type modules), more
than the rest of ``planprobe run``'s start-up, and each call spent ~2 ms of CPU in its
request building and httpx's connection pool — the harness's whole per-call cost, and the
cap at high concurrency on one core. planprobe sends a prepared body and parses the reply
itself (``reply.py``), so it needs neither. Connections are kept alive and reused, one pool
per event loop, with no cap of its own (the run's ``--concurrency`` is the cap).

The SDK stays the transport where this client would have to grow: an endpoint reached
through a proxy (``HTTPS_PROXY``/``HTTP_PROXY``/``ALL_PROXY`` not excluded by ``NO_PROXY``)
or a base URL carrying credentials (``user:pass@host``) — see ``needs_sdk``.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import socket
import zlib
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..version import __version__

DEFAULT_BASE_URL = "https://api.openai.com/v1"
STREAM_LIMIT = 1 << 20  # longest header block or chunk-size line read in one piece


class StatusError(Exception):
    """A reply with a status other than 2xx: its status, text and headers (lower-case names)."""

    def __init__(self, status: int, text: str, headers: dict[str, str]):
        super().__init__(f"HTTP {status}")
        self.status, self.text, self.headers = status, text, headers


class TransportError(Exception):
    """No reply: ``connecting`` when no connection could be made at all."""

    def __init__(self, reason: str, connecting: bool):
        super().__init__(reason)
        self.reason, self.connecting = reason, connecting


class TransportTimeout(Exception):
    """The transport's own deadline passed (the SDK's; this client relies on the caller's)."""


def needs_sdk(base_url: str) -> bool:
    """Whether this endpoint needs what only the SDK's transport does (a proxy, URL credentials)."""
    parts = urlsplit(base_url)
    if parts.username is not None or parts.password is not None:
        return True
    if not any(name.lower().endswith("_proxy") and name.lower() != "no_proxy" and value
               for name, value in os.environ.items()):
        return False  # no proxy set: the common case, decided without loading urllib.request (~0.1 s)
    from urllib.request import getproxies, proxy_bypass

    proxies = getproxies()
    if not (proxies.get(parts.scheme) or proxies.get("all")):
        return False
    return not proxy_bypass(parts.hostname or "")


@dataclass
class _Conn:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    def close(self) -> None:
        try:
            self.writer.close()
        except RuntimeError:  # its event loop has ended: the socket goes with the transport
            pass


@dataclass
class Pool:
    """Keep-alive connections to one endpoint, for one event loop."""

    url: str  # the full URL posted to
    key: str
    connect_timeout: float = 60.0
    _idle: list[_Conn] = field(default_factory=list)
    _head: bytes = b""

    def __post_init__(self) -> None:
        parts = urlsplit(self.url)
        self.scheme = parts.scheme
        self.host = parts.hostname or ""
        self.port = parts.port or (443 if self.scheme == "https" else 80)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        netloc = parts.netloc.rpartition("@")[2]
        self._head = (f"POST {path} HTTP/1.1\r\nHost: {netloc}\r\nAuthorization: Bearer {self.key}\r\n"
                      "Content-Type: application/json\r\nAccept: application/json\r\n"
                      f"Accept-Encoding: gzip, deflate\r\nUser-Agent: planprobe/{__version__}\r\n"
                      "Content-Length: ").encode("latin-1")

    async def post_json(self, body: dict[str, Any]) -> str:
        """The reply's text for a 2xx; ``StatusError`` otherwise; ``TransportError`` for no reply."""
        data = json.dumps(body, ensure_ascii=False).encode()
        request = self._head + str(len(data)).encode() + b"\r\n\r\n" + data
        conn = self._take()
        if conn is None:
            conn = await self._connect()
        try:
            conn.writer.write(request)
            status, headers, payload, keep = await _read_reply(conn.reader)
        except _Stale:
            # no reply after the request was sent: a dropped connection, reported (and retried by the
            # retry policy, recorded in the trace) — never re-sent here: the server may have acted on it.
            # An idle connection the server closed earlier is caught before sending (``_take``)
            conn.close()
            raise TransportError("connection dropped (closed before a reply)", False) from None
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError, zlib.error) as exc:
            conn.close()
            raise TransportError(f"connection dropped ({_describe(exc)})", False) from None
        except BaseException:  # cancelled (the request's deadline) mid-reply: the connection is unusable
            conn.close()
            raise
        if keep:
            self._idle.append(conn)
        else:
            conn.close()
        text = payload.decode("utf-8", errors="replace")
        if not 200 <= status < 300:
            raise StatusError(status, text, headers)
        return text

    def _take(self) -> _Conn | None:
        while self._idle:
            conn = self._idle.pop()
            if not conn.reader.at_eof() and not conn.writer.is_closing() and not _readable(conn):
                return conn
            conn.close()
        return None

    async def _connect(self) -> _Conn:
        context = _tls_context() if self.scheme == "https" else None
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(
                self.host, self.port, ssl=context, server_hostname=self.host if context else None,
                limit=STREAM_LIMIT), self.connect_timeout)
        except ConnectionRefusedError:
            raise TransportError("connection refused", True) from None
        except socket.gaierror as exc:
            raise TransportError(f"host name not found ({exc.strerror or exc})", True) from None
        except asyncio.TimeoutError:
            raise TransportError("connection timed out", True) from None
        except OSError as exc:  # includes TLS failures (ssl.SSLError)
            raise TransportError(f"cannot connect ({_describe(exc)})", True) from None
        return _Conn(reader, writer)

    async def close(self) -> None:
        idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()
        for conn in idle:
            try:
                await conn.writer.wait_closed()
            except (OSError, RuntimeError):
                pass


def _readable(conn: _Conn) -> bool:
    """An idle keep-alive connection with something to read has been closed by the server (its end
    of stream, or a TLS close) — asked of the socket itself, so it does not depend on whether the
    event loop has run since the close arrived."""
    sock = conn.writer.get_extra_info("socket")
    if sock is None:
        return False
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


class _Stale(Exception):
    """The connection ended before the first byte of a reply."""


async def _read_reply(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes, bool]:
    """(status, headers, body, whether the connection can be reused) of one reply."""
    while True:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as exc:
            if not exc.partial:
                raise _Stale from None
            raise
        except ConnectionResetError:  # reset before a byte of the reply: dropped
            raise _Stale from None
        lines = head.decode("latin-1").split("\r\n")
        version, _, rest = lines[0].partition(" ")
        status = int(rest[:3])
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if sep:
                headers[name.strip().lower()] = value.strip()
        if not 100 <= status < 200:  # an interim reply (100 Continue): the real one follows
            break
    keep = version == "HTTP/1.1" and headers.get("connection", "").lower() != "close"
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = await _read_chunked(reader)
    elif "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    else:  # the body runs to the end of the connection
        body, keep = await reader.read(), False
    encoding = headers.get("content-encoding", "").lower()
    if encoding in ("gzip", "deflate"):
        body = zlib.decompress(body, 47)  # 32 + 15: a gzip or zlib header, detected
    return status, headers, body, keep


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";", 1)[0].strip(), 16)
        if size == 0:
            while await reader.readuntil(b"\r\n") != b"\r\n":  # trailers, up to the empty line
                pass
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, asyncio.IncompleteReadError):
        return "the reply was cut short"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


_TLS: Any = None


def _tls_context() -> Any:
    """One verifying TLS context per process: the system's CAs, plus certifi's where installed
    (what the SDK used), so an endpoint it reached is reached here too."""
    global _TLS
    if _TLS is None:
        import ssl

        context = ssl.create_default_context()
        try:
            import certifi

            context.load_verify_locations(certifi.where())
        except (ImportError, OSError):
            pass
        _TLS = context
    return _TLS
