"""The shipped sample data: small, listed in its README, and shaped as its README says."""

from __future__ import annotations

import itertools
from pathlib import Path

from support import char_shingles, jaccard

from nearsim.io.documents import csv_columns, parse_paste, read_csv_column, read_document_file

SAMPLE = Path(__file__).resolve().parent.parent / "sample_data"


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
