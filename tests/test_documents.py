"""Documents in: example corpus, paste, CSV, files, and the shipped sample data."""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import itertools
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nearsim.documents import (
    csv_columns,
    example_corpus,
    guess_text_column,
    html_to_text,
    parse_paste,
    read_csv_column,
    read_csv_column_rows,
    read_document_file,
)

SAMPLE = Path(__file__).resolve().parent.parent / "sample_data"
MIXED = "日本語のテキスト 😀 emoji שלום עולם مرحبا"


def char_shingles(text: str, k: int = 5) -> set[str]:
    text = " ".join(text.lower().split())
    return {text[i : i + k] for i in range(max(1, len(text) - k + 1))}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b)


# --------------------------------------------------------------------------------------
# example_corpus
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus() -> pd.DataFrame:
    return example_corpus(2000, seed=0)


def test_example_corpus_shape_and_types(corpus):
    assert list(corpus.columns) == ["text", "parent"]
    assert len(corpus) == 2000
    assert isinstance(corpus.index, pd.RangeIndex)
    assert corpus.index.start == 0 and corpus.index.step == 1
    assert corpus["parent"].dtype == np.int64
    assert all(isinstance(t, str) and t == t.strip() and t for t in corpus["text"])


def test_example_corpus_parents_are_earlier_rows(corpus):
    parent = corpus["parent"].to_numpy()
    rows = np.arange(len(corpus))
    assert parent[0] == -1
    assert np.all((parent == -1) | ((parent >= 0) & (parent < rows)))
    share = float(np.mean(parent >= 0))
    assert 0.28 <= share <= 0.42
    copies = parent >= 0
    assert np.any(parent[parent[copies]] >= 0)  # copies of copies exist


def test_example_corpus_is_deterministic_and_seeded():
    a = example_corpus(300, seed=7)
    b = example_corpus(300, seed=7)
    c = example_corpus(300, seed=8)
    pd.testing.assert_frame_equal(a, b)
    assert not a["text"].equals(c["text"])
    # a larger corpus is not a prefix of another seed's
    assert example_corpus(300, seed=np.int64(7))["text"].tolist() == a["text"].tolist()


def test_example_corpus_texts_are_short_news_items(corpus):
    lengths = corpus["text"].str.len()
    assert lengths.between(100, 300).mean() >= 0.95
    assert lengths.min() >= 60 and lengths.max() <= 400
    joined = " ".join(corpus["text"]).lower()
    assert "lorem" not in joined and "ipsum" not in joined
    originals = corpus.loc[corpus["parent"] < 0, "text"]
    assert originals.nunique() == len(originals)
    words = set(" ".join(originals).split())
    assert len(words) > 1500


def test_example_corpus_copies_spread_over_similarities(corpus):
    shingles = [char_shingles(t) for t in corpus["text"]]
    copies = np.flatnonzero(corpus["parent"].to_numpy() >= 0)
    j = np.array([jaccard(shingles[i], shingles[corpus["parent"][i]]) for i in copies])
    assert np.mean(j >= 0.3) >= 0.9
    assert 0.05 <= np.mean(j == 1.0) <= 0.3  # some exact duplicates
    assert 0.5 <= np.median(j) <= 0.85
    for low in np.arange(0.3, 1.0, 0.1):  # every tenth of the range 0.3..1 is used
        assert np.mean((j >= low) & (j < low + 0.1)) >= 0.04, low


def test_example_corpus_unrelated_items_are_dissimilar(corpus):
    originals = np.flatnonzero(corpus["parent"].to_numpy() < 0)
    rng = np.random.default_rng(0)
    pairs = rng.choice(originals, size=(3000, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    shingles = {i: char_shingles(corpus["text"][i]) for i in np.unique(pairs)}
    j = np.array([jaccard(shingles[a], shingles[b]) for a, b in pairs])
    assert np.mean(j < 0.2) >= 0.95
    assert np.median(j) < 0.08


def test_example_corpus_size_limits():
    assert len(example_corpus(300)) == 300
    big = example_corpus(20_000, seed=3)
    assert len(big) == 20_000 and big["parent"].max() < 20_000


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n": 299}, r"n=299 .*300 to 20,000"),
        ({"n": 20_001}, r"n=20001 .*300 to 20,000"),
        ({"n": 0}, r"300 to 20,000"),
        ({"n": -5}, r"300 to 20,000"),
        ({"n": 500.0}, r"n must be an integer, got 500.0"),
        ({"n": "500"}, r"n must be an integer"),
        ({"n": True}, r"n must be an integer, got True"),
        ({"n": None}, r"n must be an integer"),
        ({"seed": -1}, r"seed=-1 .*≥ 0"),
        ({"seed": 1.5}, r"seed must be an integer"),
        ({"seed": False}, r"seed must be an integer"),
    ],
)
def test_example_corpus_rejects(kwargs, match):
    with pytest.raises(ValueError, match=match):
        example_corpus(**kwargs)


