"""End-to-end: the explorer in a real browser (Debian's chromium, driven by Playwright).

One ``streamlit run app.py`` per test session (per xdist worker) on a free port of
127.0.0.1, the built-in Example at its default size (2,000 documents). Tests that do not
depend on what the browser keeps share one browser context (its HTTP cache makes pages
load faster), each in its own tab; tests about local storage, and "open this link in a
fresh browser", make their own contexts. When a test fails, the end of the server's log
is attached to its report.

Checked: every page loads (by address, and through the top navigation) with its title and
without an exception or error box; widgets write the URL and the URL restores them; the
Share link round-trips and never carries documents; a tampered link is reset with one
warning and nothing injected; settings and pasted text are kept in the browser; no request
leaves 127.0.0.1; a screenshot of every page.
"""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from e2e_fixtures import LOG_TAIL
from e2e_server import PAGES, AppServer, open_app, wait_idle
from playwright.sync_api import expect

THRESHOLD = "Similarity threshold t"
NUM_PERM = "Signature length (number of hash functions)"


# -- helpers -------------------------------------------------------------------------------
def sidebar(page):
    return page.get_by_test_id("stSidebar")


def slider(page, label: str):
    return sidebar(page).locator(f'input[type="range"][aria-label="{label}"]')


def switch(page, label: str):
    return sidebar(page).get_by_role("switch", name=label, exact=True)


def radio(page, label: str):
    return sidebar(page).get_by_role("radio", name=label, exact=True)


def number(page, label: str):
    return sidebar(page).get_by_role("spinbutton", name=label, exact=True)


def flip(page, label: str) -> None:
    """Click a sidebar toggle (its input is visually hidden: click its label)."""
    switch(page, label).locator("xpath=ancestor::label[1]").click()


def choose(page, option: str) -> None:
    """Click a sidebar radio option (its input is visually hidden: click its label)."""
    radio(page, option).locator("xpath=ancestor::label[1]").click()


def nudge(page, label: str, key: str) -> None:
    """Move a sidebar slider one step with the keyboard."""
    slider(page, label).focus()
    page.keyboard.press(key)


def query_is(name: str, value: str) -> re.Pattern:
    return re.compile(rf"[?&]{re.escape(name)}={re.escape(value)}(&|$)")


def query(url: str) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlsplit(url).query).items()}


def title(page):
    return page.locator("h1").first


def paste_box(page):
    return page.get_by_role("textbox", name="Your documents")


def warnings(page):
    return page.get_by_test_id("stAlertContentWarning")


def share_link(page, *, containing: str | None = None) -> str:
    """Open the Share popover and read the link it shows (once it holds ``containing``:
    on a busy machine the popover can still show the previous run's link)."""
    sidebar(page).get_by_role("button", name="Share these settings").click()
    # the first code block is the link; the second, the nearsim dedup command
    code = page.get_by_test_id("stPopoverBody").get_by_test_id("stCode").first.locator("code")
    code.wait_for(state="visible")
    if containing is not None:
        expect(code).to_contain_text(containing)
    link = re.sub(r"\s+", "", code.inner_text())
    page.keyboard.press("Escape")
    return link


def problems_on(page) -> list[str]:
    """Exceptions and error boxes on the page (empty when all is well)."""
    found = [f"exception: {t}" for t in page.get_by_test_id("stException").all_inner_texts()]
    found += [f"error: {t}" for t in page.get_by_test_id("stAlertContentError").all_inner_texts()]
    return found


def assert_no_errors(page, where: str) -> None:
    found = problems_on(page)
    assert not found, f"{where}: {found}"


def assert_log_clean(server: AppServer) -> None:
    log = server.log()
    assert "Traceback" not in log, f"the server logged a traceback:\n{log[-LOG_TAIL:]}"


