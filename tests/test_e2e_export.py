"""End-to-end: the Presets & export page in a real browser (Debian's chromium, Playwright).

The issue's "done when": a user copies a working configuration for ``nearsim dedup`` or
datatrove from the page. Here the browser clicks a preset, the command is copied with the
page's own copy button (read back from the clipboard) and RUN on a JSONL file the test
writes, and its output is checked against the library on the same documents; the datatrove
``MinhashConfig`` snippet shown on the page is built by datatrove itself. Also: the Share
popover's command, a bad N, and the sizing charts' room to draw.

The fixtures are the shared ones (``tests/e2e_fixtures.py``), the helpers those of
``tests/test_e2e.py``.
"""

from __future__ import annotations

import importlib
import json
import shlex
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qsl

import pandas as pd
import pytest
from playwright.sync_api import expect
from support import datatrove_values, nearsim_values
from test_e2e import (
    NUM_PERM,
    THRESHOLD,
    assert_log_clean,
    assert_no_errors,
    number,
    open_app,
    plot_heights,
    share_link,
    sidebar,
    slider,
    switch,
    title,
    wait_idle,
)

import nearsim as ns
from nearsim.pipeline import Runner
from nearsim.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
SMALL = "/export?n_docs=300"
RUN_TIMEOUT = 300  # s, for nearsim dedup on a cold machine (compiled code loads once)


def main(page):
    return page.get_by_test_id("stMain")


def tab(page, group: int, label: str):
    """A tab of the page's ``group``-th tab bar (0: presets, 1: peers), clicked."""
    bar = main(page).get_by_test_id("stTabs").nth(group)
    button = bar.get_by_role("tab", name=label, exact=True)
    button.click()
    expect(button).to_have_attribute("aria-selected", "true")
    return bar.get_by_role("tabpanel").filter(visible=True)


def box(page, label: str, value: str) -> None:
    """Type into one of the page's text boxes and commit it (Enter)."""
    field = main(page).get_by_role("textbox", name=label, exact=True)
    field.fill(value)
    field.press("Enter")
    wait_idle(page)


def copied(page, block) -> str:
    """Click a code block's own copy button; what the clipboard then holds."""
    block.scroll_into_view_if_needed()
    block.hover()
    block.get_by_role("button", name="Copy to clipboard").click()
    return page.evaluate("navigator.clipboard.readText()")


def write_corpus(path: Path) -> list[str]:
    """300 generated documents (a third of them edited copies) as JSON lines, text in
    ``body``; and the texts in file order."""
    texts = ns.example_corpus(300, seed=5)["text"].tolist()
    with path.open("w", encoding="utf-8") as f:
        for i, text in enumerate(texts):
            f.write(json.dumps({"id": f"doc-{i}", "body": text}) + "\n")
    return texts


@pytest.fixture
def clipboard_page(app_server, new_context):
    ctx = new_context()
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=app_server.base)
    return ctx.new_page()