# --------------------------------------------------------------------------------------
# parse_paste
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", []),
        ("   \n\t\n  ", []),
        ("one document", ["one document"]),
        ("  padded  ", ["padded"]),
        ("first\nsecond\nthird", ["first", "second", "third"]),
        ("first\r\nsecond\rthird\n", ["first", "second", "third"]),
        ("a\n\nb", ["a", "b"]),
        ("line 1\nline 2\n\nline 3\n  line 4  \n", ["line 1\nline 2", "line 3\n  line 4"]),
        ("a\n   \t \nb", ["a", "b"]),  # a whitespace-only line is blank
        ("a\r\n\r\nb\r\nc", ["a", "b\nc"]),
        ("a\n\n\n\n\nb\n\n", ["a", "b"]),
        ("\n\nonly\nlines\n\n", ["only", "lines"]),  # blank lines at the ends don't count
        ("x\n \ny\n\n\n", ["x", "y"]),
        (MIXED + "\n" + "ሰላም", [MIXED, "ሰላም"]),
        ("emoji 😀\n\nשלום\nעולם", ["emoji 😀", "שלום\nעולם"]),
    ],
)
def test_parse_paste(text, expected):
    assert parse_paste(text) == expected


@pytest.mark.parametrize("value", [None, b"bytes", 5, ["a", "b"]])
def test_parse_paste_rejects_non_str(value):
    with pytest.raises(ValueError, match="must be a str"):
        parse_paste(value)


# --------------------------------------------------------------------------------------
# CSV
# --------------------------------------------------------------------------------------


def test_csv_basic_with_quotes_newlines_and_empty_cells():
    data = (
        b"id,text,notes\n"
        b'1,"Hello, world",x\n'
        b'2,"multi\nline ""quoted""",\n'
        b"3,,y\n"
        b"\n"
        b"5,   ,z\n"
        b"6,last one,\n"
    )
    assert csv_columns(data) == ["id", "text", "notes"]
    assert read_csv_column(data, "text") == ["Hello, world", 'multi\nline "quoted"', "last one"]
    rows = read_csv_column_rows(data, "text")
    assert rows["row"].tolist() == [2, 3, 7]  # spreadsheet rows: header is row 1
    assert rows["row"].dtype == np.int64
    assert isinstance(rows.index, pd.RangeIndex)
    assert read_csv_column(data, 0) == ["1", "2", "3", "5", "6"]
    assert read_csv_column(data, np.int64(2)) == ["x", "y", "z"]
    assert read_csv_column(data, "  text ") == read_csv_column(data, "text")


@pytest.mark.parametrize("delimiter", [",", ";", "\t", "|"])
def test_csv_delimiters_are_sniffed(delimiter):
    rows = [["title", "body", "n"], ["A", "one, two; three", "1"], ["B", "four | five", "2"]]
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter, lineterminator="\r\n").writerows(rows)
    data = buffer.getvalue().encode()
    assert csv_columns(data) == ["title", "body", "n"]
    assert read_csv_column(data, "body") == ["one, two; three", "four | five"]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("text\nCafé crème\n".encode("utf-8-sig"), ["Café crème"]),  # UTF-8 with BOM
        ("text\n“Café” – naïve\n".encode("cp1252"), ["“Café” – naïve"]),  # Windows-1252
        (b"text\nbyte \x81 and \xe9\n", ["byte \x81 and é"]),  # not cp1252: Latin-1
        ("id\ttext\n1\tgrüße\n".encode("utf-16"), ["grüße"]),  # Excel "Unicode text"
        (f"text\n{MIXED}\n".encode(), [MIXED]),  # CJK, emoji, right-to-left
    ],
)
def test_csv_encodings(data, expected):
    assert read_csv_column(data, "text") == expected


