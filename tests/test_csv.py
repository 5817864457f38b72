"""CSV uploads: delimiters, encodings, quoting, header rows, columns, limits."""

from __future__ import annotations

import csv
import gzip
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from support import MIXED, zip_bytes

from nearsim.io.documents import (
    csv_columns,
    guess_text_column,
    inspect_csv,
    read_csv_column,
    read_csv_column_rows,
)

SAMPLE = Path(__file__).resolve().parent.parent / "sample_data"


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
        (zip_bytes(), r"ZIP archive \(an \.xlsx"),
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
        (
            True,
            r"column=True is not accepted; accepted: a column name \(str\) or a 0-based position",
        ),
        (1.0, r"column=1.0 is not accepted; accepted: a column name"),
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
    with pytest.raises(ValueError, match=r"data='id,text.* is not accepted; accepted: bytes"):
        csv_columns("id,text\n1,hello\n")


def test_csv_long_fields_are_read():
    long_text = "word " * 40_000  # 200,000 characters, above the csv module's default limit
    data = ("id,text\n1," + long_text + "\n").encode()
    assert read_csv_column(data, "text") == [long_text.strip()]


def test_guess_text_column_picks_the_prose_not_the_id():
    data = (SAMPLE / "job_posts.csv").read_bytes()
    assert guess_text_column(data) == "description"
    short = b"id,name,comment\n1,Ann,the ferry left at dawn with forty people\n2,Bo,ok\n"
    assert guess_text_column(short) == "comment"
    with pytest.raises(ValueError, match="empty"):
        guess_text_column(b"")


# --------------------------------------------------------------------------------------
# Malformed quoting raises and names the row (issue 10: it used to swallow the file)
# --------------------------------------------------------------------------------------


def _numbered_rows(n: int, bad_row: int | None = None, bad: str = "") -> bytes:
    lines = ["id,text"]
    for row in range(2, n + 2):  # spreadsheet rows: the header is row 1
        lines.append(f"{row},{bad}document number {row}" if row == bad_row else f"{row},doc {row}")
    return ("\n".join(lines) + "\n").encode()


def test_csv_unclosed_quote_raises_naming_its_row():
    data = _numbered_rows(1000, bad_row=8, bad='"')
    for call in (csv_columns, guess_text_column, lambda d: read_csv_column(d, "text")):
        with pytest.raises(ValueError, match=r"row 8 of the CSV file starts a quoted field that"):
            call(data)
    with pytest.raises(ValueError, match=r"from line 8 to the end of the file \(line 1001\)"):
        read_csv_column(data, "text")
    assert len(read_csv_column(_numbered_rows(1000), "text")) == 1000


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b'a,b\n1,"x"y\n2,z\n', r"row 2 of the CSV file \(line 2\) is malformed: ',' expected"),
        # the open quote of row 3 is closed by the opening quote of row 5's field
        (b'a,b\n1,x\n2,"oops\n3,y\n4,"quoted"\n', r"row 3 .* is malformed"),
        (b'a,b\n1,x\n2,"never closed, "" doubled inside\n', r"row 3 .* never ends"),
        (b'a;b\r\n1;"open\r\n', r"row 2 .* never ends"),
    ],
)
def test_csv_malformed_quoting_raises(data, match):
    with pytest.raises(ValueError, match=match):
        read_csv_column(data, "b")


def test_csv_quoted_field_cut_by_the_sniffing_sample():
    """The delimiter is sniffed from the first 64 KB; a quoted field cut there is fine."""
    long_field = "line\n" * 20_000  # a quoted field across the 64 KB mark
    data = f'a;b\n1;"{long_field}"\n2;two, three\n'.encode()
    assert csv_columns(data) == ["a", "b"]
    assert read_csv_column(data, "b") == [long_field.strip(), "two, three"]


def test_csv_size_message_states_size_and_limit_only():
    with pytest.raises(
        ValueError, match=r"^the CSV file is 16 bytes, more than the limit of 10 bytes$"
    ):
        csv_columns(b"id,text\n1,hello\n", max_bytes=10)


