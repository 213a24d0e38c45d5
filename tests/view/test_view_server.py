"""``planprobe view``'s server without a browser: the token and the host it answers, the
headers every response carries, read-only stores, every page of a directory, and the one line
that names the missing extra."""

from __future__ import annotations

import hashlib
import re
import sys
import urllib.parse

import pytest
from view_helpers import PAYLOAD, PMC_RUN, make_view_dir

from helpers import cli_here

pytest.importorskip("starlette", reason="the view extra is not installed (pip install 'planprobe[view]')")
from starlette.testclient import TestClient

from planprobe.cli.common import EXIT_ERROR
from planprobe.view.app import COOKIE, build_app

TOKEN = "secret-token-for-tests"
BASE = "http://127.0.0.1:8765"


@pytest.fixture(scope="module")
def view_dir(tmp_path_factory):
    return make_view_dir(tmp_path_factory.mktemp("viewsrv"), live=False)


@pytest.fixture()
def client(view_dir):
    with TestClient(build_app(view_dir.root, TOKEN), base_url=BASE) as c:
        yield c


def pages(view_dir) -> list[str]:
    case_id, trial = view_dir.labelled
    q = urllib.parse.urlencode
    return ["/", "/api/runs", "/run?r=sweep/rand", "/api/run?r=sweep/rand", "/api/head?r=evil",
            "/api/search?" + q({"r": "sweep/rand", "q": "the"}), "/case?" + q({"r": "sweep/rand", "c": case_id, "t": trial}),
            "/case?" + q({"r": "sweep/rand", "c": case_id, "t": trial, "attempt": 1}),
            "/case?" + q({"r": PMC_RUN, "c": case_id, "t": trial}),
            "/run?r=evil", "/case?" + q({"r": "evil", "c": "evil-0-\"'><img src=x onerror=\"window.__pwned=4\">", "t": 0}),
            "/compare?r=sweep/rand&r=sweep/orac&r=evil", "/study?s=study", "/static/view.js", "/static/report.css"]


def test_every_request_without_the_token_is_refused(client, view_dir):
    for path in pages(view_dir):
        assert client.get(path).status_code == 403, path
    client.cookies.set(COOKIE, "wrong")
    for path in pages(view_dir):
        assert client.get(path).status_code == 403, path
    assert client.get("/run?r=evil&token=" + TOKEN[:-1]).status_code == 403


def test_the_token_opens_the_pages_and_sets_a_strict_cookie(client, view_dir):
    first = client.get("/?token=" + TOKEN)
    assert first.status_code == 200
    cookie = first.headers["set-cookie"]
    assert f"{COOKIE}={TOKEN}" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    for path in pages(view_dir):
        r = client.get(path)
        assert r.status_code == 200, (path, r.text[:300])
        csp = r.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "default-src 'none'" in csp and "unsafe-eval" not in csp, path
        assert "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0]
        assert r.headers["x-content-type-options"] == "nosniff"
        if r.headers["content-type"].startswith("text/html"):
            assert "<script>" not in r.text and "onerror=\"" not in r.text, path  # no inline script at all
            # no markup from a run or its name
            assert not re.search(r"<(b|img|svg)[\s>]", r.text.replace("<b>reading:</b>", "")), path


def test_a_foreign_host_name_is_refused_even_with_the_token(view_dir):
    """A page on another site that resolves its own name to 127.0.0.1 (DNS rebinding) gets nothing."""
    with TestClient(build_app(view_dir.root, TOKEN), base_url="http://evil.example:8765") as c:
        assert c.get("/?token=" + TOKEN).status_code == 403


def test_hostile_text_is_escaped_in_every_page(client, view_dir):
    client.get("/?token=" + TOKEN)
    q = urllib.parse.urlencode({"r": "evil", "c": "evil-0-\"'><img src=x onerror=\"window.__pwned=4\">", "t": 0})
    html = client.get("/case?" + q).text
    assert "&lt;script&gt;window.__pwned=1" in html and PAYLOAD not in html
    assert "<img" not in html and "<svg onload" not in html
    assert "<b>" not in client.get("/study?s=study").text.replace("<b>reading:</b>", "")


def test_browsing_changes_nothing_in_any_run(client, view_dir):
    def snapshot() -> dict[str, str]:
        return {str(p.relative_to(view_dir.root)): hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted(view_dir.root.rglob("*")) if p.is_file()}

    before = snapshot()
    client.get("/?token=" + TOKEN)
    for path in pages(view_dir):
        assert client.get(path).status_code == 200
    assert snapshot() == before  # same files (no -wal, -shm or journal made), same bytes


def test_missing_names_are_404_pages_not_tracebacks(client):
    client.get("/?token=" + TOKEN)
    for path in ("/run?r=../../etc", "/run?r=nope", "/case?r=sweep/rand&c=nope", "/case?r=sweep/rand&c=x&t=z",
                 "/study?s=sweep", "/compare?r=sweep/rand", "/static/../app.py"):
        r = client.get(path)
        assert r.status_code in (404,), (path, r.status_code)


def test_a_missing_server_package_is_one_line_naming_the_extra(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # import uvicorn now raises ImportError
    code, _out, err = cli_here(capsys, monkeypatch, "view", str(tmp_path))
    assert code == EXIT_ERROR
    assert err.strip().splitlines() == ["error: planprobe view needs starlette and uvicorn: pip install 'planprobe[view]'"]


def test_a_missing_directory_is_one_line(capsys, monkeypatch, tmp_path):
    code, _, err = cli_here(capsys, monkeypatch, "view", str(tmp_path / "nope"))
    assert code == EXIT_ERROR and len(err.strip().splitlines()) == 1 and "not a directory" in err
