"""A report over runs of two families (issue #29): each plot names the runs it draws, a family's
difficulty measures are plotted only with that family's runs, and each heading says what it holds."""

from __future__ import annotations

import html as html_lib
import re
from pathlib import Path

import pytest

from helpers import planprobe_here
from planprobe.report.data import load_run
from planprobe.report.html import render_report
from planprobe.report.plots import figures


def _ok(*args) -> None:
    r = planprobe_here(*args)
    assert r.returncode in (0, 1), r.stderr  # 1: a run with failures


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """A constraint run and an itinerary (TravelPlanner-like) run, both by the random agent."""
    tmp = tmp_path_factory.mktemp("mixed")
    _ok("generate", "constraints", "--n", "16", "--seed", "3", "--actions", "2-5", "-o", tmp / "c.jsonl", "-q")
    _ok("generate", "travel", "--n", "6", "--seed", "3", "-o", tmp / "t.jsonl", "-q")
    _ok("run", tmp / "c.jsonl", "--agent", "random", "--out", tmp / "plans", "-q")
    _ok("run", tmp / "t.jsonl", "--agent", "random", "--out", tmp / "trips", "-q")
    return [load_run(tmp / "plans"), load_run(tmp / "trips")]


def _legend_and_axis_texts(svg: str) -> list[str]:
    return [html_lib.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]


def _figure(page: str, key: str) -> str:
    return re.search(rf'<figure id="fig-{re.escape(key)}".*?</figure>', page, flags=re.DOTALL).group(0)


def test_each_plot_names_its_runs_and_draws_only_its_family(mixed):
    page = render_report(mixed)
    keys = re.findall(r'<figure id="fig-(pass-rate-by-[^"]+)"', page)
    assert keys and len(keys) == len(set(keys))
    for key in keys:
        figure = _figure(page, key)
        texts = _legend_and_axis_texts(figure)
        drawn = [name for name in ("plans", "trips") if name in texts]
        assert len(drawn) == 1, (key, texts)  # named, and never both families on one axis
        family = {"plans": "constraints", "trips": "itinerary"}[drawn[0]]
        caption = html_lib.unescape(re.search(r"<figcaption>(.*?)</figcaption>", figure, flags=re.DOTALL).group(1))
        assert family in caption and drawn[0] in caption, (key, caption)  # whose measure, and whose run
    # both families measure "constraints", and mean different things by it: a curve each, a figure each
    curve_axes = {(run.name, c.family, c.axis) for run in mixed for c in run.curves}
    assert ("plans", "constraints", "constraints") in curve_axes and ("trips", "itinerary", "constraints") in curve_axes
    assert len(keys) == len(curve_axes)


def test_exported_plot_files_keep_each_family_apart(mixed):
    keys = set(figures(mixed, "svg"))
    assert {"pass-rate-by-constraints-constraints", "pass-rate-by-itinerary-constraints",
            "pass-rate-by-itinerary-days", "pass-rate-by-constraints-actions"} <= keys
    one_family = set(figures(mixed[:1], "svg"))  # a report of one family keeps its short names
    assert "pass-rate-by-actions" in one_family and "pass-rate-by-constraints" in one_family


def test_headings_say_what_they_hold_and_name_the_run(mixed):
    page = render_report(mixed)
    headings = [html_lib.unescape(re.sub(r"<[^>]+>", "", h)) for h in re.findall(r"<h[234][^>]*>.*?</h[234]>", page)]
    assert not any(re.match(r"run \d+\b", h) for h in headings), headings
    # TravelPlanner's six figures sit under a heading that says so, for the run that has them
    tp = [h for h in headings if "TravelPlanner" in h]
    assert tp == ["trips: TravelPlanner's figures (its official evaluator, and --strict)"], headings
    section = page.split("TravelPlanner's figures", 1)[1].split("</ul>", 1)[0]
    assert "Final Pass Rate" in section
    # neither run has robustness variants: no robustness heading at all
    assert not any("robustness" in h.lower() for h in headings), headings
    # the paired comparison and the failures name runs by name
    assert "<td>plans → trips</td>" in page or "share no cases" in page


def test_robustness_lines_keep_their_own_heading(tmp_path: Path):
    from helpers import cases
    from planprobe.suites.io import write_suite
    from planprobe.suites.robust import parse_transforms, robustify

    write_suite([robustify(c, parse_transforms(["unsolvable"]), 0) for c in cases(8, seed=2)], tmp_path / "v.jsonl")
    _ok("run", tmp_path / "v.jsonl", "--agent", "random", "--out", tmp_path / "variants", "-q")
    data = load_run(tmp_path / "variants")
    assert any(line.startswith("refusal: precision") for line in data.robustness)
    assert not data.travelplanner
    page = html_lib.unescape(render_report([data]))
    assert "variants: robustness variants (refusals, broken tools, cost)" in page


def test_the_case_table_and_drill_down_name_runs_in_chromium(mixed, tmp_path):
    from urllib.parse import quote

    from test_html_report import browse, chromium

    exe = chromium()
    out = tmp_path / "mixed.html"
    out.write_text(render_report(mixed))
    trip = mixed[1].rows[0]["id"]
    dom = browse(exe, out.as_uri() + "#case=" + quote(trip, safe="") + "&trial=0", tmp_path / "profile",
                 "--virtual-time-budget=3000", "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    head = re.search(r'<table class="grid" id="case-table"><thead><tr>(.*?)</tr>', dom.stdout).group(1)
    assert re.findall(r"<th>([^<]*)</th>", head)[2:4] == ["plans", "trips"], head
    details = re.findall(r"<h3>([^<]*)</h3>", dom.stdout.split('id="detail"', 1)[1])
    assert any(h.startswith("trips: ") for h in details) and not any(re.match(r"run \d", h) for h in details), details