# -- every page by its address -------------------------------------------------------------
DRAWN = (
    '[data-testid="stMetric"], [data-testid="stVegaLiteChart"], [data-testid="stDataFrame"], '
    '[data-testid="stCode"], [data-testid="nearsimShingles"]'
)
"""What a view draws besides words: metrics, charts, tables, code, the MinHash page's list of
shingles."""


@pytest.mark.parametrize(("path", "heading", "_nav"), PAGES, ids=[n for _, _, n in PAGES])
def test_page_loads_by_address(app_server, page, path, heading, _nav, tmp_path):
    open_app(page, app_server.base + path)
    expect(title(page)).to_have_text(heading)
    assert urlsplit(page.url).path == path
    assert_no_errors(page, path)
    # the page drew more than its title: metrics, charts, tables, code or a shingle list
    assert page.get_by_test_id("stMain").locator(DRAWN).count()
    shot = tmp_path / (re.sub(r"\W+", "_", _nav).strip("_").lower() + ".png")
    page.screenshot(path=str(shot))  # the viewport: a full page re-lays out every chart
    assert shot.stat().st_size > 10_000
    assert_log_clean(app_server)


# -- every chart has room to draw its data -------------------------------------------------
_PLOT_HEIGHTS_JS = """
([canvas]) => Array.from(document.querySelectorAll('[data-testid="stVegaLiteChart"]')).map((c) => {
    // the root frame's background is the plot area (axes, titles and legends around it)
    const box = c.querySelector('g.role-frame.root > g > path.background')
        || (canvas ? c.querySelector('canvas') : null);
    return box ? box.getBoundingClientRect().height : -1;
})
"""


def plot_heights(page, *, canvas: bool = False) -> list[float]:
    """Height in pixels of the plot area of every chart on the page; -1 for a chart with
    no SVG plot area. Streamlit draws a chart of over 2,000 points on a canvas, where the
    plot cannot be told from the axes: with ``canvas``, such a chart counts the canvas's
    whole height."""
    return page.evaluate(_PLOT_HEIGHTS_JS, [canvas])


CHART_PAGES = [p for p in PAGES if p[0] in ("/", "/banding", "/results", "/compare")]


@pytest.mark.parametrize(("path", "heading", "_nav"), CHART_PAGES, ids=[n for *_, n in CHART_PAGES])
def test_every_chart_plot_is_taller_than_100_px(app_server, page, path, heading, _nav):
    """Issue 9, defect 4: the bit-share chart on Compare drew as a strip about 10 px high
    (an axis title longer than the plot squeezes a fitted chart)."""
    open_app(page, app_server.base + path)
    page.get_by_test_id("stVegaLiteChart").first.wait_for()
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=\"stVegaLiteChart\"] svg').length > 0"
    )
    heights = plot_heights(page)
    assert heights, f"{path}: no chart drawn"
    assert min(heights) > 100, f"{path}: plot heights {heights}"


_TAG_PLOTS_JS = """() => {
    const plots = [...document.querySelectorAll('[data-testid="stVegaLiteChart"] svg.marks')];
    plots.forEach((svg, i) => { svg.__kept = i + 1; });
    return plots.length;
}"""
_KEPT_PLOTS_JS = """() => [...document.querySelectorAll(
    '[data-testid="stVegaLiteChart"] svg.marks')].map(svg => svg.__kept || 0)"""


@pytest.mark.parametrize("auto_tune", ["false", "true"])
def test_a_threshold_step_swaps_the_s_curve_s_rows_in_without_building_it_again(
    app_server, page, auto_tune
):
    """Streamlit's frontend builds a chart again (Vega-Lite compile, Vega parse and layout)
    whenever its specification changes, and b, r and t were in the S-curve's legend: every
    step on Banding rebuilt it. The drawn plots must be the same elements after a step.

    A weak witness on its own: Vega can reuse a rebuilt chart's SVG element (here it did
    not, and the test fails on the old code). test_drawing checks the specifications' text,
    which is what the frontend compares."""
    url = f"{app_server.base}/banding?threshold=0.8&auto_tune={auto_tune}&bands=9&rows=13"
    open_app(page, url)
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=\"stVegaLiteChart\"] svg.marks').length > 1"
    )
    drawn = page.evaluate(_TAG_PLOTS_JS)
    nudge(page, THRESHOLD, "ArrowLeft")
    expect(page).to_have_url(query_is("threshold", "0.79"))
    wait_idle(page)
    assert_no_errors(page, "after a threshold step")
    assert page.evaluate(_KEPT_PLOTS_JS) == list(range(1, drawn + 1))


