"""The benchmark corpora: real documents of this machine, and a crawl with boilerplate."""

import gzip
import itertools
import json
import os
from collections import Counter

import pytest

import nearsim as ns
from benchmarks.corpora import (
    COOKIE_BANNER,
    EMPTY_PAGE,
    NOT_FOUND_PAGE,
    _document,
    describe,
    hot_bucket_corpus,
    main,
    real_documents,
    roff_to_text,
    without_boilerplate,
    write_jsonl,
)

debian = pytest.mark.skipif(
    not (os.path.isdir("/usr/share/man") and os.path.isdir("/usr/share/doc")),
    reason="needs a Debian-like system with /usr/share/man and /usr/share/doc",
)


def jaccard(a: str, b: str) -> float:
    """Exact Jaccard similarity of two texts' character 5-gram sets."""
    x, y = set(ns.shingles(a)), set(ns.shingles(b))
    return len(x & y) / len(x | y)


PAGE = r""".\" a comment that must not show
.de XX
.ft B
..
.TH LS 1 "May 2024" "GNU coreutils" "User Commands"
.SH NAME
ls \- list directory contents
.SH "SEE ALSO"
.BR dir (1),
\fBbold\fR and \fIitalic\fP, \f(CWcode\fP, \f[B]more\f[]
.PP
It\(aqs \(dqquoted\(dq \(em a back\eslash\&.
.IP \(bu 2
item
.TP
\fB\-a\fR, \fB\-\-all\fR
do not ignore entries starting with .
"""


def test_roff_keeps_headings_and_text_and_drops_fonts_and_escapes():
    assert roff_to_text(PAGE) == (
        "LS 1 May 2024 GNU coreutils User Commands\n\n"
        "NAME\nls - list directory contents\n\n"
        "SEE ALSO\ndir(1),\nbold and italic, code, more\n\n"
        'It\'s "quoted" — a back\\slash.\n•\nitem\n\n'
        "-a, --all\ndo not ignore entries starting with ."
    )


def test_roff_mdoc_synopsis():
    page = ".Sh SYNOPSIS\n.Nm ssh\n.Op Fl b Ar address\n.Sh DESCRIPTION\n.Nm\nconnects."
    assert roff_to_text(page) == "SYNOPSIS\nssh\n[-b address]\n\nDESCRIPTION\nssh\nconnects."


def test_files_that_are_not_documents_are_left_out(tmp_path):
    page = "\n".join([".TH X 1", ".SH NAME", "x \\- does things", *["text line"] * 40])
    (tmp_path / "x.1.gz").write_bytes(gzip.compress(page.encode()))
    (tmp_path / "y.1.gz").write_bytes(gzip.compress(b'.\\" see x\n.so man1/x.1\n'))
    (tmp_path / "bin.txt").write_bytes(b"text" * 100 + b"\0" + b"text" * 100)
    (tmp_path / "latin.txt").write_bytes(bytes(range(128, 256)) * 4)
    assert _document("man", str(tmp_path / "x.1.gz"), 200, 10_000).startswith("X 1\n\nNAME")
    assert _document("man", str(tmp_path / "x.1.gz"), 200, 50) == roff_to_text(page)[:50]
    assert _document("man", str(tmp_path / "x.1.gz"), 10_000, 20_000) is None  # too short
    assert _document("man", str(tmp_path / "y.1.gz"), 0, 10_000) is None  # a redirect
    assert _document("doc", str(tmp_path / "bin.txt"), 1, 10_000) is None  # binary
    assert _document("doc", str(tmp_path / "latin.txt"), 1, 10_000) is None  # not UTF-8


@debian
def test_real_documents_sample_is_mixed_and_repeatable():
    records = real_documents(300, seed=3)
    assert records == real_documents(300, seed=3)
    assert records != real_documents(300, seed=4)
    assert len(records) == 300
    assert len({r["id"] for r in records}) == 300
    sources = [r["source"] for r in records]
    assert set(sources) == {"man", "doc", "python"}
    assert all(r["id"].startswith(r["source"] + ":") for r in records)
    assert all(200 <= len(r["text"]) <= 200_000 for r in records)
    assert not any("\0" in r["text"] for r in records)
    # a crawl's order, not grouped by source: the source changes often along the list
    assert sum(a != b for a, b in itertools.pairwise(sources)) > 30
    # manual pages arrive as text: headings kept, no roff left
    pages = [r["text"] for r in records if r["source"] == "man"]
    assert sum("NAME" in t[:500] for t in pages) > 0.8 * len(pages)
    assert not any("\\fB" in t or "\n.SH" in t for t in pages)


