"""``planprobe view`` in a real browser: Playwright driving Debian's Chromium (no browser download).

Opens the run list, a run, a case and a comparison; a hostile run (script tags and event
handlers in the task, the tool results and the model's replies) executes nothing; a run written
while its page is open shows its new results without a reload. The run page's screenshot is
the README's picture (docs/images/view.png).
"""

from __future__ import annotations

import shutil
import urllib.parse
from pathlib import Path

import pytest
from view_helpers import PAYLOAD, PMC_RUN, ViewServer, make_view_dir

CHROMIUM = "/usr/bin/chromium"
CONSOLE_ERRORS: list[str] = []  # script errors and Content-Security-Policy violations, from every page
SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "images" / "view.png"

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
    pytest.skip("Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    root = tmp_path_factory.mktemp("view") / "runs"
    root.mkdir()
    server = ViewServer(root)  # started first: it starts while the runs are made (it finds them per request)
    view_dir = make_view_dir(root)
    pw = sync_api.sync_playwright().start()
    browser = pw.chromium.launch(executable_path=CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium"),
                                 args=["--no-sandbox"])
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("console", lambda m: m.type == "error" and CONSOLE_ERRORS.append(m.text))
    page.on("pageerror", lambda e: CONSOLE_ERRORS.append(str(e)))
    page.goto(server.url)  # the token once: the cookie carries it from here on
    try:
        yield view_dir, server, page, dialogs
    finally:
        context.close()
        browser.close()
        pw.stop()
        server.stop()
        if view_dir.live is not None:
            view_dir.live.close()


def link(server, path: str, **params) -> str:
    return server.base + path + "?" + urllib.parse.urlencode(params, doseq=True)


def test_run_list_shows_each_run_with_its_pass_rate_and_progress(env):
    _view_dir, server, page, _ = env
    page.goto(server.base + "/")
    expect = sync_api.expect
    rand = page.locator('#runs tr[data-run="sweep/rand"]')
    expect(rand.locator(".c-agent")).to_have_text("random")
    expect(rand.locator(".c-family")).to_have_text("constraints")
    expect(page.locator('#runs tr[data-run="sweep/orac"] .c-rate')).to_contain_text("100.0% [")
    expect(rand.locator(".c-progress")).to_contain_text("12/12")
    page.click('#runs th[data-sort="rate"]')  # ascending, runs with no rate last
    expect(page.locator("#runs tbody tr").last).to_have_attribute("data-run", "live")
    page.click('#runs th[data-sort="rate"]')  # descending
    expect(page.locator("#runs tbody tr").first).to_have_attribute("data-run", "sweep/orac")
    page.fill("#run-filter", "oracle")
    expect(rand).to_be_hidden()
    expect(page.locator('#runs tr[data-run="sweep/orac"]')).to_be_visible()
    expect(page.locator("#studies a")).to_have_text("study")
    page.click("#studies a")
    expect(page.locator(".study-tables table tbody tr")).to_have_count(2)  # published beside the study's
    expect(page.locator(".study-tables")).to_contain_text("pass rate <b>by</b> agent")  # as text


def test_a_run_page_has_interactive_plots_and_a_filterable_case_table(env):
    view_dir, server, page, _ = env
    expect = sync_api.expect
    page.goto(link(server, "/run", r="sweep/rand"))
    expect(page.locator("#case-table tbody tr")).to_have_count(12)
    expect(page.locator("#plots figure")).not_to_have_count(0)
    point = page.locator("#plots figure g.pt").first
    point.hover()
    expect(page.locator("#tip")).to_contain_text("passed")  # the hover shows the counts
    expect(page.locator("#errors tbody tr")).not_to_have_count(0)
    page.select_option("#f-outcome", "pass")
    passed = int(page.locator("#passed-count").inner_text())
    expect(page.locator("#case-table tbody tr")).to_have_count(passed)
    page.select_option("#f-outcome", "")
    page.select_option("#f-class", "order_error")
    failed = 12 - passed
    expect(page.locator("#case-table tbody tr")).to_have_count(failed)  # the random agent only misorders
    page.select_option("#f-class", "")
    first = view_dir.suite[0]
    words = next(first.task[i:i + 30] for i in range(len(first.task))  # words of this task alone
                 if "\n" not in first.task[i:i + 30]
                 and sum(first.task[i:i + 30].lower() in c.task.lower() for c in view_dir.suite) == 1)
    page.fill("#f-text", words.upper())
    expect(page.locator("#case-table tbody tr")).to_have_count(1)
    expect(page.locator("#case-table tbody tr a")).to_have_text(first.id)

    page.goto(link(server, "/run", r="constraints-misread-after"))  # the README's picture
    expect(page.locator("#case-table tbody tr")).to_have_count(40)
    page.locator("#plots figure g.pt").nth(2).hover()
    expect(page.locator("#tip")).to_be_visible()
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT))
    assert SCREENSHOT.stat().st_size > 20_000