# -- the top navigation, and every request the pages make ----------------------------------
def _leaves(url: str, host: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme in ("data", "about"):
        return False
    if parts.scheme == "blob":  # blob:http://127.0.0.1:port/uuid is made by the page itself
        parts = urlsplit(parts.path)
    return parts.netloc != host


def test_top_navigation_reaches_every_page_and_nothing_leaves(app_server, new_context):
    """Click through every page of the top navigation in a fresh context (ending back on
    Documents), open the Share popover, and record every request on the way."""
    ctx = new_context()
    requests: list[tuple[str, str]] = []
    ctx.on("request", lambda r: requests.append((r.url, r.resource_type)))
    tab = ctx.new_page()
    open_app(tab, app_server.base + "/")
    nav = tab.get_by_test_id("stTopNav")
    for path, heading, label in PAGES[1:] + PAGES[:1]:
        nav.get_by_test_id("stTopNavLink").filter(has_text=label).first.click()
        tab.wait_for_url(app_server.base + path)
        expect(title(tab)).to_have_text(heading)
        wait_idle(tab)
        expect(title(tab)).to_have_text(heading)
        assert_no_errors(tab, f"{label} (through the navigation)")
    assert share_link(tab).startswith(app_server.base)
    assert_log_clean(app_server)

    assert len(requests) > 20, "too few requests recorded to mean anything"
    host = app_server.host
    leaving = sorted({(u, t) for u, t in requests if _leaves(u, host)})
    assert not leaving, f"requests to hosts other than {host}: {leaving}"


def test_no_request_at_all_leaves_the_machine(app_server, page):
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    open_app(page, app_server.base + "/banding")
    leaving = sorted({u for u in requests if _leaves(u, app_server.host)})
    assert not leaving, f"requests to hosts other than {app_server.host}: {leaving}"


# -- URL <-> widgets -----------------------------------------------------------------------
def test_widgets_write_the_url_and_the_url_restores_them(app_server, page, new_context):
    open_app(page, app_server.base + "/")
    expect(slider(page, THRESHOLD)).to_have_value("0.8")
    nudge(page, THRESHOLD, "ArrowRight")
    page.wait_for_url(query_is("threshold", "0.81"))
    wait_idle(page)

    expect(switch(page, "Remove punctuation")).not_to_be_checked()
    flip(page, "Remove punctuation")
    page.wait_for_url(query_is("remove_punctuation", "true"))
    wait_idle(page)
    assert query(page.url) == {"threshold": "0.81", "remove_punctuation": "true"}, page.url
    assert urlsplit(page.url).path == "/"
    assert_no_errors(page, "after moving widgets")

    # the URL alone (a fresh context has nothing stored) brings the state back
    fresh = new_context().new_page()
    open_app(fresh, page.url)
    expect(slider(fresh, THRESHOLD)).to_have_value("0.81")
    expect(switch(fresh, "Remove punctuation")).to_be_checked()
    expect(title(fresh)).to_have_text("Documents")
    assert query(fresh.url) == query(page.url), fresh.url
    expect(warnings(fresh)).to_have_count(0)
    assert_no_errors(fresh, "restored from the URL")


def test_address_bar_uses_the_links_values_for_choices(app_server, page):
    open_app(page, app_server.base + "/banding?shingle_kind=word")
    expect(radio(page, "words")).to_be_checked()
    assert query(page.url) == {"shingle_kind": "word"}, page.url

    choose(page, "Paste")
    expect(radio(page, "Paste")).to_be_checked()
    wait_idle(page)
    assert query(page.url) == {"shingle_kind": "word", "source": "paste"}, page.url
    page.reload()
    title(page).wait_for()
    wait_idle(page)
    expect(warnings(page)).to_have_count(0)


# -- Share link ----------------------------------------------------------------------------
def test_share_link_round_trips_in_a_fresh_browser(app_server, page, new_context):
    open_app(page, app_server.base + "/banding?threshold=0.7&shingle_kind=word&shingle_k=3")
    k = number(page, NUM_PERM)
    k.fill("64")
    k.press("Enter")
    page.wait_for_url(query_is("num_perm", "64"))
    wait_idle(page)
    flip(page, "Pick bands and rows for me")  # manual banding: bands and rows join the link
    page.wait_for_url(query_is("auto_tune", "false"))
    page.wait_for_url(re.compile(r"[?&]bands=\d+"))
    wait_idle(page)

    link = share_link(page, containing="bands=")
    assert link.startswith(app_server.base), link
    assert urlsplit(link).path in ("", "/banding"), link
    shared = query(link)
    bands, rows = int(shared.pop("bands")), int(shared.pop("rows"))
    assert shared == {
        "threshold": "0.7",
        "shingle_kind": "word",
        "shingle_k": "3",
        "num_perm": "64",
        "auto_tune": "false",
    }, link
    assert bands * rows <= 64
    expect(number(page, "Bands b")).to_have_value(str(bands))
    expect(number(page, "Rows per band r")).to_have_value(str(rows))

    fresh = new_context().new_page()
    open_app(fresh, link)
    expect(slider(fresh, THRESHOLD)).to_have_value("0.7")
    expect(radio(fresh, "words")).to_be_checked()
    expect(number(fresh, "Shingle length (characters or words)")).to_have_value("3")
    expect(number(fresh, NUM_PERM)).to_have_value("64")
    expect(switch(fresh, "Pick bands and rows for me")).not_to_be_checked()
    expect(number(fresh, "Bands b")).to_have_value(str(bands))
    expect(number(fresh, "Rows per band r")).to_have_value(str(rows))
    expect(warnings(fresh)).to_have_count(0)
    assert_no_errors(fresh, "opened from the Share link")
    assert share_link(fresh) == link


def test_share_link_and_url_never_carry_documents(app_server, page):
    open_app(page, app_server.base + "/")
    choose(page, "Paste")
    box = paste_box(page)
    box.wait_for()
    secret = "Zebra quartz moonlit harbour 7731"
    box.fill(f"{secret} first document\n{secret} second document\nsomething else entirely")
    box.press("Control+Enter")
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("3")
    wait_idle(page)
    link = share_link(page)
    for needle in ("zebra", "quartz", "moonlit", "7731", "something", "document"):
        assert needle not in link.lower(), f"the Share link carries document text: {link}"
        assert needle not in page.url.lower(), f"the address carries document text: {page.url}"
    assert query(link) == {"source": "paste"}, link
    assert_no_errors(page, "paste")


# -- tampered links ------------------------------------------------------------------------
TAMPERED = "?num_perm=-5&bands=abc&threshold=2&source=%3Cscript%3E"
INJECTION = (
    "?shingle_kind=%3Cimg%20src%3Dx%20onerror%3D%22window.__pwned%3D1%22%3E"
    "&hash_seed=%5Bx%5D(javascript%3Awindow.__pwned%3D2)"
    "&n_docs=%3Cb%3Ebold%3C%2Fb%3E"
)


def test_tampered_link_resets_with_one_warning(app_server, page):
    open_app(page, app_server.base + "/" + TAMPERED)
    expect(warnings(page)).to_have_count(1)
    text = warnings(page).first.inner_text()
    for name in ("num_perm", "bands", "threshold", "source"):
        assert name in text, f"the warning does not name {name}: {text}"
    # the reset values are the defaults, and the app works on them
    expect(number(page, NUM_PERM)).to_have_value("128")
    expect(slider(page, THRESHOLD)).to_have_value("0.8")
    expect(radio(page, "Example")).to_be_checked()
    expect(title(page)).to_have_text("Documents")
    assert_no_errors(page, "tampered link")
    # the markup arrived as text, not as an element
    assert page.evaluate("document.querySelectorAll('#root script').length") == 0
    assert "<script>" not in page.get_by_test_id("stMain").inner_html()

    # moving a setting afterwards clears the warning
    nudge(page, THRESHOLD, "ArrowLeft")
    page.wait_for_url(query_is("threshold", "0.79"))
    wait_idle(page)
    expect(warnings(page)).to_have_count(0)


def test_markup_in_a_link_is_shown_as_text(app_server, page):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    open_app(page, app_server.base + "/banding" + INJECTION)
    expect(warnings(page)).to_have_count(1)
    text = warnings(page).first.inner_text()
    for name in ("shingle_kind", "hash_seed", "n_docs"):
        assert name in text, f"the warning does not name {name}: {text}"
    assert page.evaluate("window.__pwned === undefined"), "a handler from the link ran"
    shown = warnings(page).first.inner_html()
    assert "<img" not in shown and "<b>" not in shown and "<a " not in shown, shown
    assert page.evaluate("document.querySelectorAll('#root img[src=\"x\"]').length") == 0
    assert not dialogs
    assert_no_errors(page, "markup in a link")


# -- kept in the browser -------------------------------------------------------------------
def test_settings_come_back_in_a_new_tab_without_a_query(app_server, new_context):
    ctx = new_context()
    first = ctx.new_page()
    open_app(first, app_server.base + "/?threshold=0.81")  # a link's settings are kept too
    flip(first, "Lower-case")
    first.wait_for_url(query_is("lowercase", "false"))
    wait_idle(first)
    first.wait_for_function(
        "() => { const s = window.localStorage.getItem('nearsim.settings') || '';"
        " return s.includes('threshold=0.81') && s.includes('lowercase=false'); }"
    )

    second = ctx.new_page()
    open_app(second, app_server.base + "/")
    second.wait_for_url(query_is("threshold", "0.81"))
    wait_idle(second)
    expect(slider(second, THRESHOLD)).to_have_value("0.81")
    expect(switch(second, "Lower-case")).not_to_be_checked()
    assert query(second.url) == {"threshold": "0.81", "lowercase": "false"}, second.url
    expect(warnings(second)).to_have_count(0)  # restoring is not a tampered link
    assert_no_errors(second, "restored from local storage")

    # a link still wins over what the browser kept
    third = ctx.new_page()
    open_app(third, app_server.base + "/?threshold=0.6")
    expect(slider(third, THRESHOLD)).to_have_value("0.6")
    expect(switch(third, "Lower-case")).to_be_checked()
    assert query(third.url) == {"threshold": "0.6"}, third.url


_RERUN_SCRIPT = 0x5A
"""First byte of a BackMsg whose field 11 (``rerun_script``) is set: the frames the page
sends to ask the server for a script run (protobuf tag: field 11, length-delimited)."""


def test_a_first_visit_with_nothing_kept_runs_once_and_keeps_the_settings(app_server, new_context):
    """A browser that kept nothing does not answer the storage component, so there is no
    handshake rerun; what the page shows is still written to local storage at once."""
    page = new_context().new_page()
    asked: list[bytes] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: asked.append(frame)))
    open_app(page, app_server.base + "/?threshold=0.77")
    page.wait_for_function(
        "() => (window.localStorage.getItem('nearsim.settings') || '').includes('threshold=0.77')"
    )
    wait_idle(page)
    runs = [f for f in asked if isinstance(f, bytes) and f[:1] == bytes([_RERUN_SCRIPT])]
    assert len(runs) == 1, [f[:16] for f in asked]
    assert_no_errors(page, "first visit")


