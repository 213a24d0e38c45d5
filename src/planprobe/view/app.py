"""The Starlette application: routes, the token, and the headers every response carries.

Security model (docs/view.md): the server listens on loopback only; every request must carry
the session's random token (``?token=`` once, then an HttpOnly same-site cookie) and name a
local host (no DNS rebinding), else 403; every store is opened read-only; every value reaches
the page through Jinja2's autoescaping or the page script's ``textContent``; and the
Content-Security-Policy lets only the script files this package serves run (no inline script,
no ``eval``, nothing from another origin).
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path
from typing import Any

from ..errors import PlanprobeError
from ..version import __version__
from .catalog import Catalog, discover

COOKIE = "planprobe_view"
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
# the study page shows the report's matplotlib SVGs, whose drawing uses style attributes (no script)
CSP_STUDY = CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
STATIC = {"view.js": ("planprobe.view", "static/view.js", "text/javascript"),
          "view.css": ("planprobe.view", "static/view.css", "text/css"),
          "report.css": ("planprobe.report", "templates/report.css", "text/css")}
LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]"}


def _headers(csp: str = CSP) -> dict[str, str]:
    return {"Content-Security-Policy": csp, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
            "X-Frame-Options": "DENY", "Cache-Control": "no-store", "Cross-Origin-Opener-Policy": "same-origin"}


def _num(value: Any) -> Any:
    """3.0 -> 3: difficulty measures are stored as floats."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _pct(value: Any) -> str:
    return "–" if value is None else f"{100 * float(value):.1f}%"


