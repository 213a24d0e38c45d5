"""Writing a file so that readers see the old version or the new one, never half of one.

Everything planprobe writes for the user (suites, reports, JUnit XML, plots) goes
through a unique temporary file created exclusively (``O_CREAT | O_EXCL |
O_NOFOLLOW``) next to the target, flushed to disk and renamed over it. A
prepared symlink in the target directory can therefore not redirect the write,
the rename replaces a symlink at the target instead of writing through it, two
writers never share a temporary file, and the temporary file is removed on any
failure (including Ctrl-C). Problems become one ``PlanprobeError`` line naming
the target.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from .errors import PlanprobeError


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


def describe_os_error(path: Path | str, exc: OSError, verb: str = "write") -> str:
    """One line for an OSError while touching ``path``: what failed and why."""
    reason = exc.strerror or str(exc)
    if isinstance(exc, IsADirectoryError) or (not isinstance(exc, FileNotFoundError) and Path(path).is_dir()):
        reason = "it is a directory"
    return f"cannot {verb} {path}: {reason}"


def _is_stream(path: Path) -> bool:
    """A target that is not a file to replace but a stream to write into: a device, a
    FIFO or a socket (``-o /dev/stdout``, a named pipe), or anything under /dev."""
    if str(path.absolute()).startswith("/dev/"):
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISBLK(mode)


def _text_or_binary(file: Path | int, binary: bool) -> IO[Any]:
    """Open ``file`` (a path or a descriptor to own) for writing: bytes, or UTF-8 text with ``\\n`` newlines."""
    if binary:
        return open(file, "wb")  # the callers close it (a with block or _discard)
    return open(file, "w", encoding="utf-8", newline="\n")


@contextmanager
def _stream_writer(path: Path, binary: bool) -> Iterator[IO[Any]]:
    try:
        handle = _text_or_binary(path, binary)
    except OSError as exc:
        raise PlanprobeError(describe_os_error(path, exc)) from None
    try:
        with handle:
            yield handle
    except OSError as exc:
        raise PlanprobeError(describe_os_error(path, exc)) from None


@contextmanager
def atomic_writer(path: Path | str, binary: bool = False) -> Iterator[IO[Any]]:
    """``with atomic_writer(p) as f: f.write(...)`` — ``p`` appears complete or not at all.
    A symlink at ``p`` is replaced, not written through; a device or pipe is written
    into directly (there is nothing to replace atomically)."""
    path = Path(path)
    parent = path.parent
    if path.is_dir():
        raise PlanprobeError(f"cannot write {path}: it is a directory")
    if _is_stream(path):
        with _stream_writer(path, binary) as stream:
            yield stream
        return
    try:
        parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=parent)
    except OSError as exc:
        raise PlanprobeError(describe_os_error(parent if not parent.is_dir() else path, exc)) from None
    tmp = Path(tmp_name)
    handle: IO[Any] | None = None
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; the result is an ordinary file
        handle = _text_or_binary(fd, binary)
        fd = -1  # the handle owns it now
        yield handle
        handle.flush()
        os.fsync(handle.fileno())
        handle.close()
        os.replace(tmp, path)
    except OSError as exc:
        _discard(fd, handle, tmp)
        raise PlanprobeError(describe_os_error(path, exc)) from None
    except BaseException:
        _discard(fd, handle, tmp)
        raise


def _discard(fd: int, handle: IO[Any] | None, tmp: Path) -> None:
    """Close what is still open (never a descriptor twice) and remove the temporary file."""
    try:
        if handle is not None:
            handle.close()  # a no-op when already closed
        elif fd >= 0:
            os.close(fd)
    except OSError:
        pass
    try:
        tmp.unlink()
    except OSError:
        pass


def write_text_atomic(path: Path | str, text: str) -> None:
    with atomic_writer(path) as out:
        out.write(text)


def write_bytes_atomic(path: Path | str, data: bytes) -> None:
    with atomic_writer(path, binary=True) as out:
        out.write(data)


def write_lines_atomic(path: Path | str, lines: Iterable[str], on_line=None) -> int:
    """Stream lines (without their newline) into ``path``; returns how many were written."""
    count = 0
    with atomic_writer(path) as out:
        for line in lines:
            out.write(line)
            out.write("\n")
            count += 1
            if on_line is not None:
                on_line(line)
    return count