PASTED = (
    "The harbour ferry left at dawn with forty passengers.\n"
    "The harbour ferry left at dawn with forty-one passengers.\n"
    "Rain is expected over the hills by the weekend."
)


def _paste(page) -> None:
    """Choose Paste in the sidebar, type three documents, wait until the browser kept them."""
    choose(page, "Paste")
    box = paste_box(page)
    box.fill(PASTED)
    box.press("Control+Enter")
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("3")
    page.wait_for_function("(t) => window.localStorage.getItem('nearsim.paste') === t", arg=PASTED)
    wait_idle(page)


def test_pasted_text_comes_back_in_a_new_tab(app_server, new_context):
    ctx = new_context()
    first = ctx.new_page()
    open_app(first, app_server.base + "/")
    _paste(first)
    second = ctx.new_page()
    open_app(second, app_server.base + "/")
    expect(radio(second, "Paste")).to_be_checked()
    expect(paste_box(second)).to_have_value(PASTED)
    expect(second.get_by_test_id("stMetricValue").first).to_have_text("3")
    assert "harbour" not in second.url
    expect(warnings(second)).to_have_count(0)
    assert_no_errors(second, "pasted text restored")


def test_pasted_text_survives_a_reload(app_server, new_context):
    page = new_context().new_page()
    open_app(page, app_server.base + "/")
    _paste(page)
    page.reload()
    title(page).wait_for()
    wait_idle(page)
    # the kept text arrives after one storage round trip and a rerun
    expect(radio(page, "Paste")).to_be_checked()
    expect(paste_box(page)).to_have_value(PASTED, timeout=15_000)
    wait_idle(page)
    assert warnings(page).count() == 0, warnings(page).all_inner_texts()
    assert_no_errors(page, "after a reload")


