"""Compile (or remove) the mypyc build of the constraint family's hot modules; run by scripts/compile.

The extension files are written next to the .py files (build_ext --inplace), as one mypyc group
whose shared library is ``planprobe/suites/constraints/_native__mypyc.*.so``, and a stamp records
the SHA-256 of every compiled source so that a changed .py makes planprobe use the pure modules
(``planprobe.suites.constraints.native``). Any old build is removed first: a failed build leaves
the pure modules in use.

A build is cached per machine (``PLANPROBE_NATIVE_CACHE``, default ``~/.cache/planprobe/native``)
under a key made of the compiled sources' digests, the interpreter, mypyc and the C compiler, so a
fresh checkout of the same code (CI, a second worktree) copies it in seconds instead of compiling
for minutes. ``--or-pure`` (what ``scripts/setup`` runs) turns any failure into one line on stderr
and exit status 0: the pure modules stay in use and the details go to ``build/compile.log``.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from planprobe.suites.constraints import native


def clean() -> int:
    """Remove every compiled module, the group's shared library and the stamp; return how many files."""
    files = [f for module in native.COMPILED for f in native.compiled_files(module)]
    files += sorted(native.HERE.glob("_native__mypyc.*"))
    files += [native.HERE / native.STAMP] if (native.HERE / native.STAMP).exists() else []
    for f in files:
        f.unlink()
    return len(files)


class BuildError(Exception):
    """Why no compiled build is in use (one line)."""


def _fail(message: str) -> None:
    raise BuildError(message)


def compiler() -> str:
    """The C compiler setuptools will call: $CC when set, else the interpreter's own."""
    return (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]


def cache_key(mypyc_version: str) -> str:
    """What a build depends on: the compiled sources, the interpreter, mypyc and the C compiler."""
    parts = [mypyc_version, sys.version, platform.machine(), sysconfig.get_config_var("EXT_SUFFIX") or "",
             shutil.which(compiler()) or compiler(), *native.COMPILED,
             *(native.source_digest(module) for module in native.COMPILED)]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


def cache_dir() -> Path:
    return Path(os.environ.get("PLANPROBE_NATIVE_CACHE") or Path.home() / ".cache" / "planprobe" / "native")


def built_files() -> list[Path]:
    """The files a build writes into the package directory (extensions and the group's library)."""
    files = [f for module in native.COMPILED for f in native.compiled_files(module)]
    return files + sorted(native.HERE.glob("_native__mypyc.*"))


def _from_cache(key: str) -> bool:
    """Copy a cached build for ``key`` in (with its stamp); False when there is none."""
    entry = cache_dir() / key
    if not (entry / native.STAMP).is_file():
        return False
    clean()
    for f in entry.iterdir():
        shutil.copy2(f, native.HERE / f.name)
    return True


def _to_cache(key: str) -> None:
    """Keep this build for the next checkout of the same sources (best effort: a cache is optional)."""
    try:
        entry = cache_dir() / key
        tmp = entry.with_name(entry.name + f".tmp{os.getpid()}")
        tmp.mkdir(parents=True, exist_ok=True)
        for f in [*built_files(), native.HERE / native.STAMP]:
            shutil.copy2(f, tmp / f.name)
        if entry.exists():
            shutil.rmtree(tmp)
        else:
            tmp.rename(entry)
    except OSError:
        pass


def _probe() -> str:
    """Import the modules in a fresh interpreter: the status line, or BuildError if they do not load."""
    probe = ("import planprobe.suites.constraints.generator; "
             "from planprobe.suites.constraints import native; print(native.status()); "
             "raise SystemExit(len(native.in_use()) != len(native.COMPILED))")
    check = subprocess.run([sys.executable, "-c", probe], check=False, capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(SRC), native.PURE_ENV: ""})
    if check.returncode != 0:
        clean()
        _fail(f"the compiled modules do not load: {(check.stdout + check.stderr).strip()[-300:]}")
    return check.stdout.strip()


def _say(message: str) -> None:
    print(message, file=sys.stderr)


