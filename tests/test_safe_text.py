"""User text is shown as text: nothing in a document, an id, a file name or a CSV cell is
read as Markdown, HTML, LaTeX, a directive or an autolink on any page."""

from __future__ import annotations

import csv
import html
import io
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from nearsim_app.explorer.safe_text import html_block, md
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
# What a document may hold that Markdown, HTML, KaTeX, Streamlit's directives or GFM's
# autolinks would act on.
EVIL = [
    "![x](http://203.0.113.9/pixel.png)",
    "[text](http://203.0.113.9/page)",
    "$x^2$ and $$y$$",
    '<img src="http://203.0.113.9/i.png">',
    "see http://203.0.113.9/bare and www.example.org or me@example.org",
    ":red[colour] :material/home: **bold** _it_ `code` ~~gone~~",
    "# heading\n\n> quote\n\n- item\n\n    indented code",
]
# Characters that must never reach Streamlit's Markdown as themselves.
ACTIVE = set("<>[]()!$*_`:#~|@.&\\")


def hostile_csv() -> bytes:
    """A CSV of ten families of four near copies, each cell full of :data:`EVIL`."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["text"])
    base = " ".join(EVIL).replace("\n", " ")
    for n in range(40):
        writer.writerow([f"{base} story {n // 4} words {n // 4} more {n // 4}\n\n{EVIL[n % 7]}"])
    return out.getvalue().encode()


@pytest.mark.parametrize("text", EVIL)
def test_markdown_characters_become_references(text):
    for out in (md(text), html_block(text)):
        bare = re.sub(r"&#[0-9]+;", "", out).replace("<br>", "")
        assert not set(bare) & ACTIVE, (out, set(bare) & ACTIVE)


@given(st.text(max_size=80))
def test_round_trip_shows_exactly_the_text(text):
    """What the browser shows (references decoded) is the text itself: one line for md,
    the same lines for html_block."""
    clean = text.replace("\r", "")
    assert html.unescape(md(text)) == clean.replace("\n", " ")
    assert html.unescape(html_block(text).replace("<br>", "\n")) == clean
    assert "\n" not in html_block(text)  # a blank line would end the HTML block


def test_wrong_type_is_a_type_error():
    with pytest.raises(TypeError, match="text must be a str"):
        md(3)


def test_every_page_shows_a_hostile_csv_as_text():
    """A CSV whose cells are near copies full of Markdown, HTML and LaTeX, through every
    page: no element's Markdown holds a link, an image, a formula or a tag from a cell."""
    data = hostile_csv()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params["source"] = "csv"
    at.query_params["threshold"] = "0.5"
    at.run()
    at.get("file_uploader")[0].upload("![x](http:evil).csv", data, "text/csv").run()
    pages = ["documents", "minhash", "banding", "results", "threshold", "clusters", "compare",
             "export"]  # fmt: skip
    for page in pages:
        at.switch_page(f"pages/views/{page}.py").run()
        assert not at.exception, (page, [e.value for e in at.exception])
        bodies = [e.value for kind in ("markdown", "caption", "error", "warning", "info",
                                       "success") for e in at.get(kind)]  # fmt: skip
        bodies += [e.label for e in at.get("metric")]
        for body in bodies:
            for bad in ("](http", "<img", "$x^2$", "http://203", "www.example", ":red[",
                        "![x]"):  # fmt: skip
                assert bad not in str(body), (page, bad, str(body)[:300])
    at.switch_page("pages/views/clusters.py").run()
    assert any("&#33;&#91;x&#93;" in str(m.value) for m in at.markdown)  # the cells are shown
