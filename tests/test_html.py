"""HTML to visible text, and the charset an HTML file declares."""

from __future__ import annotations

import pytest
from support import MIXED

from nearsim.io.documents import html_to_text, read_document_file

PAGE = """<!DOCTYPE html>
<html><head><title>Page title</title><style>p { color: red }</style>
<script>var secret = "<p>not text</p>";</script></head>
<body>
<header><h1>Site name</h1></header>
<nav><ul><li><a href="/">Home</a></li><li>About</li></ul></nav>
<main><article>
<h2>Heading</h2><p>First<b>word</b> glued, and
   a line   break
in the source.<br>After break.</p>
<div>Block one</div><div>Block two</div>
<ul><li>item one</li><li>item two</li></ul>
<table><tr><td>cell a</td><td>cell b</td></tr></table>
<p hidden>hidden paragraph</p><p style="display: none">invisible</p>
<noscript>Enable JavaScript</noscript><template><p>template text</p></template>
<!-- a comment -->
<p>Fish &amp; chips &lt;3 &eacute;t&eacute;</p>
<div role="navigation">Menu by role</div>
</article></main>
<aside>Recent posts sidebar</aside>
<footer>Copyright footer</footer>
<script>document.write("more")</script>
</body></html>"""


def test_html_visible_text():
    text = read_document_file("page.html", PAGE.encode())
    assert text.split("\n") == [
        "Heading",
        "Firstword glued, and a line break in the source.",
        "After break.",
        "Block one",
        "Block two",
        "item one",
        "item two",
        "cell a cell b",
        "Fish & chips <3 été",
    ]
    for gone in (
        "Page title",
        "secret",
        "Site name",
        "Home",
        "sidebar",
        "footer",
        "hidden",
        "invisible",
        "JavaScript",
        "template text",
        "comment",
        "Menu by role",
        "more",
    ):
        assert gone not in text


@pytest.mark.parametrize(
    ("markup", "expected"),
    [
        ("<p>unclosed <b>bold <i>italic</p><div>next", "unclosed bold italic\nnext"),
        ("no tags at all", "no tags at all"),
        ("<td>a</td><td>b</td>", "a b"),
        ("<p>one</p><p>two</p>", "one\ntwo"),
        ("<h1>A</h1><h2>B</h2>text", "A\nB\ntext"),
        ("<span>in</span><span>line</span>", "inline"),
        (f"<p dir='rtl'>{MIXED}</p>", MIXED),
        ("<pre>keep\nlines</pre>", "keep\nlines"),
        ("<p>a&nbsp;b</p>", "a b"),
        ("<body><p>x</p></body></html><p>after end</p>", "x\nafter end"),
        ("<div>outer<div>inner</div>tail</div>", "outer\ninner\ntail"),
    ],
)
def test_html_to_text_cases(markup, expected):
    assert html_to_text(markup) == expected


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        # declared charset wins over the UTF-8 guess
        ('<meta charset="windows-1252"><p>“Café”</p>'.encode("cp1252"), "“Café”"),
        (
            b'<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'
            b"<p>\x93quoted\x94 \xe9t\xe9</p>",
            "“quoted” été",  # iso-8859-1 means windows-1252, as in browsers
        ),
        ('<meta charset="koi8-r"><p>Привет</p>'.encode("koi8-r"), "Привет"),
        ('<meta charset="shift_jis"><p>日本語</p>'.encode("shift_jis"), "日本語"),
        # no declaration: UTF-8, else Windows-1252
        ("<p>naïve 😀</p>".encode(), "naïve 😀"),
        ("<p>naïve – “x”</p>".encode("cp1252"), "naïve – “x”"),
        # a wrong declaration that cannot decode falls back
        ('<meta charset="utf-8"><p>caf\xe9</p>'.encode("latin-1"), "café"),
        (b'<meta charset="no-such-charset"><p>ok</p>', "ok"),
        ("<p>bom</p>".encode("utf-8-sig"), "bom"),
        ("<p>sixteen</p>".encode("utf-16"), "sixteen"),
    ],
)
def test_html_charsets(data, expected):
    assert read_document_file("page.htm", data) == expected


def test_html_to_text_rejects_lone_surrogates():
    """A str that is not Unicode text used to raise UnicodeEncodeError from the parser."""
    with pytest.raises(ValueError, match=r"markup='a\\ud800b' is not accepted: .*lone surrogate"):
        html_to_text("a\ud800b")
    with pytest.raises(ValueError, match=r"accepted: a str \(the page, decoded\)"):
        html_to_text(b"<p>bytes</p>")
    assert html_to_text("a\U0001f600b") == "a\U0001f600b"  # a real astral character is fine