def test_csv_latin1_file():
    data = "name;comment\nJosé;très bien, merci\nZoë;ça va\n".encode("latin-1")
    assert csv_columns(data) == ["name", "comment"]
    assert read_csv_column(data, "comment") == ["très bien, merci", "ça va"]


def test_csv_excel_sep_line():
    data = b"sep=;\r\nname;text\r\na;x, y\r\nb;z\r\n"
    assert csv_columns(data) == ["name", "text"]
    assert read_csv_column_rows(data, "text")["row"].tolist() == [2, 3]
    assert read_csv_column(data, "text") == ["x, y", "z"]


def test_csv_single_column_with_unquoted_commas():
    data = b"text\nHello, world\nfoo; bar, baz\n"
    assert csv_columns(data) == ["text"]
    assert read_csv_column(data, "text") == ["Hello, world", "foo; bar, baz"]


def test_csv_column_names_are_cleaned_and_deduplicated():
    data = b' a ,,a,"b\n  c"\n1,2,3,4\n'
    assert csv_columns(data) == ["a", "column 2", "a (2)", "b c"]
    assert read_csv_column(data, "a (2)") == ["3"]


def test_csv_trailing_empty_fields_are_tolerated():
    data = b"a,b\n1,2,\n3,4,,\n"
    assert read_csv_column(data, "b") == ["2", "4"]


def _zip_bytes() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("sheet.xml", "<x/>")
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"", r"CSV file is empty"),
        (b"  \r\n \n", r"CSV file is empty"),
        (b"text\n", r"single row \('text'\) and no data rows"),
        (b"a,b,c", r"single row \('a', 'b', 'c'\)"),
        (b"id,text\n1,hello\x00world\n", r"binary data \(it contains NUL bytes\)"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", r"looks like a PNG image"),
        (b"%PDF-1.7\n", r"looks like a PDF document"),
        (_zip_bytes(), r"ZIP archive \(an \.xlsx"),
        (gzip.compress(b"a,b\n1,2\n", mtime=0), r"gzip"),
        (b"a,b\n1,2,3\n", r"row 2 of the CSV file has 3 fields but the header \(row 1\) has 2"),
        (b"a,b,c\n1,2,3\n4,5\n", r"row 3 .* has 2 fields but the header \(row 1\) has 3"),
        (b'a,b\n1,2\n"3,4\n5,6\n', r"row 3 .*is a quote left open\?"),
        (b"x" * 300 + b",b\n1,2\n", r"does not look like a header: a cell has 300 characters"),
    ],
)
def test_csv_bad_files(data, match):
    with pytest.raises(ValueError, match=match):
        csv_columns(data)
    with pytest.raises(ValueError, match=match):
        read_csv_column(data, "text")


@pytest.mark.parametrize(
    ("column", "match"),
    [
        ("body", r"column 'body' is not in the CSV file; its columns are 'id', 'text', 'notes'"),
        ("", r"column '' is not in the CSV file"),
        (3, r"column position 3 is out of range; the CSV file has 3 columns \(0 to 2\)"),
        (-1, r"column position -1 is out of range"),
        (True, r"column must be a column name \(str\) or a 0-based position"),
        (1.0, r"column must be a column name"),
        ("notes", r"column 'notes' of the CSV file has no text: all 2 of its cells are empty"),
    ],
)
def test_csv_bad_column(column, match):
    data = b"id,text,notes\n1,hello,\n2,world,  \n"
    with pytest.raises(ValueError, match=match):
        read_csv_column(data, column)


def test_csv_size_limit_and_types():
    data = b"id,text\n1,hello\n"
    with pytest.raises(ValueError, match=r"16 bytes, more than the limit of 10 bytes"):
        csv_columns(data, max_bytes=10)
    assert csv_columns(data, max_bytes=None) == ["id", "text"]
    assert read_csv_column(bytearray(data), "text", max_bytes=16) == ["hello"]
    with pytest.raises(ValueError, match=r"max_bytes=0 is not accepted"):
        csv_columns(data, max_bytes=0)
    with pytest.raises(ValueError, match=r"CSV data must be bytes .*got str"):
        csv_columns("id,text\n1,hello\n")


