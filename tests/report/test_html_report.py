"""The HTML report: self-contained, deterministic, and safe with hostile suite and model text.

The escaping test opens the report in a real headless Chromium (Debian's
``chromium``; ``scripts/setup test`` installs it where it can) and checks that
no injected script ran and the hostile text shows literally. Its screenshot is
kept in ``test-artifacts/``.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from helpers import cases, planprobe_cmd, subprocess_env
from planprobe.report.data import load_run
from planprobe.report.html import packed_json, render_report
from planprobe.runner.store import RunStore
from planprobe.schema import Case
from planprobe.suites.io import write_suite

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PAYLOAD = """<script>document.title='PWNED'</script>"'<img src=x onerror="document.title='PWNED'"><b>bold</b>&amp;"""
EVIL_ACTIVITY = "<script>document.title='PWNED'</script> \"juggling\" <b>knives</b>"

AGENT = textwrap.dedent('''
    from planprobe.schema import Message

    PAYLOAD = %r

    async def hostile(case, env):
        env.log(Message(role="assistant", content="I will now reply " + PAYLOAD))
        for tool in reversed(env.tools):  # the wrong order: order errors citing clauses
            env.step()
            env.call(tool.name, "{}")
        env.step()
        env.call(env.tools[0].name, "{not json " + PAYLOAD)  # and malformed arguments
        return "final " + PAYLOAD
''' % PAYLOAD)


def rename_activity(case: Case, k: int, new: str) -> Case:
    """Give action k a new name everywhere the task and tools say it, keeping the
    clause spans pointing at the same words."""
    spec = json.loads(json.dumps(case.spec))
    old = spec["actions"][k]["name"]
    task, spans, delta = case.task, spec["clauses"], len(new) - len(old)
    for was, now in ((old, new), (old[:1].upper() + old[1:], new[:1].upper() + new[1:])):  # as sentences start
        pos = task.find(was)
        while pos >= 0:
            task = task[:pos] + now + task[pos + len(was):]
            spans = [[s + delta if s > pos else s, e + delta if e > pos else e] for s, e in spans]
            pos = task.find(was, pos + len(now))
    spec["actions"][k]["name"], spec["clauses"] = new, spans
    tools = [t.model_copy(update={"description": t.description.replace(old, new)}) for t in case.tools]
    return case.model_copy(update={"task": task, "spec": spec, "tools": tools})


def hostile_suite(path: Path) -> list[Case]:
    out = []
    for i, case in enumerate(cases(4, seed=11)):
        case = rename_activity(case, 0, EVIL_ACTIVITY)
        case = case.model_copy(update={"id": f"evil-{i}-\"'><img src=x onerror=alert(1)>",
                                       "meta": case.meta.model_copy(update={"topic": PAYLOAD})})
        out.append(case)
    write_suite(out, path)
    return out