def build(use_cache: bool = True, say: Callable[[str], None] = _say) -> None:
    """Compile (or copy a cached build in); BuildError when no compiled build is in use after."""
    cc = compiler()
    if shutil.which(cc) is None:
        _fail(f"no C compiler ({cc}) on PATH")
    try:
        import mypy.version
        from mypyc.build import mypycify
        from setuptools import setup
    except ImportError as exc:
        _fail(f"{exc.name} is not installed: pip install -e '.[compile]'")
    key = cache_key(mypy.version.__version__)
    if use_cache and _from_cache(key):
        try:
            print(_probe() + f" (from the cache {cache_dir() / key})")
            return
        except BuildError:
            shutil.rmtree(cache_dir() / key, ignore_errors=True)  # a bad entry: build afresh
    clean()
    digests = {module: native.source_digest(module) for module in native.COMPILED}
    paths = [f"planprobe/suites/constraints/{module}.py" for module in native.COMPILED]
    say(f"compiling {len(paths)} constraint modules with mypyc {mypy.version.__version__} (about 4 minutes of CPU on 2 "
        f"cores; cached in {cache_dir()} for the next setup)")
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(SRC)  # module names come from the paths below src/
        try:
            # bodies of unannotated functions are checked as the project's mypy config does; any mypy
            # message, even a note, stops mypyc
            extensions = mypycify(["--check-untyped-defs", "--cache-dir", str(Path(tmp) / "m"), *paths], opt_level="3", group_name=native.GROUP,
                                  target_dir=str(Path(tmp) / "c"))
            setup(name="planprobe-native", ext_modules=extensions,
                  script_args=["-q", "build_ext", "--inplace", "--build-temp", str(Path(tmp) / "t"),
                               "--build-lib", str(Path(tmp) / "l")])
        finally:
            os.chdir(cwd)
    if {module: native.source_digest(module) for module in native.COMPILED} != digests:
        clean()
        _fail("a source changed while compiling; run scripts/compile again")
    stamp = {"mypyc": mypy.version.__version__, "python": sys.version.split()[0], "sources": digests}
    (native.HERE / native.STAMP).write_text(json.dumps(stamp, indent=1, sort_keys=True) + "\n")
    print(_probe())
    if use_cache:
        _to_cache(key)


LOG = Path(os.environ.get("PLANPROBE_COMPILE_LOG") or SRC.parent / "build" / "compile.log")


def build_or_pure() -> None:
    """``build``, any failure reduced to one line on stderr (the pure modules stay in use), the
    compiler's output kept in build/compile.log instead of the terminal."""
    LOG.parent.mkdir(parents=True, exist_ok=True)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            fd_out, fd_err = os.dup(1), os.dup(2)  # the C compiler writes to the descriptors themselves
            with LOG.open("w") as log:
                os.dup2(log.fileno(), 1)
                os.dup2(log.fileno(), 2)
                try:
                    # the one line before minutes of compiling goes to the terminal, not the log
                    build(say=lambda message: os.write(fd_err, f"setup: {message}\n".encode()) and None)
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os.dup2(fd_out, 1)
                    os.dup2(fd_err, 2)
                    os.close(fd_out)
                    os.close(fd_err)
    except BuildError as exc:
        print(f"setup: no compiled build ({exc}); the constraint modules run as pure Python "
              f"(about 1.8x slower generation; details: {LOG})", file=sys.stderr)
        return
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - mypyc, setuptools, the compiler: any failure is pure
        clean()
        print(f"setup: no compiled build ({type(exc).__name__}: {str(exc).strip()[-200:]}); the constraint "
              f"modules run as pure Python (details: {LOG})", file=sys.stderr)
        return
    finally:
        with LOG.open("a") as log:
            log.write(out.getvalue())
    lines = out.getvalue().strip().splitlines()
    print(f"setup: {lines[-1] if lines else 'compiled'}", file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clean", action="store_true", help="remove the compiled modules (back to pure Python)")
    ap.add_argument("--or-pure", action="store_true",
                    help="on any failure say so in one line and exit 0: the pure modules stay in use (scripts/setup)")
    ap.add_argument("--no-cache", action="store_true", help="compile even when a cached build of these sources exists")
    args = ap.parse_args()
    if args.clean:
        print(f"removed {clean()} files; the pure-Python modules are in use", file=sys.stderr)
    elif args.or_pure:
        build_or_pure()
    else:
        try:
            build(use_cache=not args.no_cache)
        except BuildError as exc:
            sys.exit(f"scripts/compile: {exc}; the pure-Python modules stay in use")


if __name__ == "__main__":
    main()
