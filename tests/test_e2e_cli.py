"""``nearsim app corpus.jsonl --text-field body`` opens the explorer on that corpus, in
Debian's chromium."""

from __future__ import annotations

import json

from e2e_server import nearsim_app, open_app
from playwright.sync_api import expect
from test_e2e import assert_no_errors

import nearsim as ns


def test_nearsim_app_opens_the_explorer_on_a_corpus(tmp_path, new_context):
    rows = [{"url": f"https://example.org/{i}", "body": t}
            for i, t in enumerate(ns.example_corpus(3000, seed=2)["text"])]  # fmt: skip
    rows += rows[:100]  # 3,100 records
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with nearsim_app(str(path), "--text-field", "body") as port:
        page = new_context().new_page()
        open_app(page, f"http://127.0.0.1:{port}/")
        expect(page.get_by_role("radio", name="JSONL / Parquet")).to_be_checked()
        expect(page.get_by_text("corpus.jsonl, field 'body': all 3,100 documents")).to_be_visible()
        expect(page.get_by_test_id("stMetricValue").first).to_have_text("3,100")
        assert_no_errors(page, "nearsim app on a corpus")
