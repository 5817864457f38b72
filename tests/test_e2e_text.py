"""In Debian's chromium: documents full of Markdown, HTML, LaTeX and URLs are shown as text
on every page — no image, link or formula from them, and no request leaves the app."""

from __future__ import annotations

from e2e_server import PAGES, open_app, wait_idle
from playwright.sync_api import expect
from test_e2e import _leaves, assert_no_errors, choose, title
from test_e2e_journey import go
from test_safe_text import hostile_csv

# what the cells point at (tests/test_safe_text.py's EVIL): none may become an element
FROM_CELLS = (
    'img[src*="203.0.113"]',
    'a[href*="203.0.113"]',
    'a[href*="example.org"]',
    'a[href^="mailto:"]',
    ".katex",
)


def test_hostile_documents_stay_text_on_every_page(app_server, page):
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    open_app(page, app_server.base + "/?threshold=0.5")
    choose(page, "CSV")
    wait_idle(page)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
        {"name": "![x](http:evil).csv", "mimeType": "text/csv", "buffer": hostile_csv()}
    )
    expect(page.get_by_test_id("stMetricValue").first).to_have_text("40", timeout=90_000)
    wait_idle(page)
    for _, heading, label in PAGES:
        go(page, label, heading)
        expect(title(page)).to_have_text(heading)
        assert_no_errors(page, heading)
        for selector in FROM_CELLS:
            assert page.locator(selector).count() == 0, (heading, selector)
    go(page, "Clusters", "Clusters")  # the member view draws whole cells: they are there
    expect(page.get_by_test_id("stMain")).to_contain_text("![x](http://203.0.113.9/pixel.png)")
    leaving = sorted({u for u in requests if _leaves(u, app_server.host)})
    assert not leaving, f"requests to hosts other than {app_server.host}: {leaving}"