def test_copy_a_preset_as_nearsim_dedup_and_run_it(app_server, clipboard_page, tmp_path):
    page = clipboard_page
    open_app(page, app_server.base + SMALL)
    expect(title(page)).to_have_text("Presets & export")
    panel = tab(page, 0, "datatrove")
    panel.get_by_role("button", name="Try these settings").click()
    wait_idle(page)
    # the sidebar shows datatrove's defaults
    expect(number(page, NUM_PERM)).to_have_value("112")
    expect(slider(page, THRESHOLD)).to_have_value("0.72")
    expect(switch(page, "Pick bands and rows for me")).not_to_be_checked()
    expect(number(page, "Bands b")).to_have_value("14")
    expect(number(page, "Rows per band r")).to_have_value("8")
    expect(main(page).get_by_test_id("stAlertContentSuccess")).to_contain_text(
        "14 bands of 8 rows each"
    )

    texts = write_corpus(tmp_path / "news corpus.jsonl")
    out = tmp_path / "out"
    box(page, "Corpus path", shlex.quote(str(tmp_path / "news corpus.jsonl")))
    box(page, "Text field", "body")
    box(page, "Output folder", str(out))
    command = copied(page, main(page).get_by_test_id("stCode").first)
    assert_no_errors(page, "after the preset")

    argv = shlex.split(command)
    assert argv[:3] == ["nearsim", "dedup", str(tmp_path / "news corpus.jsonl")], command
    assert "--verify" in argv and argv[argv.index("--verify") + 1] == "none"  # as datatrove
    done = subprocess.run(
        [sys.executable, "-m", "nearsim", *argv[1:]],
        cwd=ROOT,  # this checkout's nearsim
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    assert done.returncode == 0, f"nearsim dedup failed:\n{done.stderr}"

    # the run used datatrove's preset, and found what the library finds on these texts
    settings = ns.preset("datatrove").settings
    summary = json.loads((out / "summary.json").read_text())
    assert Settings.from_query(dict(parse_qsl(summary["settings"]))) == settings
    assert summary["documents"] == len(texts)
    # --verify none: every candidate accepted. The run links each exact copy to its first
    # occurrence instead of pairing the copies with each other and with the rest, so the
    # pairs are fewer than the library's band candidates but the clusters are theirs.
    expected = Runner(texts, settings).get("candidates").pairs
    pairs = pd.read_parquet(out / "pairs.parquet")
    assert summary["candidates"] == summary["pairs"] == len(pairs) <= len(expected)
    clusters = pd.read_parquet(out / "clusters.parquet")
    want = ns.clusters(len(texts), expected)
    first = {}
    assert clusters["cluster"].tolist() == [first.setdefault(lab, r) for r, lab in enumerate(want)]
    assert clusters["id"].tolist() == [str(i) for i in range(len(texts))]  # no --id-field
    assert int((~clusters["keep"]).sum()) == summary["removed"]
    assert_log_clean(app_server)


def test_build_datatrove_minhash_config_from_the_page(app_server, clipboard_page):
    minhash = importlib.import_module("datatrove.pipeline.dedup.minhash")
    page = clipboard_page
    open_app(page, app_server.base + SMALL)
    tab(page, 0, "text-dedup").get_by_role("button", name="Try these settings").click()
    wait_idle(page)
    expect(number(page, NUM_PERM)).to_have_value("112")
    panel = tab(page, 1, "datatrove")
    snippet = copied(page, panel.get_by_test_id("stCode"))
    namespace: dict = {}
    exec(snippet, namespace)  # the page's snippet, as a user pastes it
    config = namespace["minhash_config"]
    assert isinstance(config, minhash.MinhashConfig)
    settings = ns.preset("text_dedup").settings
    assert datatrove_values(config) == nearsim_values(settings)
    assert (config.num_buckets, config.hashes_per_bucket) == (12, 9)
    assert not (config.norm_config.norm_numbers or config.norm_config.norm_unicode_diacritics)
    expect(panel).to_contain_text("Carries over exactly")
    expect(panel).to_contain_text("Differs")
    assert_no_errors(page, "datatrove export")


def test_share_popover_shows_the_same_command(app_server, page):
    open_app(page, app_server.base + SMALL + "&threshold=0.7&shingle_kind=word")
    assert share_link(page).startswith(app_server.base)
    sidebar(page).get_by_role("button", name="Share these settings").click()
    blocks = page.get_by_test_id("stPopoverBody").get_by_test_id("stCode")
    expect(blocks).to_have_count(2)
    shared = blocks.nth(1).locator("code").inner_text().strip()
    page.keyboard.press("Escape")
    shown = main(page).get_by_test_id("stCode").first.locator("code").inner_text().strip()
    assert shared == "nearsim dedup INPUT --out DIR --shingle-kind word --threshold 0.7"
    assert shown == "nearsim dedup corpus.jsonl --out dedup_out --shingle-kind word --threshold 0.7"
    assert shlex.split(shown)[5:] == shlex.split(shared)[5:]  # the same settings


def test_bad_n_is_a_message_and_the_charts_have_room(app_server, page):
    open_app(page, app_server.base + SMALL)
    n = main(page).get_by_role("spinbutton", name="Documents in the corpus, N")
    n.fill("5")
    n.press("Enter")
    wait_idle(page)
    warning = main(page).get_by_test_id("stAlertContentWarning")
    expect(warning).to_contain_text("N = 5 documents is outside")
    assert main(page).get_by_test_id("stVegaLiteChart").count() == 0
    main(page).get_by_role("radio", name="10⁹", exact=True).click()
    wait_idle(page)
    expect(n).to_have_value("1000000000")
    expect(warning).to_have_count(0)
    charts = main(page).get_by_test_id("stVegaLiteChart")
    expect(charts).to_have_count(2)
    charts.last.scroll_into_view_if_needed()
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=\"stVegaLiteChart\"] svg').length == 2"
    )
    heights = plot_heights(page)
    assert len(heights) == 2 and min(heights) > 150, heights
    assert_no_errors(page, "sizing")