def build_app(root: Path, token: str):
    """The app over ``root``; ``token`` is the secret every request must carry."""
    import jinja2
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, Response
    from starlette.routing import Route

    from . import case, compare, runs  # noqa: F401  (imported now, so no page pays for the imports)

    env = jinja2.Environment(loader=jinja2.PackageLoader("planprobe.view", "templates"), autoescape=True,
                             undefined=jinja2.ChainableUndefined)  # stored data may lack any field
    env.filters["pct"] = _pct
    env.filters["num"] = _num
    for template in env.list_templates(extensions=["j2"]):
        env.get_template(template)  # compiled now, so no page pays for it
    root = Path(root).resolve()
    state: dict[str, Catalog] = {}

    def catalog(refresh: bool = False) -> Catalog:
        if refresh or "c" not in state:
            state["c"] = discover(root)
        return state["c"]

    def page(template: str, csp: str = CSP, status: int = 200, **context: Any) -> Response:
        html = env.get_template(template).render(version=__version__, root=str(root), root_name=root.name or str(root),
                                                **context)
        return HTMLResponse(html, status_code=status, headers=_headers(csp))

    def data(obj: Any) -> Response:
        body = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str)
        return Response(body, media_type="application/json", headers=_headers())

    def guarded(handler: Callable[[Request], Response]) -> Callable[[Request], Response]:
        """A missing name, run or case is a 404 page naming it, never a traceback."""
        def run(request: Request) -> Response:
            try:
                return handler(request)
            except PlanprobeError as exc:
                if request.url.path.startswith("/api/"):
                    return Response(json.dumps({"error": str(exc)}), 404, media_type="application/json",
                                    headers=_headers())
                return page("error.html.j2", status=404, message=str(exc))
        return run

    def runs_list(request: Request) -> Response:
        from .runs import run_head

        cat = catalog(refresh=True)
        return page("runs.html.j2", runs=[run_head(n, cat.run_dir(n)) for n in cat.runs], studies=cat.studies)

    def api_runs(request: Request) -> Response:
        from .runs import run_head

        cat = catalog(refresh=True)
        return data([run_head(n, cat.run_dir(n)) for n in cat.runs])

    def run_name(request: Request) -> tuple[str, Path]:
        name = request.query_params.get("r", "")
        try:
            return name, catalog().run_dir(name)
        except PlanprobeError:
            return name, catalog(refresh=True).run_dir(name)

    def run_view(request: Request) -> Response:
        from .runs import run_head

        name, d = run_name(request)
        return page("run.html.j2", head=run_head(name, d))

    def api_run(request: Request) -> Response:
        from .runs import run_page

        name, d = run_name(request)
        return data(run_page(name, d))

    def api_head(request: Request) -> Response:
        from .runs import run_head

        name, d = run_name(request)
        return data(run_head(name, d))

    def api_search(request: Request) -> Response:
        from .runs import search_cases

        _, d = run_name(request)
        return data(search_cases(d, request.query_params.get("q", "")))

    def case_view(request: Request) -> Response:
        from .case import case_page

        name, d = run_name(request)
        q = request.query_params
        try:
            trial = int(q.get("t", "0"))
            attempt = int(q["attempt"]) if q.get("attempt") else None
        except ValueError:
            raise PlanprobeError("t and attempt are numbers") from None
        info = case_page(d, q.get("c", ""), trial, attempt)
        return page("case.html.j2", run=name, trial=trial, attempt=attempt, info=info,
                    graph=info.get("graph"))

    def compare_view(request: Request) -> Response:
        from .compare import compare_page

        names = request.query_params.getlist("r")
        cat = catalog(refresh=True)
        return page("compare.html.j2", cmp=compare_page([(n, cat.run_dir(n)) for n in names]))

    def study_view(request: Request) -> Response:
        from markupsafe import Markup

        from ..report.study import plot_svg, table_html
        from ..studies.directory import read_study

        name = request.query_params.get("s", "")
        study = read_study(catalog(refresh=True).study_dir(name))
        # table_html and plot_svg escape every text they are given (report/study.py)
        return page("study.html.j2", CSP_STUDY, name=name, study=study,
                    tables=[Markup(table_html(t)) for t in study.get("tables", [])],
                    plots=[Markup(plot_svg(p)) for p in study.get("plots", [])])

    def static(request: Request) -> Response:
        entry = STATIC.get(request.path_params["name"])
        if entry is None:
            return Response("not found", 404, headers=_headers())
        package, path, media = entry
        text = files(package).joinpath(path).read_text(encoding="utf-8")
        return Response(text, media_type=media, headers=_headers())

    routes = [Route("/", guarded(runs_list)), Route("/api/runs", guarded(api_runs)),
              Route("/run", guarded(run_view)), Route("/api/run", guarded(api_run)),
              Route("/api/head", guarded(api_head)), Route("/api/search", guarded(api_search)),
              Route("/case", guarded(case_view)), Route("/compare", guarded(compare_view)),
              Route("/study", guarded(study_view)), Route("/static/{name}", static),
              Route("/favicon.ico", lambda request: Response(status_code=204, headers=_headers()))]
    return TokenGuard(Starlette(routes=routes), token)


class TokenGuard:
    """ASGI middleware: 403 for a request without the token (query or cookie) or for a host
    that is not this machine's loopback name; a good query token also sets the cookie, so the
    page's links, scripts and polls need not repeat it."""

    def __init__(self, app: Any, token: str) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        from starlette.requests import Request
        from starlette.responses import PlainTextResponse

        request = Request(scope)
        host = (request.headers.get("host") or "").rsplit(":", 1)[0]
        given = request.query_params.get("token")
        cookie = request.cookies.get(COOKIE)
        ok_query = given is not None and hmac.compare_digest(given.encode(), self.token.encode())
        ok_cookie = cookie is not None and hmac.compare_digest(cookie.encode(), self.token.encode())
        if host not in LOCAL_HOSTS or not (ok_query or ok_cookie):
            response = PlainTextResponse("403: open the URL 'planprobe view' printed (it carries the token)",
                                         status_code=403, headers=_headers())
            await response(scope, receive, send)
            return

        async def send_with_cookie(message: dict) -> None:
            if message["type"] == "http.response.start" and ok_query and not ok_cookie:
                headers = list(message.get("headers", []))
                headers.append((b"set-cookie", f"{COOKIE}={self.token}; HttpOnly; SameSite=Strict; Path=/".encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_cookie)