# --------------------------------------------------------------------------------------
# Header rows (issue 9 item 5): detected, said, and overridable
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "has_header", "evidence"),
    [
        (
            b"17,Leeds,2024-03-01\n18,Cork,2024-03-02\n19,Graz,2024-03-05\n",
            False,
            r"'17', a number",
        ),
        (
            b"the ferry left at dawn with forty people aboard\n"
            b"the ferry left at noon with thirty people aboard\n"
            b"a storm closed the harbour for two days in March\n",
            False,
            r"prose like the cells below",
        ),
        (b"yes,Ann\nno,Bo\nyes,Cy\nno,Di\nyes,Ed\n", False, r"'yes', a value that recurs"),
        (b"id,city,day\n17,Leeds,2024-03-01\n18,Cork,2024-03-02\n", True, r"'id' is text above"),
        (
            b"text\nthe ferry left at dawn with forty people aboard\n"
            b"the ferry left at noon with thirty people aboard\n",
            True,
            r"'text' is a short label above a column of prose",
        ),
        (b"a,b\n1,x\na,b\n2,y\n", True, r"recurs further down"),
        (b"name,comment\nAnn,fine\nBo,ok\n", True, r"nothing in it looks like data"),
    ],
)
def test_inspect_csv_detects_the_header_row(data, has_header, evidence):
    info = inspect_csv(data)
    assert info.has_header is has_header
    assert re.search(evidence, info.why), info.why
    if not has_header:
        assert info.why.startswith("This file seems to have no header row")
        assert "column 1, column 2" in info.why
        assert info.columns == tuple(f"column {i + 1}" for i in range(len(info.columns)))


def test_csv_without_header_keeps_its_first_row():
    data = b"17,the ferry left at dawn\n18,the ferry left at noon\n19,a storm came\n"
    info = inspect_csv(data)
    assert (info.has_header, info.columns, info.rows) == (False, ("column 1", "column 2"), 3)
    assert (info.delimiter, info.encoding) == (",", "utf-8")
    assert csv_columns(data) == ["column 1", "column 2"]
    rows = read_csv_column_rows(data, "column 2")
    assert rows["row"].tolist() == [1, 2, 3]
    assert rows["text"].tolist()[0] == "the ferry left at dawn"
    assert guess_text_column(data) == "column 2"
    # stated explicitly, the first row is the header again
    assert csv_columns(data, header=True) == ["17", "the ferry left at dawn"]
    assert read_csv_column(data, 1, header=True) == ["the ferry left at noon", "a storm came"]
    assert "as asked" in inspect_csv(data, header=True).why


def test_csv_header_false_reads_every_row():
    data = b"id,text\n1,hello\n"
    assert inspect_csv(data).has_header
    info = inspect_csv(data, header=False)
    assert (info.has_header, info.rows) == (False, 2)
    assert read_csv_column(data, "column 2", header=False) == ["text", "hello"]
    assert read_csv_column_rows(data, 1, header=False)["row"].tolist() == [1, 2]
    # a single-row file is readable once its row is data
    assert read_csv_column(b"just one line of text\n", 0, header=False) == ["just one line of text"]


def test_csv_without_header_ragged_row_names_the_first_row():
    with pytest.raises(ValueError, match=r"row 3 .* has 3 fields but the first row has 2"):
        csv_columns(b"1,a\n2,b\n3,c,d\n", header=False)


@pytest.mark.parametrize("header", ["yes", 1, np.nan, "false"])
def test_csv_header_argument_is_checked(header):
    with pytest.raises(
        ValueError, match=r"header=.* is not accepted; accepted: True, False or None"
    ):
        inspect_csv(b"id,text\n1,hello\n", header=header)


def test_sample_job_posts_has_a_header():
    info = inspect_csv((SAMPLE / "job_posts.csv").read_bytes())
    assert info.has_header and info.rows == 28
    assert info.columns[:2] == ("id", "board")
