"""Keeping API keys out of everything planprobe stores or prints.

A server may echo the key back — whole in a 401 body ("invalid key sk-…"), or in
part ("sk-abc…xyz") — and a hostile one may put it into a reply. Every backend
registers the secrets it sends; ``redact`` replaces any run of 8 or more
characters that also occurs in a registered secret (the whole secret when it is
shorter) with ``[redacted]``. Backends apply it to every error message and reply
they hand on; the engine and the CLI apply it once more to what they record and
print, so a key reaches neither the run store, the cache, a trace nor stderr.
"""

from __future__ import annotations

import threading
from urllib.parse import urlsplit, urlunsplit

MASK = "[redacted]"
FRAGMENT = 8  # shortest part of a secret that counts as leaking it
_MIN_SECRET = 4  # shorter "keys" (placeholders like "none") are not secrets

_lock = threading.Lock()
_secrets: set[str] = set()
_windows: dict[int, set[str]] = {}  # fragment length -> every window of that length of every secret


def register_secret(secret: str | None) -> None:
    """Remember ``secret`` for the rest of the process (keys are few and small)."""
    if not secret or len(secret) < _MIN_SECRET or secret in _secrets:
        return
    with _lock:
        _secrets.add(secret)
        n = min(FRAGMENT, len(secret))
        _windows.setdefault(n, set()).update(secret[i:i + n] for i in range(len(secret) - n + 1))


def redact(text: str) -> str:
    """``text`` with every fragment of a registered secret masked (fast when none occurs)."""
    if not _secrets or not text:
        return text
    with _lock:
        windows = {n: set(w) for n, w in _windows.items()}
        secrets = list(_secrets)
    spans: list[tuple[int, int]] = []
    for n, grams in windows.items():
        i = 0
        while i + n <= len(text):
            if text[i:i + n] not in grams:
                i += 1
                continue
            end = i + n  # grow the match while it is still a substring of some secret
            while end < len(text) and any(text[i:end + 1] in s for s in secrets):
                end += 1
            spans.append((i, end))
            i = end
    if not spans:
        return text
    spans.sort()
    merged = [spans[0]]
    for start, end in spans[1:]:
        if start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    out, last = [], 0
    for start, end in merged:
        out.append(text[last:start])
        out.append(MASK)
        last = end
    out.append(text[last:])
    return "".join(out)


def public_url(url: str) -> str:
    """``url`` as it may be shown and stored: no user, password or query (which can hold keys)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        netloc = host + (f":{parts.port}" if parts.port is not None else "")
    except ValueError:
        return redact(url.split("?", 1)[0].rsplit("@", 1)[-1])
    return redact(urlunsplit((parts.scheme, netloc, parts.path, "", "")))