def test_csv_long_fields_are_read():
    long_text = "word " * 40_000  # 200,000 characters, above the csv module's default limit
    data = ("id,text\n1," + long_text + "\n").encode()
    assert read_csv_column(data, "text") == [long_text.strip()]


# --------------------------------------------------------------------------------------
# read_document_file
# --------------------------------------------------------------------------------------

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
        ("doc.md", _zip_bytes(), r"file 'doc\.md' looks like a ZIP archive"),
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
    with pytest.raises(ValueError, match=r"must be bytes .*got str"):
        read_document_file("a.txt", "text")
    with pytest.raises(ValueError, match=r"file name must be a str"):
        read_document_file(None, b"text")
    with pytest.raises(ValueError, match=r"max_bytes=-1 is not accepted"):
        read_document_file("a.txt", b"x", max_bytes=-1)


# --------------------------------------------------------------------------------------
# Sample data
# --------------------------------------------------------------------------------------


def test_sample_files_are_small_and_listed():
    readme = (SAMPLE / "README.md").read_text(encoding="utf-8")
    files = [p for p in SAMPLE.rglob("*") if p.is_file() and p.name != "README.md"]
    assert files
    for path in files:
        assert path.stat().st_size < 200_000, path
        listed = path.name if path.parent == SAMPLE else f"{path.parent.name}/*{path.suffix}"
        assert listed in readme, path


def test_sample_job_posts_csv():
    data = (SAMPLE / "job_posts.csv").read_bytes()
    assert csv_columns(data) == ["id", "board", "title", "description", "posted"]
    texts = read_csv_column(data, "description")
    assert len(texts) == 27  # one empty description dropped
    shingles = [char_shingles(t) for t in texts]
    near = {
        (i, j)
        for i, j in itertools.combinations(range(len(texts)), 2)
        if jaccard(shingles[i], shingles[j]) >= 0.5
    }
    assert {(0, 1), (0, 2), (3, 4), (3, 5), (6, 7), (10, 11), (13, 14)} <= near
    assert len(set(read_csv_column(data, "board"))) >= 4


def test_sample_site_pages():
    pages = {
        p.name: read_document_file(p.name, p.read_bytes())
        for p in sorted((SAMPLE / "site").glob("*.html"))
    }
    assert len(pages) >= 4
    raw = {name: (SAMPLE / "site" / name).read_bytes() for name in pages}
    first, second = "riverside-ground.html", "riverside-ground-stand-on-stilts.html"
    assert raw[first] != raw[second]
    assert pages[first] == pages[second]
    for name, text in pages.items():
        for chrome in (
            "Recent posts",
            "About this guide",
            "All grounds",
            "newsletter",
            "Notes from the terraces",
            "wpnonce",
        ):
            assert chrome not in text, (name, chrome)
    assert "“wall tickets”" in pages["millbrook-lane.html"]  # declared windows-1252
    others = [t for n, t in pages.items() if n != second]
    for a, b in itertools.combinations(others, 2):
        assert jaccard(char_shingles(a), char_shingles(b)) < 0.15


def test_sample_pasted_paragraphs():
    path = SAMPLE / "pasted_paragraphs.txt"
    docs = parse_paste(read_document_file(path.name, path.read_bytes()))
    assert len(docs) == 11
    assert all("\n" in d for d in docs)  # lines inside a paragraph are kept
    shingles = [char_shingles(d) for d in docs]
    assert jaccard(shingles[1], shingles[8]) == 1.0
    assert jaccard(shingles[0], shingles[3]) > 0.7
    assert 0.3 < jaccard(shingles[2], shingles[6]) < 0.6


def test_guess_text_column_picks_the_prose_not_the_id():
    data = (SAMPLE / "job_posts.csv").read_bytes()
    assert guess_text_column(data) == "description"
    short = b"id,name,comment\n1,Ann,the ferry left at dawn with forty people\n2,Bo,ok\n"
    assert guess_text_column(short) == "comment"
    with pytest.raises(ValueError, match="empty"):
        guess_text_column(b"")
