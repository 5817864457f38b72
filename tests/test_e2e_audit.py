"""The Audit view in Debian's chromium: ``nearsim app CORPUS`` offers the corpus, the user
names a ``nearsim dedup`` output folder, presses Audit and reads the figures."""

from __future__ import annotations

import json

from e2e_server import nearsim_app, open_app, wait_idle
from playwright.sync_api import expect
from test_e2e import assert_no_errors

import nearsim as ns
from nearsim.cli import main


def test_audit_view_audits_a_run(tmp_path, new_context):
    rows = [{"id": f"d{i}", "text": t, "source": "ab"[i % 2]}
            for i, t in enumerate(ns.example_corpus(800, seed=5)["text"])]  # fmt: skip
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    run = tmp_path / "run"
    assert main(["dedup", str(path), "--id-field", "id", "--out", str(run), "--quiet"]) == 0
    with nearsim_app(str(path)) as port:
        page = new_context().new_page()
        open_app(page, f"http://127.0.0.1:{port}/audit")
        expect(page.get_by_role("heading", name="Audit", exact=True)).to_be_visible()
        corpus = page.get_by_role(
            "textbox", name="Corpus (files or folders; several separated by ;)"
        )
        expect(corpus).to_have_value(str(path))  # the corpus nearsim app was given
        folder = page.get_by_role("textbox", name="Output folder (`--out` of the run)")
        folder.fill(str(run))
        folder.press("Enter")
        wait_idle(page)
        page.get_by_role("textbox", name="Id field (empty: row numbers)").fill("id")
        page.get_by_role("textbox", name="Id field (empty: row numbers)").press("Enter")
        wait_idle(page)
        page.get_by_role("button", name="Audit", exact=True).click()
        wait_idle(page, timeout=120_000)
        expect(page.get_by_test_id("stMetricLabel").filter(has_text="Precision")).to_be_visible()
        expect(page.get_by_text("95% interval").first).to_be_visible()
        expect(
            page.get_by_role("button", name="Download the report (one HTML file)")
        ).to_be_visible()
        assert_no_errors(page, "the Audit view")