def test_pasted_text_comes_back_with_a_paste_link(app_server, new_context):
    ctx = new_context()
    ctx.add_init_script(
        "if (!window.sessionStorage.getItem('e2e-seeded')) {"
        " window.sessionStorage.setItem('e2e-seeded', '1');"
        f" window.localStorage.setItem('nearsim.paste', {json.dumps(PASTED)});"
        " window.localStorage.setItem('nearsim.settings', 'source=paste'); }"
    )
    page = ctx.new_page()
    open_app(page, app_server.base + "/?source=paste")
    expect(radio(page, "Paste")).to_be_checked()
    # the kept text arrives after one storage round trip and a rerun
    expect(paste_box(page)).to_have_value(PASTED, timeout=15_000)


def test_a_fresh_server_s_first_visit_to_a_page_by_address_is_that_page_alone(new_context):
    """The first visit of a fresh server, straight to /export: the Export page with the top
    navigation's views, no "Page not found" notice over it and no other page listed.
    Streamlit looks for a ``pages/`` folder beside the main script until ``st.navigation``
    has run once in a process; the servers start ``pages/explorer/main.py``, whose folder has
    none (started on ``app.py``, beside ``pages/``, this visit got the notice)."""
    with AppServer() as server:  # fresh: this process has run no script yet
        tab = new_context().new_page()
        open_app(tab, server.base + "/export?n_docs=300")
        wait_idle(tab)
        expect(tab.get_by_role("heading", name="Presets & export", exact=True)).to_be_visible()
        assert tab.get_by_text("Page not found").count() == 0
        assert tab.get_by_role("dialog").count() == 0
        links = tab.get_by_test_id("stTopNav").get_by_test_id("stTopNavLink").all_inner_texts()
        assert [text.split()[-1] for text in links] == [label for _, _, label in PAGES]
        assert tab.get_by_test_id("stSidebarNav").count() == 0  # no pages/ folder listed
