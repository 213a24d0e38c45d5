"""The ``planprobe`` command's root: builds the command tree top-down and turns every
failure into one line.

Each module under ``cli/`` exposes ``register(...)`` taking the Typer app (or group)
its commands go on; ``cli/lazy.py`` lists them in the order ``--help`` shows them and
calls a module's ``register`` only when one of its commands runs (start-up, issue #30).
No module under ``cli/`` imports this one, so each imports alone. The ``generate``
group is filled by the families themselves (``cli/generate.py``).

Every problem a user can cause ends in one line on stderr naming the file, line
or option, and a non-zero exit — never a traceback (``main`` turns file-system,
database and other failures into that line too; exit codes are in docs/format.md
and ``cli/common.py``). The consoles print text as it is: user text (file names,
run names, model output) is never read as rich markup or emoji codes.
"""

from __future__ import annotations

import sys

import typer

from ..errors import ContextLimitError, InfrastructureError, PlanprobeError
from ..version import __version__
from .common import (
    EXIT_ERROR,
    EXIT_INFRA,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    interrupt_reported,
    labelled,
    out_console,
    stop_exit_code,
    stop_on_sigterm,
    stopped_by,
)
from .lazy import LazyRoot


def _root(version: bool = typer.Option(False, "--version", help="Print the version and exit.")) -> None:
    if version:
        out_console.print(f"planprobe {__version__}")
        # which build generation runs on (scripts/compile)
        from ..suites.constraints import native

        out_console.print(native.status())
        raise typer.Exit()


def build_app() -> typer.Typer:
    """The whole command tree: the root's commands, then its groups."""
    root = typer.Typer(
        help="planprobe: test, benchmark and diagnose the planning of LLM agents with exact oracles.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
        cls=LazyRoot,
    )
    root.callback(invoke_without_command=True)(_root)
    # every command and group is listed from cli/lazy.py's table, in --help's order, and its
    # module imported only when it runs (each module's register() adds it then)
    return root


app = build_app()


def _fail(message: str, code: int = EXIT_ERROR) -> None:
    labelled("error:", message, style="red")
    sys.exit(code)


def main() -> None:
    """Entry point: typer reports usage errors itself; every other failure becomes one
    line on stderr and a non-zero exit. PLANPROBE_TRACEBACK=1 shows the traceback of an
    unexpected error."""
    import os
    import sqlite3

    from ..atomic import describe_os_error

    stop_on_sigterm()
    try:
        app()
    except SystemExit as exc:  # typer turns Ctrl-C into a silent exit 130: say it, once
        if exc.code == EXIT_INTERRUPTED:
            if not interrupt_reported:
                labelled("error:", stopped_by(), style="red")
            sys.exit(stop_exit_code())
        raise
    except (PlanprobeError, InfrastructureError, ContextLimitError) as exc:
        # a model failure that escapes a command (e.g. the judge's) is one line too: exit 3 for the
        # service, 2 for a prompt that does not fit the context window
        from ..models.redact import redact

        code = getattr(exc, "exit_code", EXIT_INFRA if isinstance(exc, InfrastructureError) else EXIT_ERROR)
        _fail(redact(str(exc)), code)
    except KeyboardInterrupt:
        _fail(stopped_by(), stop_exit_code())
    except BrokenPipeError:
        try:  # the reader went away (planprobe show … | head): nothing left to say
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        except OSError:
            pass
        sys.exit(1)
    except OSError as exc:
        where = exc.filename if exc.filename is not None else "a file"
        _fail(describe_os_error(where, exc, verb="use"))
    except sqlite3.Error as exc:
        _fail(f"run database: {exc}")
    except RecursionError:
        _fail("the input is nested too deeply to read")
    except MemoryError:
        _fail("out of memory")
    except Exception as exc:
        if os.environ.get("PLANPROBE_TRACEBACK"):
            raise
        _fail(f"internal error ({type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else '-'}); "
              "please report it — PLANPROBE_TRACEBACK=1 shows where", EXIT_INTERNAL)


if __name__ == "__main__":
    main()
