"""End-to-end, in Debian's chromium: issue 12's "Done when" as one user's visit.

A new user uploads a Parquet file of their corpus (3,000 records, text in ``body``),
labels the forty pairs drawn near t = 0.8 with the keyboard, picks bands × rows on Banding
with the recall tuner (its "Use" button) while the predicted and measured figures stand
side by side, and copies the datatrove configuration and the ``nearsim dedup`` command
from Presets & export: datatrove builds its ``MinhashConfig`` from the copied snippet with
the chosen bands and rows, and the command carries them. One browser session throughout
(page changes by the navigation bar), so every step reads what the one before left.
"""

from __future__ import annotations

import importlib
import io
import re
import shlex

import pandas as pd
from e2e_server import click_nav, open_app, wait_idle
from playwright.sync_api import expect
from test_e2e import assert_log_clean, assert_no_errors, choose, number, query_is, title
from test_e2e_export import copied, main, tab
from test_e2e_threshold import CUT, pair_line, progress

import nearsim as ns

DOCS = 3_000


def corpus_parquet() -> bytes:
    texts = ns.example_corpus(DOCS, seed=4)["text"].tolist()
    frame = pd.DataFrame({"url": [f"https://example.org/{i}" for i in range(DOCS)], "body": texts})
    buf = io.BytesIO()
    frame.to_parquet(buf, index=False, row_group_size=1_000)
    return buf.getvalue()


def go(page, label: str, heading: str) -> None:
    click_nav(page, label)
    expect(title(page)).to_have_text(heading)
    wait_idle(page)


def test_parquet_in_forty_labels_recall_tuner_and_a_datatrove_config(app_server, new_context):
    minhash = importlib.import_module("datatrove.pipeline.dedup.minhash")
    ctx = new_context()
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=app_server.base)
    page = ctx.new_page()

    # 1. the corpus in: a Parquet upload, its text field guessed
    open_app(page, app_server.base + "/")
    choose(page, "JSONL / Parquet")
    wait_idle(page)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
        {"name": "corpus.parquet", "mimeType": "application/octet-stream",
         "buffer": corpus_parquet()}
    )  # fmt: skip
    expect(page.get_by_test_id("stMetricValue").first).to_have_text(f"{DOCS:,}", timeout=90_000)
    expect(main(page)).to_contain_text("field 'body'")
    wait_idle(page)
    assert_no_errors(page, "after the Parquet upload")

    # 2. forty pairs near t labelled with the keyboard
    go(page, "Threshold", "Threshold")
    expect(progress(page)).to_have_text("0 of 40 labelled", timeout=90_000)
    page.wait_for_function("() => window.__nearsimKeysReady === true")
    title(page).click()
    for k in range(40):
        pos, total, jac = pair_line(page)
        assert (pos, total) == (k + 1, 40)
        page.keyboard.press("d" if jac >= CUT else "n")
        expect(progress(page)).to_have_text(f"{k + 1} of 40 labelled")
        wait_idle(page)
    assert_no_errors(page, "after labelling")

    # 3. bands × rows for a recall target, predicted and measured side by side
    go(page, "Banding", "Banding")
    expect(main(page)).to_contain_text("Predicted and measured on your documents")
    use = main(page).get_by_role("button", name=re.compile(r"^Use \d+ bands × \d+ rows$"))
    use.scroll_into_view_if_needed()
    b, r = map(int, re.findall(r"\d+", use.inner_text()))
    use.click()
    page.wait_for_url(query_is("auto_tune", "false"))
    wait_idle(page)
    expect(number(page, "Bands b")).to_have_value(str(b))
    expect(number(page, "Rows per band r")).to_have_value(str(r))
    expect(main(page)).to_contain_text(f"{b} bands × {r} rows at t = 0.8")
    expect(main(page)).to_contain_text("true pairs (the prediction expects")
    assert_no_errors(page, "after Use on the recall tuner")

    # 4. a working configuration copied for datatrove, and the nearsim dedup command
    go(page, "Export", "Presets & export")
    panel = tab(page, 1, "datatrove")
    namespace: dict = {}
    exec(copied(page, panel.get_by_test_id("stCode")), namespace)  # as a user pastes it
    config = namespace["minhash_config"]
    assert isinstance(config, minhash.MinhashConfig)
    assert (config.num_buckets, config.hashes_per_bucket) == (b, r)
    command = shlex.split(copied(page, main(page).get_by_test_id("stCode").first))
    assert command[:2] == ["nearsim", "dedup"], command
    assert command[command.index("--bands") + 1] == str(b), command
    assert command[command.index("--rows") + 1] == str(r), command
    assert_no_errors(page, "on Presets & export")
    assert_log_clean(app_server)