@pytest.mark.parametrize(
    ("n", "news", "banner", "not_found", "empty", "dated"),
    [(2_000, 1_550, 180, 80, 40, 50), (60_000, 49_400, 5_400, 2_400, 1_200, 1_500)],
)
def test_hot_corpus_mix_is_exact_and_scales(n, news, banner, not_found, empty, dated):
    records = hot_bucket_corpus(n, seed=5)
    assert [r["id"] for r in records] == [f"d{row:07d}" for row in range(n)]
    assert Counter(r["source"] for r in records) == {
        "news": news, "boilerplate": banner + not_found + empty, "dated": dated, "chain": 100
    }  # fmt: skip
    texts = Counter(r["text"] for r in records if r["source"] == "boilerplate")
    assert texts == {COOKIE_BANNER: banner, NOT_FOUND_PAGE: not_found, EMPTY_PAGE: empty}
    facts = describe(records)
    assert facts["by_source"]["boilerplate"]["exact_copies"] == banner + not_found + empty - 3
    assert facts["by_source"]["dated"]["exact_copies"] == 0
    assert facts["by_source"]["chain"]["exact_copies"] == 0
    # spread through the file, as in a crawl, not in one block
    rows = [i for i, r in enumerate(records) if r["source"] != "news"]
    assert rows[0] < n // 20 and rows[-1] > n - n // 20


def test_hot_corpus_is_repeatable_and_follows_its_seed():
    assert hot_bucket_corpus(1_000, seed=2) == hot_bucket_corpus(1_000, seed=2)
    assert hot_bucket_corpus(1_000, seed=2) != hot_bucket_corpus(1_000, seed=3)
    with pytest.raises(ValueError, match="n=999 is not accepted"):
        hot_bucket_corpus(999)


def test_chain_neighbours_are_close_and_its_ends_far_apart():
    chain = [r["text"] for r in hot_bucket_corpus(3_000, seed=1) if r["source"] == "chain"]
    assert len(chain) == 100
    assert 1_300 <= len(chain[0]) <= 1_800
    neighbours = [jaccard(a, b) for a, b in itertools.pairwise(chain)]
    assert min(neighbours) > 0.9
    assert max(neighbours) < 1.0  # every step is an edit
    assert jaccard(chain[0], chain[-1]) < 0.6  # far below a 0.8 threshold


def test_dated_banners_share_most_shingles_but_are_not_copies():
    dated = [r["text"] for r in hot_bucket_corpus(2_000) if r["source"] == "dated"]
    assert len(set(dated)) == len(dated) and COOKIE_BANNER not in dated
    assert all(t.startswith(COOKIE_BANNER) for t in dated)
    assert min(jaccard(a, COOKIE_BANNER) for a in dated[:20]) > 0.85
    assert min(jaccard(a, b) for a, b in itertools.pairwise(dated[:21])) > 0.85


def test_without_boilerplate_keeps_the_rest_with_the_same_ids():
    records = hot_bucket_corpus(2_000)
    plain = without_boilerplate(records)
    assert Counter(r["source"] for r in plain) == {"news": 1_550, "chain": 100}
    assert plain == [r for r in records if r["source"] in ("news", "chain")]


def test_describe_counts_exact_copies_of_earlier_records():
    records = [
        {"text": "aaaa", "source": "x"},
        {"text": "bb", "source": "y"},
        {"text": "aaaa", "source": "y"},
        {"text": "aaaa", "source": "x"},
    ]
    assert describe(records) == {
        "documents": 4, "mean_chars": 3.5, "median_chars": 4.0, "exact_copies": 2,
        "distinct_texts": 2,
        "by_source": {
            "x": {"documents": 2, "mean_chars": 4.0, "median_chars": 4.0, "exact_copies": 1},
            "y": {"documents": 2, "mean_chars": 3.0, "median_chars": 3.0, "exact_copies": 1},
        },
    }  # fmt: skip


def test_write_jsonl_and_the_command_line(tmp_path, capsys):
    records = [{"id": "a", "text": "Café · «x»\nline", "source": "doc"}]
    assert write_jsonl(records, tmp_path / "one.jsonl") == 1
    raw = (tmp_path / "one.jsonl").read_text("utf-8")
    assert raw == '{"id": "a", "text": "Café · «x»\\nline", "source": "doc"}\n'

    assert main(["hot", "--n", "1000", "--without-boilerplate", "--out", str(tmp_path / "h")]) == 0
    lines = (tmp_path / "h").read_text("utf-8").splitlines()
    assert len(lines) == 1_000 - 150 - 25
    assert {json.loads(line)["source"] for line in lines} == {"news", "chain"}
    out = capsys.readouterr().out
    assert "exact copies" in out and "wrote 825 records" in out


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: real_documents(-1), "n=-1"),
        (lambda: real_documents(10, seed=-2), "seed=-2"),
        (lambda: real_documents(10, min_chars=500, max_chars=100), "max_chars=100"),
        (lambda: hot_bucket_corpus(5_000, seed=1.5), "seed=1.5"),
    ],
)
def test_bad_arguments_are_refused_with_their_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()
