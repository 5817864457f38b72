"""One uploaded file, one document: extensions, encodings, binary data, limits."""

from __future__ import annotations

import codecs
import gzip

import pytest
from support import MIXED, zip_bytes

from nearsim.io.documents import read_document_file


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        ("notes.txt", b"  hello\r\nworld  \n", "hello\nworld"),
        ("NOTES.TXT", "ünïcode".encode("utf-8-sig"), "ünïcode"),
        ("win.txt", "“smart” quotes – café".encode("cp1252"), "“smart” quotes – café"),
        ("old.txt", b"\x81\xe9t\xe9", "\x81été"),  # not UTF-8, not cp1252: Latin-1
        (
            "readme.md",
            b"# Title\n\n*Markdown* kept as written",
            "# Title\n\n*Markdown* kept as written",
        ),
        ("mixed.txt", MIXED.encode(), MIXED),
        ("wide.txt", "utf-16 text".encode("utf-16"), "utf-16 text"),
        ("page.HTML", b"<p>upper-case extension</p>", "upper-case extension"),
        ("dir/sub/page.html", b"<p>path</p>", "path"),
    ],
)
def test_read_document_file_ok(name, data, expected):
    assert read_document_file(name, data) == expected


@pytest.mark.parametrize(
    ("name", "data", "match"),
    [
        (
            "report.pdf",
            b"%PDF-1.4",
            r"file 'report.pdf' has '\.pdf'; accepted file types: "
            r"\.txt, \.md, \.html, \.htm",
        ),
        ("Makefile", b"all:", r"file 'Makefile' has no extension; accepted"),
        ("data.csv", b"a,b", r"'\.csv'; accepted"),
        ("image.txt", b"\x89PNG\r\n\x1a\n\x00", r"file 'image.txt' looks like a PNG image"),
        ("doc.md", zip_bytes(), r"file 'doc\.md' looks like a ZIP archive"),
        ("a.html", gzip.compress(b"<p>x</p>", mtime=0), r"looks like a gzip-compressed file"),
        ("b.txt", b"%PDF-1.4 ...", r"looks like a PDF document"),
        ("c.txt", b"text\x00with NUL", r"file 'c\.txt' looks like binary data"),
        ("empty.txt", b"", r"file 'empty\.txt' has no text"),
        ("blank.md", b" \r\n\t\n", r"file 'blank\.md' has no text"),
        ("bom.txt", codecs.BOM_UTF8, r"has no text"),
        (
            "scripts.html",
            b"<script>alert(1)</script><style>p{}</style>",
            r"file 'scripts\.html' has no visible text",
        ),
        (
            "chrome.html",
            b"<nav>Menu</nav><header>Top</header><footer>End</footer><aside>Side</aside>",
            r"has no visible text",
        ),
        ("empty.html", b"", r"has no visible text"),
        ("comment.htm", b"<!-- only a comment --><title>Title</title>", r"has no visible text"),
    ],
)
def test_read_document_file_rejects(name, data, match):
    with pytest.raises(ValueError, match=match):
        read_document_file(name, data)


def test_read_document_file_size_limit_and_types():
    with pytest.raises(ValueError, match=r"file 'big\.txt' is 11 bytes, more than the limit of 10"):
        read_document_file("big.txt", b"0123456789a", max_bytes=10)
    assert read_document_file("big.txt", b"0123456789a", max_bytes=None) == "0123456789a"
    with pytest.raises(ValueError, match=r"file 'big\.txt' is 5,000,001 bytes"):
        read_document_file("big.txt", b"a" * 5_000_001)
    with pytest.raises(ValueError, match=r"data='text' is not accepted; accepted: bytes"):
        read_document_file("a.txt", "text")
    with pytest.raises(
        ValueError, match=r"name=None is not accepted; accepted: a str \(the file name\)"
    ):
        read_document_file(None, b"text")
    with pytest.raises(ValueError, match=r"max_bytes=-1 is not accepted"):
        read_document_file("a.txt", b"x", max_bytes=-1)


def test_read_document_file_size_message_has_no_library_advice():
    with pytest.raises(ValueError) as caught:
        read_document_file("big.txt", b"0123456789a", max_bytes=10)
    assert str(caught.value) == "file 'big.txt' is 11 bytes, more than the limit of 10 bytes"
    with pytest.raises(ValueError, match=r"max_bytes=0 is not accepted; accepted: .* or None"):
        read_document_file("a.txt", b"x", max_bytes=0)
