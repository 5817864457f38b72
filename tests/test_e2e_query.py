"""``nearsim app --index DIR``: the Query page looks a pasted text up in the index and
explains the match, in Debian's chromium."""

from __future__ import annotations

from e2e_server import nearsim_app, open_app, wait_idle
from playwright.sync_api import expect
from test_e2e import assert_no_errors

import nearsim as ns


def test_nearsim_app_with_an_index_finds_and_explains_a_match(tmp_path, new_context):
    texts = ns.example_corpus(300, seed=4)["text"].tolist()
    folder = tmp_path / "posts"
    ns.Index.create(folder, keep_texts=True).add(texts, [f"post-{i}" for i in range(300)])
    with nearsim_app("--index", str(folder)) as port:
        page = new_context().new_page()
        open_app(page, f"http://127.0.0.1:{port}/query?n_docs=300")
        expect(page.locator("h1").first).to_have_text("Query")
        page.get_by_text(f"The index in {folder}").click()
        page.get_by_text("Paste a text", exact=True).click()
        wait_idle(page)
        box = page.get_by_placeholder("Paste the text of a new document")
        box.fill(texts[11] + " Updated on Monday.")
        box.press("Control+Enter")
        wait_idle(page)
        expect(page.get_by_text("Matches among 300 indexed")).to_be_visible()
        expect(page.get_by_text("so they share a bucket").first).to_be_visible()
        expect(page.get_by_text("Shingle sets.").first).to_be_visible()
        assert_no_errors(page, "the Query page on an index")