def make_run(tmp_path: Path, agent: str, suite: Path, name: str) -> Path:
    out = tmp_path / name
    r = subprocess.run(planprobe_cmd() + ["run", str(suite), "--agent", agent, "--out", str(out), "-q"],
                       capture_output=True, text=True, env=subprocess_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return out


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        message = "Debian's chromium is not installed (scripts/setup test installs it when run as root)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


def browse(exe: str, url: str, profile: Path, *extra: str) -> subprocess.CompletedProcess:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--hide-scrollbars", f"--user-data-dir={profile}", "--window-size=1280,2200"]
    return subprocess.run([exe, *flags, *extra, url], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    (tmp / "hostile_agent.py").write_text(AGENT)
    suite = tmp / "evil.jsonl"
    evil = hostile_suite(suite)
    run = make_run(tmp, f"python:{tmp / 'hostile_agent.py'}:hostile", suite, "run-<i>evil&\"")
    out = tmp / "report.html"
    r = subprocess.run(planprobe_cmd() + ["report", str(run), "-o", str(out)], capture_output=True, text=True,
                       env=subprocess_env())
    assert r.returncode == 0, r.stderr
    return tmp, out, evil


def test_hostile_text_is_escaped_in_the_file(hostile_report):
    _, out, _ = hostile_report
    html = out.read_text()
    # the only script elements are the report's own: its data block and its code
    assert len(re.findall(r"<script\b", html, flags=re.IGNORECASE)) == 2
    assert "<img" not in html and "<b>bold" not in html and "<b>knives" not in html
    assert "onerror=\"document" not in html
    # the CSP pins the one inline script by hash
    assert "script-src 'sha256-" in html and "default-src 'none'" in html


def test_hostile_text_shows_literally_and_no_script_runs_in_chromium(hostile_report):
    exe = chromium()
    tmp, out, evil = hostile_report
    url = out.as_uri() + "#case=" + __import__("urllib.parse").parse.quote(evil[0].id, safe="") + "&trial=0"
    dom = browse(exe, url, tmp / "profile-dom", "--virtual-time-budget=3000", "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    text = dom.stdout
    assert "<title>PWNED" not in text and "PWNED</title>" not in text
    assert "<title>planprobe report: run-&lt;i&gt;evil&amp;\"</title>" in text
    # the drill-down rendered (the report's script ran) and shows the hostile text as text
    assert 'id="detail"' in text and "Case evil-0-" in text
    assert "&lt;script&gt;document.title='PWNED'&lt;/script&gt; \"juggling\" &lt;b&gt;knives&lt;/b&gt;" in text
    assert "final &lt;script&gt;" in text  # the final answer
    assert "I will now reply &lt;script&gt;" in text  # the model reply
    assert "&lt;img src=x onerror=" in text  # tool arguments
    # no element was created from the data: the only <img>/<b> tags would be injected ones
    assert "<img" not in text and "<b>" not in text
    # the clause naming the hostile activity is highlighted, as text inside a <mark>
    assert re.search(r"<mark>[^<]*&lt;script&gt;document.title=", text)
    shot = browse(exe, url, tmp / "profile-shot", f"--screenshot={tmp / 'shot.png'}")
    assert shot.returncode == 0 and (tmp / "shot.png").stat().st_size > 10_000
    ARTIFACTS.mkdir(exist_ok=True)
    shutil.copy(tmp / "shot.png", ARTIFACTS / "report-hostile-drilldown.png")


def test_packed_data_cannot_close_the_script_element_and_round_trips():
    obj = {"a": "</script><script>alert(1)</script>", "b": "\u2028&"}
    text = packed_json(obj)
    assert re.fullmatch(r"[A-Za-z0-9+/=]*", text)
    assert json.loads(gzip.decompress(base64.b64decode(text))) == obj
    assert packed_json(obj) == text  # no timestamp inside: reports are byte-identical


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("two")
    suite = tmp / "s.jsonl"
    write_suite(cases(40, seed=5), suite)
    return tmp, make_run(tmp, "random", suite, "rand"), make_run(tmp, "oracle", suite, "orac")


def test_report_is_deterministic_self_contained_and_exports_plots(two_runs):
    tmp, a, b = two_runs
    for name in ("r1.html", "r2.html"):
        r = subprocess.run(planprobe_cmd() + ["report", str(a), str(b), "-o", str(tmp / name), "--plots",
                                              str(tmp / "plots"), "--plot-format", "png", "--plot-format", "svg"],
                           capture_output=True, text=True, env=subprocess_env())
        assert r.returncode == 0, r.stderr
    html = (tmp / "r1.html").read_bytes()
    assert html == (tmp / "r2.html").read_bytes()
    text = html.decode()
    assert not re.search(r"(src|href)=\"(https?:)?//", text)  # nothing fetched from anywhere
    assert "Paired comparison" in text and "pass-rate-by-actions" in text
    pngs = sorted(p.name for p in (tmp / "plots").glob("*.png"))
    assert "pass-rate-by-actions.png" in pngs and "errors.png" in pngs
    assert (tmp / "plots" / "errors.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp / "plots" / "pass-rate-by-actions.svg").read_text().lstrip().startswith("<?xml")


def test_report_data_has_curves_with_cis_and_highlights(two_runs):
    _, a, _ = two_runs
    run = load_run(a)
    actions = next(c for c in run.curves if c.axis == "actions")
    assert [p["x"] for p in actions.points] == sorted(p["x"] for p in actions.points)
    assert sum(p["cases"] for p in actions.points) == len(run.rows)
    for p in actions.points:
        assert 0 <= p["lo"] <= p["rate"] <= p["hi"] <= 1
    failed = [r for r in run.rows if not r["passed"]]
    assert failed and sum(run.errors.values()) == len(failed)
    # an order error cites constraints; their clauses are highlighted inside the task
    marked = [r for r in failed if r["marks"]]
    assert marked
    for r in marked:
        for s, e in r["marks"]:
            assert 0 <= s < e <= len(run.cases[r["id"]]["task"])


def test_half_finished_run_is_reported_with_a_note(two_runs, tmp_path):
    _, a, _ = two_runs
    half = tmp_path / "half"
    shutil.copytree(a, half)
    store = RunStore(half, write=True)
    with store.db:
        store.db.execute("DELETE FROM results WHERE rowid % 2 = 0")
    store.close()
    r = subprocess.run(planprobe_cmd() + ["report", str(half), "-o", str(tmp_path / "h.html")],
                       capture_output=True, text=True, env=subprocess_env())
    assert r.returncode == 0, r.stderr
    assert "not finished yet" in r.stderr
    assert "not finished yet" in (tmp_path / "h.html").read_text()


def test_older_format_and_missing_runs_get_one_line_errors(two_runs, tmp_path):
    _, a, _ = two_runs
    old = tmp_path / "old"
    shutil.copytree(a, old)
    store = RunStore(old, write=True)
    store.set_meta({"format": "0"})
    store.close()
    for target, expected in ((old, "older"), (tmp_path / "nope", "not found")):
        r = subprocess.run(planprobe_cmd() + ["report", str(target), "-o", str(tmp_path / "x.html")],
                           capture_output=True, text=True, env=subprocess_env())
        assert r.returncode == 2 and expected in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "x.html").exists()


def test_comparing_runs_of_disjoint_suites_says_why(two_runs, tmp_path):
    _tmp, a, _ = two_runs
    other = tmp_path / "o.jsonl"
    write_suite(cases(5, seed=99, actions=(6, 6)), other)
    b = make_run(tmp_path, "oracle", other, "other")
    runs = [load_run(a), load_run(b)]
    html = render_report(runs)
    assert "share no cases" in html or "no cases in common" in html


def test_report_of_robustness_variants_shows_calibration_and_highlights(tmp_path):
    from planprobe.suites.robust import parse_transforms, robustify

    suite = tmp_path / "v.jsonl"
    write_suite([robustify(c, parse_transforms(["unsolvable", "extraneous:1"]), 0) for c in cases(30, seed=2)],
                suite)
    run = make_run(tmp_path, "random", suite, "variants")
    data = load_run(run)
    assert any(line.startswith("refusal: precision") for line in data.robustness)
    assert any(r["marks"] for r in data.rows)  # the base family's clauses, highlighted in the variant's task
    assert "refusal: precision" in render_report([data])


def test_plots_name_runs_by_their_names_escaped(two_runs):
    import html as html_lib

    _, a, b = two_runs
    names = ["costs $5 and $6 <b>&", "_base"]  # mathtext, markup, and a label matplotlib would hide
    html = render_report([load_run(a, name=names[0]), load_run(b, name=names[1])])
    figures = re.findall(r'<figure id="fig-([^"]+)".*?</figure>', html, flags=re.DOTALL)
    assert "pass-rate-by-actions" in figures
    for key in ("pass-rate-by-actions", "errors"):
        svg = re.search(rf'<figure id="fig-{key}".*?</figure>', html, flags=re.DOTALL).group(0)
        texts = [html_lib.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
        shown = [n for n in names if n in texts]
        assert shown == (names if key != "errors" else names[:1]), (key, texts)  # the oracle has no failures
        assert not any(re.fullmatch(r"run \d+", t) for t in texts), texts
        assert "<b>&" not in svg  # the name is escaped in the SVG markup
