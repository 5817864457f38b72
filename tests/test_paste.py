"""Pasted text: lines or blank-line-separated blocks."""

from __future__ import annotations

import pytest
from support import MIXED

from nearsim.io.documents import parse_paste


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
    with pytest.raises(ValueError, match=r"text=.* is not accepted; accepted: a str"):
        parse_paste(value)


def test_parse_paste_rejects_lone_surrogates():
    with pytest.raises(ValueError, match=r"text=.* lone surrogate .* at position 2"):
        parse_paste("ab\udfffc")
