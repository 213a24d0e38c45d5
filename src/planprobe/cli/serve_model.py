"""``planprobe serve-model solver``: the solver as an OpenAI-compatible endpoint on loopback."""

from __future__ import annotations

import typer

from ..errors import PlanprobeError
from ..option_checks import check
from .common import err_console


def serve_model(
    model: str = typer.Argument(..., help="The model to serve: solver (plans perfectly from what it is shown)."),
    port: int = typer.Option(8765, help="Port; 0: a free one (printed)."),
    host: str = typer.Option("127.0.0.1", help="Address to bind; loopback unless you mean otherwise."),
) -> None:
    """Serve a model as an OpenAI-compatible chat endpoint (…/v1/chat/completions), until Ctrl-C."""
    if model != "solver":
        raise PlanprobeError(f"serve-model {model!r}: only 'solver' can be served (docs/models.md, 'The solver')")
    check("--port", port, at_least=0, at_most=65535)
    from ..solver.endpoint import SolverServer

    try:
        server = SolverServer(host, port)
    except OSError as exc:
        raise PlanprobeError(f"serve-model: cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    err_console.print(f"serving the solver at {server.base_url} (e.g. --model openai:solver --base-url "
                      f"{server.base_url}); Ctrl-C stops it", highlight=False, markup=False, soft_wrap=True)
    print(server.base_url, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def register(app: typer.Typer) -> None:
    app.command("serve-model")(serve_model)
