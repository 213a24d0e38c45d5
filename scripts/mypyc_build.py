"""Compile (or remove) the mypyc build of the constraint family's hot modules; run by scripts/compile.

The extension files are written next to the .py files (build_ext --inplace), as one mypyc group
whose shared library is ``planprobe/suites/constraints/_native__mypyc.*.so``, and a stamp records
the SHA-256 of every compiled source so that a changed .py makes planprobe use the pure modules
(``planprobe.suites.constraints.native``). Any old build is removed first: a failed build leaves
the pure modules in use.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
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


def _fail(message: str) -> None:
    sys.exit(f"scripts/compile: {message}")


def build() -> None:
    try:
        import mypy.version
        from mypyc.build import mypycify
        from setuptools import setup
    except ImportError as exc:
        _fail(f"{exc.name} is not installed: pip install -e '.[compile]' (or scripts/setup --compile)")
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        _fail(f"no C compiler ({cc}) on PATH; the pure-Python modules stay in use")
    clean()
    digests = {module: native.source_digest(module) for module in native.COMPILED}
    paths = [f"planprobe/suites/constraints/{module}.py" for module in native.COMPILED]
    print(f"compiling {len(paths)} modules with mypyc {mypy.version.__version__} (2-5 minutes on 2 cores)",
          file=sys.stderr)
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
    probe = ("import planprobe.suites.constraints.generator; "
             "from planprobe.suites.constraints import native; print(native.status()); "
             "raise SystemExit(len(native.in_use()) != len(native.COMPILED))")
    check = subprocess.run([sys.executable, "-c", probe], check=False, capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(SRC), native.PURE_ENV: ""})
    if check.returncode != 0:
        _fail(f"the compiled modules do not load: {(check.stdout + check.stderr).strip()[-500:]}")
    print(check.stdout.strip())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clean", action="store_true", help="remove the compiled modules (back to pure Python)")
    args = ap.parse_args()
    if args.clean:
        print(f"removed {clean()} files; the pure-Python modules are in use", file=sys.stderr)
    else:
        build()


if __name__ == "__main__":
    main()