def test_a_case_shows_the_timeline_evidence_labels_and_its_rerollout(env):
    view_dir, server, page, _ = env
    expect = sync_api.expect
    case_id, trial = view_dir.labelled
    page.goto(link(server, "/case", r="sweep/rand", c=case_id, t=trial))
    expect(page.locator("h1")).to_contain_text(case_id)
    expect(page.locator("#task mark")).not_to_have_count(0)  # the clauses the verdict blames
    expect(page.locator("#evidence tbody tr")).not_to_have_count(0)
    expect(page.locator("#timeline .call")).not_to_have_count(0)
    e_step = view_dir.labels["critical"]["step"]
    marked = page.locator("#timeline .marked")
    expect(marked.first).to_contain_text("E")
    expect(marked.first).to_contain_text(f"step {e_step}")
    page.click("#attempts a")
    expect(page.locator("#origin")).to_contain_text("re-rollout 1 of")
    page.click("#origin a")
    expect(page.locator("h1")).not_to_contain_text("re-rollout")


def test_a_pmc_result_draws_its_subtask_graph(env):
    view_dir, server, page, dialogs = env
    expect = sync_api.expect
    case_id, trial = view_dir.labelled
    page.goto(link(server, "/case", r=PMC_RUN, c=case_id, t=trial))
    expect(page.locator("#graph svg rect")).to_have_count(2)
    expect(page.locator("#graph svg line")).to_have_count(1)  # s1 -> s2
    expect(page.locator("#graph")).to_contain_text("stay under <script>")  # as text
    assert page.evaluate("() => window.__pwned") is None and dialogs == []


def test_a_comparison_pairs_the_runs_with_mcnemar(env):
    _, server, page, _ = env
    expect = sync_api.expect
    page.goto(server.base + "/")
    page.check('#runs tr[data-run="sweep/rand"] input')
    page.check('#runs tr[data-run="sweep/orac"] input')
    page.click("#compare-form button")
    expect(page.locator("#pairs tbody tr")).to_have_count(1)
    expect(page.locator("#pairs .p-value")).not_to_be_empty()
    passed = page.locator("#paired tbody tr.flipped")
    expect(page.locator("#flipped-count")).to_contain_text(f"{passed.count()} of 12 flipped")
    assert passed.count() > 0


def test_a_hostile_run_executes_nothing(env):
    _view_dir, server, page, dialogs = env
    expect = sync_api.expect
    page.goto(server.base + "/")
    expect(page.locator('#runs tr[data-run="evil"] .c-agent')).to_have_text("hostile")
    expect(page.locator("#runs")).to_contain_text(PMC_RUN)  # a run named with markup is listed as text
    assert page.locator("#runs b").count() == 0 and page.evaluate("() => window.__pwned") is None
    page.get_by_text(PMC_RUN).click()
    expect(page.locator("h1")).to_have_text(PMC_RUN)
    page.goto(link(server, "/run", r="evil"))
    expect(page.locator("#case-table tbody tr")).to_have_count(3)
    page.select_option("#f-topic", PAYLOAD)  # the hostile topic is an option, as text
    expect(page.locator("#case-table tbody tr")).to_have_count(3)
    page.locator("#case-table tbody tr a").first.click()
    expect(page.locator("#task")).to_contain_text("<script>window.__pwned=1")
    expect(page.locator("#timeline")).to_contain_text("I reply <script>")  # the model's reply
    expect(page.locator("#timeline")).to_contain_text("final <script>")  # its final answer
    expect(page.locator("#timeline .result").last).to_contain_text("<img src=x")  # a tool result
    for where in (page,):
        assert where.evaluate("() => window.__pwned") is None
        assert where.locator("img, svg[onload], b").count() == 0  # nothing was built from the text
    assert dialogs == []


def test_a_run_written_while_its_page_is_open_shows_its_new_results(env):
    view_dir, server, page, _ = env
    expect = sync_api.expect
    page.goto(link(server, "/run", r="live"))
    expect(page.locator("#results-count")).to_have_text("0")
    expect(page.locator("#live")).to_be_visible()
    from planprobe.runner.store import RunStore

    with RunStore(view_dir.root / "sweep" / "rand") as done:
        results = list(done.results())[:5]
    assert view_dir.live is not None
    for trace, verdict in results:
        view_dir.live.add_result(trace, verdict)
    expect(page.locator("#results-count")).to_have_text("5")
    expect(page.locator("#case-table tbody tr")).to_have_count(5)
    page.goto(server.base + "/")
    expect(page.locator('#runs tr[data-run="live"] .c-progress')).to_contain_text("5/12")
    trace, verdict = list(RunStore(view_dir.root / "sweep" / "rand").results())[5]
    view_dir.live.add_result(trace, verdict)
    expect(page.locator('#runs tr[data-run="live"] .c-progress')).to_contain_text("6/12")


def test_no_page_broke_its_content_security_policy_or_threw(env):
    """Last: every page above ran its script without an error, and none of the package's own markup
    needed something the policy forbids (an inline script or style would show here)."""
    assert CONSOLE_ERRORS == []
