"""Documents in: the generated example, pasted text, a CSV column, and text/HTML files.

Every loader takes what a person hands the app (a string or the bytes of an upload) and
returns plain text, or raises :class:`ValueError` with a message that says what was found
and what is accepted. Nothing here touches the network or the file system.

Decoding
    Text and CSV: UTF-8 (with or without a byte-order mark), else Windows-1252, else
    Latin-1 (which never fails). UTF-16/UTF-32 files are read when they start with a
    byte-order mark. HTML: a byte-order mark, else the charset the page declares
    (``<meta charset>`` or ``http-equiv="Content-Type"``; ``iso-8859-1``/``ascii`` mean
    Windows-1252 as in browsers), else the same UTF-8 → Windows-1252 → Latin-1 chain.

Binary data
    NUL bytes, or the signature of a PNG, JPEG, GIF, PDF, ZIP (also .xlsx/.docx), gzip,
    7-Zip, old Office or ELF file, is rejected with a message naming what it looks like.
"""

from __future__ import annotations

import codecs
import csv
import functools
import io
import itertools
import re
import string
import threading
from collections.abc import Callable
from pathlib import PurePath

import numpy as np
import pandas as pd

__all__ = [
    "DOCUMENT_EXTENSIONS",
    "EXAMPLE_MAX_DOCS",
    "EXAMPLE_MIN_DOCS",
    "MAX_CSV_BYTES",
    "MAX_FILE_BYTES",
    "csv_columns",
    "example_corpus",
    "guess_text_column",
    "parse_paste",
    "read_csv_column",
    "read_csv_column_rows",
    "read_document_file",
]

EXAMPLE_MIN_DOCS = 300
EXAMPLE_MAX_DOCS = 20_000
MAX_FILE_BYTES = 5_000_000
MAX_CSV_BYTES = 50_000_000
DOCUMENT_EXTENSIONS = (".txt", ".md", ".html", ".htm")
CSV_DELIMITERS = (",", ";", "\t", "|")

# --------------------------------------------------------------------------------------
# Shared input checks
# --------------------------------------------------------------------------------------

_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive (an .xlsx, .docx or .zip file?)"),
    (b"PK\x05\x06", "an empty ZIP archive"),
    (b"\x1f\x8b", "a gzip-compressed file"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Microsoft Office file (.xls or .doc?)"),
    (b"\x7fELF", "an executable program"),
)

_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)


def _as_bytes(data: object, what: str) -> bytes:
    """Return ``data`` as ``bytes`` or raise a ValueError naming ``what``."""
    if isinstance(data, bytes):
        return data
    if isinstance(data, bytearray | memoryview):
        return bytes(data)
    raise ValueError(
        f"{what} must be bytes (the raw contents of the file), got {type(data).__name__}"
    )


def _check_limit(max_bytes: object) -> int | None:
    if max_bytes is None:
        return None
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int | np.integer) or max_bytes < 1:
        raise ValueError(f"max_bytes={max_bytes!r} is not accepted; use a positive integer or None")
    return int(max_bytes)


def _check_size(data: bytes, max_bytes: int | None, what: str) -> None:
    if max_bytes is not None and len(data) > max_bytes:
        raise ValueError(
            f"{what} is {len(data):,} bytes, more than the limit of {max_bytes:,} bytes; "
            "use a smaller file (or raise max_bytes)"
        )


def _bom_encoding(data: bytes) -> str | None:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding
    return None


def _binary_kind(data: bytes) -> str | None:
    """What binary data looks like, or None if it may be text."""
    for signature, kind in _SIGNATURES:
        if data.startswith(signature):
            return kind
    if _bom_encoding(data) in ("utf-16", "utf-32"):
        return None
    if b"\x00" in data:
        return "binary data (it contains NUL bytes)"
    return None


def _decode(data: bytes, declared: str | None = None) -> tuple[str, str]:
    """Decode bytes to text; return ``(text, encoding used)``.

    Order: byte-order mark, ``declared`` (if it decodes cleanly), UTF-8, Windows-1252,
    Latin-1. Line ends become ``"\\n"``.
    """
    bom = _bom_encoding(data)
    if bom is not None:
        text = data.decode(bom, errors="replace")
        encoding = bom
    else:
        text = None
        encoding = ""
        for candidate in (declared, "utf-8", "cp1252", "latin-1"):
            if candidate is None:
                continue
            try:
                text = data.decode(candidate)
            except (UnicodeDecodeError, LookupError):
                continue
            encoding = candidate
            break
        if text is None:  # pragma: no cover - latin-1 decodes every byte string
            text, encoding = data.decode("latin-1", errors="replace"), "latin-1"
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n"), encoding


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


def _short(value: str, limit: int = 60) -> str:
    """``repr`` of a string cut to ``limit`` characters, for messages."""
    if len(value) > limit:
        value = value[: limit - 1] + "…"
    return repr(value)


# --------------------------------------------------------------------------------------
# Paste
# --------------------------------------------------------------------------------------

_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")


def parse_paste(text: str) -> list[str]:
    """Split pasted text into documents.

    Line ends ``\\r\\n`` and ``\\r`` are read as ``\\n`` and blank lines at the very start
    and end are ignored. If a blank line (empty or only white space) remains, the
    documents are the blank-line-separated blocks, each keeping its lines joined by
    ``"\\n"``; otherwise every line is one document. Each piece is stripped and empty
    pieces are dropped.

    Parameters
    ----------
    text : str
        The pasted text.

    Returns
    -------
    list of str
        The documents, in order (empty if the text is empty or only white space).

    Raises
    ------
    ValueError
        If ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        raise ValueError(f"pasted text must be a str, got {type(text).__name__}")
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        return []
    pieces = _BLANK_LINE.split(text) if _BLANK_LINE.search(text) else text.split("\n")
    return [p for p in (piece.strip() for piece in pieces) if p]


# --------------------------------------------------------------------------------------
# CSV
# --------------------------------------------------------------------------------------

_CSV_FIELD_LOCK = threading.Lock()
_HEADER_MAX_CHARS = 200
_EXCEL_SEP = re.compile(r"sep=([,;\t|])[^\S\n]*\n")


def _raise_field_limit(size: int) -> None:
    """Let the csv module read fields up to ``size`` characters (it only ever grows)."""
    with _CSV_FIELD_LOCK:
        if csv.field_size_limit() < size:
            csv.field_size_limit(size)


def _read_rows(text: str, delimiter: str) -> list[tuple[int, list[str]]]:
    """Parse CSV text; return ``(record number, fields)`` for every non-blank record.

    Record numbers count from 1 (the header) as a spreadsheet numbers its rows; a blank
    line is a record of its own.
    """
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, quotechar='"')
    rows = []
    try:
        for number, fields in enumerate(reader, start=1):
            if len(fields) > 1 or (fields and fields[0].strip()):
                rows.append((number, fields))
    except csv.Error as exc:
        raise ValueError(
            f"the CSV file is malformed near line {reader.line_num} ({exc}); is a quote left open?"
        ) from exc
    return rows


def _sample_score(text: str, delimiter: str) -> tuple[float, int]:
    """(share of sample records with as many fields as the first, fields in the first)."""
    try:
        rows = _read_rows(text, delimiter)
    except ValueError:
        return (0.0, 0)
    if not rows:
        return (0.0, 0)
    width = len(rows[0][1])
    same = sum(1 for _, fields in rows if len(fields) == width)
    return (same / len(rows), width)


def _sniff_delimiter(text: str) -> str:
    """Pick the delimiter among ``, ; tab |``.

    ``csv.Sniffer`` proposes one; the proposal is kept if it splits a sample into
    records of equal width (two columns or more). Otherwise the candidate giving records
    of equal width with the most columns wins. A header that no candidate splits means a
    one-column file (then any candidate that leaves every record whole will do).
    Failing all that, the candidate with the most consistent records is returned and
    the full parse reports the ragged rows.
    """
    sample = text[:65_536]
    if len(text) > len(sample) and "\n" in sample:
        sample = sample[: sample.rindex("\n")]
    try:
        head = sample[:8192]  # the Sniffer's regular expressions slow down on long samples
        proposed = csv.Sniffer().sniff(head, delimiters="".join(CSV_DELIMITERS)).delimiter
    except csv.Error:
        proposed = None
    scores = {d: _sample_score(sample, d) for d in CSV_DELIMITERS}
    consistent = [d for d in CSV_DELIMITERS if scores[d][0] == 1.0 and scores[d][1] >= 2]
    if proposed in consistent:
        return proposed
    if consistent:
        return max(consistent, key=lambda d: scores[d][1])
    if all(width <= 1 for _, width in scores.values()):
        whole = [d for d in CSV_DELIMITERS if scores[d][0] == 1.0]
        if whole:
            return whole[0]
    return max(CSV_DELIMITERS, key=lambda d: (scores[d][1] >= 2, scores[d]))


def _column_names(header: list[str]) -> list[str]:
    """Header cells with white space collapsed, blanks named and repeats numbered."""
    names: list[str] = []
    taken: set[str] = set()
    for position, cell in enumerate(header, start=1):
        name = " ".join(cell.split()) or f"column {position}"
        if name in taken:
            count = 2
            while f"{name} ({count})" in taken:
                count += 1
            name = f"{name} ({count})"
        taken.add(name)
        names.append(name)
    return names


def _names_list(names: list[str], limit: int = 30) -> str:
    shown = ", ".join(_short(n, 40) for n in names[:limit])
    if len(names) > limit:
        shown += f", … ({len(names)} columns in all)"
    return shown


def _parse_csv(data: object, max_bytes: object) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Check, decode and parse CSV bytes; return (column names, data records)."""
    data = _as_bytes(data, "CSV data")
    _check_size(data, _check_limit(max_bytes), "the CSV file")
    kind = _binary_kind(data)
    if kind is not None:
        raise ValueError(f"the CSV file looks like {kind}, not text; upload a .csv text file")
    text, encoding = _decode(data)
    if not text.strip():
        raise ValueError("the CSV file is empty; it needs a header row and at least one data row")
    excel_sep = _EXCEL_SEP.match(text)
    if excel_sep:  # Excel's "sep=;" first line names the delimiter; Excel hides the line
        delimiter, text = excel_sep.group(1), text[excel_sep.end() :]
    else:
        delimiter = _sniff_delimiter(text)
    _raise_field_limit(len(text) + 1)
    rows = _read_rows(text, delimiter)
    found = f"(read as {encoding}, delimiter {delimiter!r})"
    header_number, header = rows[0]
    names = _column_names(header)
    long_names = [c for c in header if len(c) > _HEADER_MAX_CHARS]
    if long_names:
        raise ValueError(
            "the first row of the CSV file does not look like a header: a cell has "
            f"{len(long_names[0]):,} characters ({_short(long_names[0])}); the first row must "
            f"name the columns {found}"
        )
    records = rows[1:]
    if not records:
        raise ValueError(
            f"the CSV file has a single row ({_names_list(names)}) and no data rows; it needs "
            f"a header row naming the columns and then one row per document {found}"
        )
    width = len(header)
    for number, fields in records:
        if len(fields) > width and not any(fields[width:]):
            del fields[width:]
        if len(fields) != width:
            hint = "check the delimiter and that fields containing it are quoted"
            if any("\n" in field for field in fields):
                hint = "a field in it runs over several lines: is a quote left open?"
            raise ValueError(
                f"row {number} of the CSV file has {_count(len(fields), 'field')} but the "
                f"header (row {header_number}) has {width} ({_names_list(names, 8)}) {found}; "
                f"{hint}"
            )
    return names, records


def _column_index(names: list[str], column: object) -> int:
    if isinstance(column, bool) or not isinstance(column, str | int | np.integer):
        raise ValueError(
            f"column must be a column name (str) or a 0-based position (int), got "
            f"{type(column).__name__}; the file's columns are {_names_list(names)}"
        )
    if isinstance(column, str):
        for wanted in (column, " ".join(column.split())):
            if wanted in names:
                return names.index(wanted)
        raise ValueError(
            f"column {_short(column, 40)} is not in the CSV file; its columns are "
            f"{_names_list(names)}"
        )
    if not 0 <= column < len(names):
        raise ValueError(
            f"column position {int(column)} is out of range; the CSV file has "
            f"{len(names)} columns (0 to {len(names) - 1}): {_names_list(names)}"
        )
    return int(column)


def csv_columns(data: bytes, *, max_bytes: int | None = MAX_CSV_BYTES) -> list[str]:
    """List the columns of a CSV file, for the column picker.

    The whole file is parsed and checked, so a file whose columns are listed can also be
    read with :func:`read_csv_column`.

    Parameters
    ----------
    data : bytes
        The raw file. UTF-8 (BOM or not), else Windows-1252, else Latin-1 (UTF-16 with
        a BOM too); delimiter ``,`` ``;`` tab or ``|``, detected (or named by an Excel
        ``sep=`` first line); quoted fields may hold delimiters, quotes (doubled) and
        line breaks. Blank lines are skipped.
    max_bytes : int or None
        Largest accepted file size in bytes (default 50,000,000); None for no limit.

    Returns
    -------
    list of str
        The column names from the header row, white space collapsed; a blank name
        becomes ``"column N"`` (N counted from 1) and a repeated name gets ``" (2)"``,
        ``" (3)"``, … appended.

    Raises
    ------
    ValueError
        Not bytes, over the size limit, binary data, empty, a single row, ragged rows,
        malformed quoting, or a first row that cannot be a header.
    """
    names, _ = _parse_csv(data, max_bytes)
    return names


def _text_score(cells: list[str]) -> tuple[float, float]:
    """How much a column's cells look like prose: (median words, median characters)."""
    filled = [c for c in cells if c.strip()]
    if not filled:
        return (0.0, 0.0)
    words = [sum(1 for w in c.split() if any(ch.isalpha() for ch in w)) for c in filled]
    chars = [len(c) for c in filled]
    return (float(np.median(words)), float(np.median(chars)))


def guess_text_column(data: bytes, *, max_bytes: int | None = MAX_CSV_BYTES) -> str:
    """The column of a CSV file that most looks like the documents' text.

    The column whose non-empty cells have the most words (runs holding a letter) at the
    median, ties broken by the median length in characters and then by position: on a
    file with columns ``id, title, description`` it is ``description``, not ``id``.

    Parameters
    ----------
    data : bytes
        The raw file (see :func:`csv_columns`).
    max_bytes : int or None
        Largest accepted file size in bytes; None for no limit.

    Returns
    -------
    str
        One of the names :func:`csv_columns` returns.

    Raises
    ------
    ValueError
        Everything :func:`csv_columns` raises.
    """
    names, records = _parse_csv(data, max_bytes)
    scores = [_text_score([fields[i] for _, fields in records]) for i in range(len(names))]
    best = max(range(len(names)), key=lambda i: (scores[i], -i))
    return names[best]


def read_csv_column_rows(
    data: bytes, column: str | int, *, max_bytes: int | None = MAX_CSV_BYTES
) -> pd.DataFrame:
    """The non-empty cells of one CSV column, with the spreadsheet row each came from.

    Parameters
    ----------
    data : bytes
        The raw file (see :func:`csv_columns`).
    column : str or int
        A name as returned by :func:`csv_columns` (white space in it may differ), or a
        0-based column position.
    max_bytes : int or None
        Largest accepted file size in bytes; None for no limit.

    Returns
    -------
    pandas.DataFrame
        Columns ``row`` (int64: the row number a spreadsheet shows, the header being
        row 1, a blank line counting as a row) and ``text`` (the cell, stripped), one row
        per cell that is not empty or only white space, in file order; a default
        RangeIndex, so document ``i`` of the app is ``row`` ``i`` of the file.

    Raises
    ------
    ValueError
        Everything :func:`csv_columns` raises, an unknown column (the message lists the
        columns found), or a column whose cells are all empty.
    """
    names, records = _parse_csv(data, max_bytes)
    index = _column_index(names, column)
    rows: list[int] = []
    texts: list[str] = []
    for number, fields in records:
        cell = fields[index].strip()
        if cell:
            rows.append(number)
            texts.append(cell)
    if not texts:
        raise ValueError(
            f"column {names[index]!r} of the CSV file has no text: all {len(records)} of its "
            f"cells are empty; the file's columns are {_names_list(names)}"
        )
    return pd.DataFrame({"row": np.asarray(rows, dtype=np.int64), "text": texts})


def read_csv_column(
    data: bytes, column: str | int, *, max_bytes: int | None = MAX_CSV_BYTES
) -> list[str]:
    """The texts of one CSV column, one document per non-empty cell.

    Cells that are empty or only white space are dropped (they are not documents);
    every other cell is stripped. Use :func:`read_csv_column_rows` to know which row of
    the file each document came from.

    Parameters
    ----------
    data : bytes
        The raw file (see :func:`csv_columns`).
    column : str or int
        A name as returned by :func:`csv_columns`, or a 0-based column position.
    max_bytes : int or None
        Largest accepted file size in bytes (default 50,000,000); None for no limit.

    Returns
    -------
    list of str
        The texts, in file order.

    Raises
    ------
    ValueError
        See :func:`read_csv_column_rows`.
    """
    return read_csv_column_rows(data, column, max_bytes=max_bytes)["text"].tolist()


# --------------------------------------------------------------------------------------
# Files: .txt, .md, .html
# --------------------------------------------------------------------------------------

_DROPPED_TAGS = frozenset((
    "script", "style", "noscript", "template", "nav", "header", "footer", "aside",
    "head", "title", "iframe", "object", "embed", "canvas", "video", "audio",
))  # fmt: skip
_DROPPED_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary"})
_BLOCK_TAGS = frozenset((
    "address", "article", "blockquote", "body", "caption", "center", "dd", "details",
    "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "form", "h1", "h2",
    "h3", "h4", "h5", "h6", "hgroup", "hr", "html", "legend", "li", "main", "menu", "ol",
    "p", "pre", "section", "summary", "table", "tbody", "tfoot", "thead", "tr", "ul",
    "option", "textarea",
))  # fmt: skip
_CELL_TAGS = frozenset(("td", "th"))
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_WHITESPACE = re.compile(r"\s+")
_BROWSER_CHARSETS = {"iso8859-1": "cp1252", "ascii": "cp1252", "latin-1": "cp1252"}


def _declared_charset(data: bytes) -> str | None:
    """The charset an HTML page declares, as a Python codec name, or None."""
    from bs4.dammit import EncodingDetector

    declared = EncodingDetector.find_declared_encoding(data, is_html=True)
    if not declared:
        return None
    try:
        name = codecs.lookup(declared).name
    except LookupError:
        return None
    if name.startswith(("utf-16", "utf-32")):
        return "utf-8"  # a page in UTF-16 has a BOM; a declared UTF-16 means UTF-8 (HTML spec)
    if name in ("utf-7",):
        return None
    return _BROWSER_CHARSETS.get(name, name)


def _is_hidden(tag: object) -> bool:
    attrs = getattr(tag, "attrs", None)
    if not attrs:
        return False
    if "hidden" in attrs:
        return True
    role = attrs.get("role")
    if isinstance(role, str) and role.strip().lower() in _DROPPED_ROLES:
        return True
    style = attrs.get("style")
    return isinstance(style, str) and bool(_HIDDEN_STYLE.search(style))


def html_to_text(markup: str) -> str:
    """The text a reader sees in an HTML page's body.

    Parsed with BeautifulSoup's ``html.parser`` (tolerant of malformed markup). Dropped
    with their contents: ``head``, ``title``, ``script``, ``style``, ``noscript``,
    ``template``, ``nav``, ``header``, ``footer``, ``aside``, embedded content
    (``iframe``, ``object``, ``embed``, ``canvas``, ``video``, ``audio``), elements marked
    ``hidden`` or styled ``display: none``/``visibility: hidden``, elements whose ARIA
    role is ``navigation``, ``banner``, ``contentinfo`` or ``complementary`` (what
    themes use instead of nav/header/footer/aside), comments and declarations. White
    space collapses as in a browser; block elements and ``<br>`` start a new line and
    table cells are separated by a space, so words never glue together.

    Parameters
    ----------
    markup : str
        The page, already decoded.

    Returns
    -------
    str
        One line per block of text, no empty lines; ``""`` if nothing is visible.
    """
    from bs4 import BeautifulSoup
    from bs4.element import NavigableString, PreformattedString, Tag

    if not isinstance(markup, str):
        raise ValueError(f"markup must be a str, got {type(markup).__name__}")
    soup = BeautifulSoup(markup, "html.parser")
    # Walk the tree without changing it (changing it costs time linear in the number of
    # siblings per change). The stack holds (node, inside <pre>/<textarea>, closing?).
    pieces: list[str] = []
    stack: list[tuple[object, bool, bool]] = [(soup, False, False)]
    while stack:
        node, keep_space, closing = stack.pop()
        if closing:
            pieces.append(" " if node.name in _CELL_TAGS else "\n")
        elif isinstance(node, NavigableString):
            if not isinstance(node, PreformattedString):  # comments, CDATA, doctype...
                pieces.append(str(node) if keep_space else _WHITESPACE.sub(" ", node))
        elif isinstance(node, Tag):
            name = node.name
            if name in _DROPPED_TAGS or _is_hidden(node):
                continue
            if name == "br":
                pieces.append("\n")
                continue
            if name in _BLOCK_TAGS or name in _CELL_TAGS:
                pieces.append(" " if name in _CELL_TAGS else "\n")
                stack.append((node, keep_space, True))
            inner = keep_space or name in ("pre", "textarea")
            stack.extend((child, inner, False) for child in reversed(node.contents))
    lines = (" ".join(line.split()) for line in "".join(pieces).split("\n"))
    return "\n".join(line for line in lines if line)


def read_document_file(name: str, data: bytes, *, max_bytes: int | None = MAX_FILE_BYTES) -> str:
    """Read one uploaded file as one document.

    Parameters
    ----------
    name : str
        The file name; its extension (any case) picks the reader: ``.txt`` and ``.md``
        are plain text (Markdown is kept as written), ``.html`` and ``.htm`` give the
        visible text (see :func:`html_to_text`).
    data : bytes
        The raw file.
    max_bytes : int or None
        Largest accepted file size in bytes (default 5,000,000); None for no limit.

    Returns
    -------
    str
        The text, line ends as ``"\\n"``, stripped; never empty.

    Raises
    ------
    ValueError
        An unsupported extension, data that is not bytes, a file over the size limit,
        binary data, or a file with no visible text; the message names the file.
    """
    if not isinstance(name, str):
        raise ValueError(f"the file name must be a str, got {type(name).__name__}")
    label = _short(name, 80)
    accepted = ", ".join(DOCUMENT_EXTENSIONS)
    suffix = PurePath(name).suffix.lower()
    if suffix not in DOCUMENT_EXTENSIONS:
        shown = repr(suffix) if suffix else "no extension"
        raise ValueError(f"file {label} has {shown}; accepted file types: {accepted}")
    data = _as_bytes(data, f"the contents of file {label}")
    _check_size(data, _check_limit(max_bytes), f"file {label}")
    kind = _binary_kind(data)
    if kind is not None:
        raise ValueError(
            f"file {label} looks like {kind}, not text; accepted: text files ({accepted})"
        )
    if suffix in (".html", ".htm"):
        markup, _ = _decode(data, _declared_charset(data))
        text = html_to_text(markup)
        if not text:
            raise ValueError(
                f"file {label} has no visible text (everything in it is markup, scripts, "
                "styles, navigation, header, footer or sidebar)"
            )
        return text
    text, _ = _decode(data)
    text = text.strip()
    if not text:
        raise ValueError(f"file {label} has no text (it is empty or only white space)")
    return text


# --------------------------------------------------------------------------------------
# The example corpus
# --------------------------------------------------------------------------------------
# Short news items built from sentence templates whose slots draw from word lists big
# enough that two unrelated items share little beyond common words; then a share of the
# items are edited copies of earlier ones (copies of copies too).

_FIRST = (
    "Ana", "Ben", "Carla", "David", "Elena", "Farid", "Grace", "Hugo", "Ines", "Jonas",
    "Keiko", "Liam", "Maria", "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Samuel",
    "Tara", "Umar", "Vera", "Wei", "Ximena", "Yusuf", "Zoe", "Aisha", "Bruno", "Chloe",
    "Dmitri", "Emeka", "Fatima", "Gustavo", "Hana", "Ivan", "Julia", "Kofi", "Lucia",
    "Mateo", "Noor", "Oskar", "Paula", "Rafael", "Sofia", "Tomas", "Ursula", "Viktor",
    "Wanda", "Yara", "Zainab", "Arjun", "Beatriz", "Cormac", "Daria", "Esther", "Felix",
    "Greta", "Hamza", "Ingrid", "Joaquin",
)  # fmt: skip
_LAST = (
    "Abbott", "Baptiste", "Castillo", "Dubois", "Eriksen", "Fischer", "Garcia", "Haddad",
    "Ito", "Jensen", "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov",
    "Quinn", "Rossi", "Santos", "Tanaka", "Ulrich", "Varga", "Walsh", "Xu", "Yilmaz",
    "Zhang", "Almeida", "Brennan", "Chowdhury", "Delgado", "Evans", "Ferreira", "Gallo",
    "Horvat", "Ibrahim", "Jovanovic", "Kim", "Lopez", "Mensah", "Novak", "Oyelaran",
    "Patel", "Reyes", "Schmidt", "Thorsen", "Uddin", "Vasquez", "Weber", "Young",
    "Zielinski", "Acheampong", "Bianchi", "Costa", "Dimitriou", "Engel", "Fontaine",
    "Grant", "Hoffmann", "Iqbal", "Keller",
)  # fmt: skip
_CITIES = (
    "Aberdeen", "Antwerp", "Arequipa", "Auckland", "Bergen", "Bilbao", "Bologna",
    "Bordeaux", "Brno", "Bruges", "Cadiz", "Calgary", "Cork", "Curitiba", "Dakar",
    "Dundee", "Durban", "Eindhoven", "Fukuoka", "Galway", "Gdansk", "Geelong", "Ghent",
    "Graz", "Groningen", "Halifax", "Hobart", "Innsbruck", "Izmir", "Kaunas", "Kisumu",
    "Krakow", "Kyoto", "Leeds", "Leipzig", "Leon", "Lille", "Linz", "Lyon", "Malmo",
    "Mendoza", "Mombasa", "Nantes", "Naples", "Nagoya", "Odense", "Oporto", "Oulu",
    "Oviedo", "Palermo", "Perth", "Plovdiv", "Porto Alegre", "Poznan", "Puebla",
    "Quebec City", "Recife", "Regina", "Riga", "Rosario", "Rotterdam", "Salta",
    "Salzburg", "Sapporo", "Seville", "Split", "Tampere", "Tartu", "Toulouse", "Trieste",
    "Turin", "Uppsala", "Utrecht", "Valencia", "Valparaiso", "Verona", "Vilnius",
    "Winnipeg", "Wroclaw", "Zaragoza",
)  # fmt: skip
_ROLES = (
    "mayor", "deputy mayor", "city manager", "treasurer", "police chief", "fire chief",
    "transport commissioner", "health officer", "planning director", "council leader",
)  # fmt: skip
_CO_A = (
    "Northwind", "Bluestone", "Redfern", "Silverline", "Greenmoor", "Ironbridge",
    "Oakridge", "Brightwater", "Kestrel", "Harbourview", "Polaris", "Meridian",
    "Cobalt", "Juniper", "Lanternfish", "Copperleaf", "Westgate", "Amberly", "Granite",
    "Sunfield", "Tidewater", "Highmark", "Falconer", "Riverbend",
)  # fmt: skip
_CO_B = (
    "Logistics", "Foods", "Energy", "Pharma", "Textiles", "Motors", "Robotics", "Bank",
    "Airlines", "Steel", "Insurance", "Telecom", "Software", "Shipping", "Breweries",
    "Solar",
)  # fmt: skip
_MASCOTS = (
    "Falcons", "Wolves", "Mariners", "Rangers", "Comets", "Bulls", "Pioneers", "Otters",
    "Hornets", "Stallions", "Vikings", "Herons", "Lynx", "Titans", "Bears", "Sharks",
)  # fmt: skip
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August",
    "September", "October", "November", "December",
)  # fmt: skip
_POLICY = (
    "ban cars from the old town on weekends", "build a ferry terminal", "raise parking fees",
    "plant ten thousand trees", "rebuild the central library", "extend the tram line north",
    "sell the municipal golf course", "cut the property tax rate",
    "open public swimming pools at night", "turn the old prison into housing",
    "cap rents in the harbour district", "close two fire stations",
    "light the cycle paths along the river", "move the weekly market to the square",
    "buy electric buses for every route", "restore the medieval city walls",
)  # fmt: skip
_VERB_POL = (
    "unveiled", "defended", "withdrew", "announced", "backed", "rejected", "revised",
    "postponed",
)  # fmt: skip
_OFFICES = ("mayor", "the regional assembly", "parliament", "the city council", "governor")
_SHOPS = (
    "bakery", "bookshop", "bicycle repair shop", "supermarket", "coffee roastery",
    "hardware store", "pharmacy", "climbing gym", "cinema", "noodle bar", "toy shop",
    "fish market",
)  # fmt: skip
_STREETS = (
    "Mill Lane", "Harbour Road", "Station Street", "Church Walk", "Elm Avenue",
    "Canal Street", "Market Square", "Victoria Road", "Bridge Street", "Orchard Way",
    "Quarry Hill", "Tannery Row",
)  # fmt: skip
_RESULTS = ("record", "weak", "mixed", "better than expected", "disappointing", "strong")
_QUARTERS = ("first", "second", "third", "fourth")
_RACES = ("marathon", "half marathon", "cycling classic", "ten kilometre run", "triathlon")
_WEATHER = ("snow", "rain", "fog", "flooding", "ice", "hail", "wind")
_FINDINGS = (
    "bees avoid flowers sprayed with a common fungicide",
    "a cheap blood test can spot kidney disease years earlier",
    "coastal wetlands store more carbon than forests",
    "children who walk to school sleep longer",
    "a fungus found in old mines breaks down plastic",
    "sea temperatures off the coast rose faster than predicted",
    "a drug for gout may slow memory loss",
    "city pigeons carry fewer parasites than rural ones",
    "glaciers in the region lost a fifth of their ice in ten years",
    "an ancient road ran under the modern harbour",
)  # fmt: skip
_GROUPS = (
    "nurses", "pensioners", "students", "bus drivers", "farmers", "shop owners",
    "teachers", "fishermen", "cyclists", "tenants", "parents", "volunteers",
)  # fmt: skip
_WARDS = (
    "maternity ward", "cancer centre", "children's wing", "emergency department",
    "eye clinic", "rehabilitation unit",
)  # fmt: skip
_LOOT = (
    "copper cable", "two vintage motorcycles", "a church bell", "forty laptops",
    "a shipment of olive oil", "rare orchids", "a bronze statue", "solar panels",
    "several paintings", "a truck of cheese",
)  # fmt: skip
_PLACES = (
    "warehouse", "museum", "school", "garden centre", "boatyard", "farm", "hotel",
    "apartment block", "depot", "factory",
)  # fmt: skip
_VENUES = ("art museum", "concert hall", "opera house", "history museum", "city gallery")
_ART = (
    "watercolours", "photographs", "sculptures", "woodcuts", "tapestries", "ceramics",
    "posters", "drawings",
)  # fmt: skip
_TITLES = (
    "The Salt Road", "Winter Harbour", "A House of Clocks", "The Last Ferry", "Copper Sky",
    "Nine Bridges", "The Glass Orchard", "Quiet Engines", "North of the River",
    "The Lighthouse Keeper's Daughter",
)  # fmt: skip
_FESTIVALS = ("jazz", "film", "folk music", "street food", "lantern", "puppet", "book")
_CAUSES = (
    "a signal failure", "a strike by train drivers", "a landslide near the tracks",
    "a fallen tree", "a power cut", "a fire at a depot", "a broken rail",
    "flooding on the line",
)  # fmt: skip
_RIVERS = ("Elbe", "Douro", "Shannon", "Tagus", "Vistula", "Loire", "Mersey", "Paraná")
_AIRLINES = (
    "Aurora Air", "SkyMar", "Baltic Wings", "Condor Blue", "Atlas Regional", "Pelican Jet",
)  # fmt: skip
_SCHOOL_CAUSES = (
    "a teachers' strike", "repairs to heating systems", "an outbreak of flu",
    "the heat wave", "flooded classrooms",
)  # fmt: skip
_ORGS = (
    "the ministry", "the union", "the regional government", "the port authority",
    "the residents' association", "the chamber of commerce", "the police",
    "the university", "the hospital trust", "the transport agency",
)  # fmt: skip
_FEELINGS = ("delighted", "disappointed", "surprised", "relieved", "cautious", "angry")
_ADVICE = (
    "boil drinking water", "avoid the area", "keep windows closed", "stay indoors",
    "use the detour via the ring road", "check on elderly neighbours",
)  # fmt: skip
_ORDINALS = ("second", "third", "fourth", "fifth", "sixth")
_PRONOUNS = ("she", "he")

_LEADS = (
    "{p}, the {role} of {c}, {vpol} a plan to {policy} on {d}.",
    "The {c} city council voted {n1} to {n2} on {d} to {policy}.",
    "Voters in {c} will decide in {mo} whether to {policy}, officials said on {d}.",
    "{p} said on {d} that {pron} would run for {office} in {c} next {mo}.",
    "Shares of {co} rose {pct} percent on {d} after the company reported {res} results "
    "for the {qtr} quarter.",
    "{co} said on {d} it would cut {n3} jobs at its plant in {c} by the end of {mo}.",
    "{co} agreed to buy {co2} for {money}, the two companies said on {d}.",
    "A new {shop} opened on {street} in {c} on {d}, creating {n2} jobs.",
    "The {team} beat the {team2} {s1} to {s2} on {d} night in front of {n4} fans.",
    "{p} scored twice as the {team} came from behind to beat the {team2} {s1} to {s2}.",
    "{p} won the {c} {race} on {d} in {n1} hours and {n2} minutes, a course record.",
    "Heavy {wx} closed {n2} roads around {c} on {d}, and forecasters expect more "
    "through the weekend.",
    "Temperatures in {c} reached {deg} degrees on {d}, the highest reading for {mo} since {year}.",
    "Researchers at the University of {c} said on {d} that {finding}.",
    "A study of {n3} {group} in {c} suggests that {finding}, a report published on {d} said.",
    "The hospital in {c} opened a new {ward} on {d} after a renovation costing {money}.",
    "Police in {c} arrested {n1} people on {d} after the theft of {loot} from a {place}.",
    "A court in {c} ordered {co} on {d} to pay {money} to {n3} former workers.",
    "A fire at a {place} on {street} in {c} forced {n2} people from their homes early on {d}.",
    "The {c} {venue} will reopen on {mo} {day} with an exhibition of {art} by {p}.",
    "{p}'s new novel, {title}, sold {n3} copies in its first week, the publisher said on {d}.",
    "The {fest} festival in {c} drew {n4} visitors over {n1} days, organisers said on {d}.",
    "Trains between {c} and {c2} were cancelled on {d} after {cause}.",
    "The new bridge over the {river} in {c} opened to traffic on {d}, {n1} months late.",
    "{air} will start direct flights from {c} to {c2} in {mo}, the airline said on {d}.",
    "Schools in {c} will close for {n1} days next week because of {scause}.",
    "{p} was named head of the {c} school board on {d}, replacing {p2}.",
)
_FOLLOWS = (
    "{p2}, speaking for {org}, said the decision would be reviewed in {mo2}.",
    "The work is expected to cost {money2} and to be finished by {year2}.",
    "{p2} told reporters that {pron2} was {feel} with the outcome.",
    "Critics say the move will hurt {group} in {c2} and nearby towns.",
    "A final decision is expected on {mo2} {day2}.",
    "It was the {ord} such case in {c} this year.",
    "{org} did not respond to a request for comment on {d2}.",
    "Similar plans have been proposed in {c2} and {c3}.",
    "Full figures will be published on {d2}.",
    "Residents have been asked to {advice} until further notice.",
    "About {n5} people came to a public meeting about it on {d2} evening.",
    '"We have waited {n6} years for this," said {p2}, who lives nearby.',
    "The previous record was set in {year} by {p2}.",
    "{org} said it would appeal against the ruling.",
    "Tickets go on sale on {mo2} {day2} and cost {price} each.",
    "Roughly {pct2} percent of {group} in {c} back the idea, a poll found.",
    "The next update is due at {hour} on {d2}.",
    "Anyone with information was asked to call {phone}.",
    "Officials blamed the delay on {cause}.",
    "{p2} promised more details at a press conference on {d2}.",
    "{n5} {group} signed a letter opposing it in {mo2}.",
    "Repairs to {street} will start in {mo2}, according to {org}.",
)
_FILLERS = (
    "also", "reportedly", "now", "local", "again", "officially", "nearly", "still",
    "recently", "later", "quietly", "finally", "briefly", "just", "indeed", "apparently",
)  # fmt: skip
_SUBSTITUTES = (
    "said", "told", "claimed", "city", "town", "region", "plan", "scheme", "proposal",
    "week", "month", "people", "residents", "workers", "officials", "new", "big", "large",
    "small", "major", "decision", "vote", "project", "deal", "report", "statement",
    "morning", "evening", "area", "district", "centre", "company", "firm", "group",
    "after", "before", "during", "despite", "more", "fewer", "about", "around",
)  # fmt: skip
_LETTERS = "etaoinshrdlcumwfgypbvk"
# Mean Jaccard similarity (lower-case char 5-gram sets) of an item and its copy after
# _EDIT_X edits per word, measured on 400 generated items; increasing in _EDIT_J.
_EDIT_J = (0.232, 0.292, 0.36, 0.446, 0.509, 0.588, 0.683, 0.819, 0.904, 1.0)
_EDIT_X = (1.2, 0.9, 0.7, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05, 0.0)


def _pick(rng: np.random.Generator, table: tuple[str, ...], n: int) -> np.ndarray:
    return np.asarray(table, dtype=object)[rng.integers(0, len(table), size=n)]


def _draw_slots(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    """Every template slot for ``n`` documents, drawn at once (object arrays)."""
    first = np.asarray(_FIRST, dtype=object)
    last = np.asarray(_LAST, dtype=object)

    def people() -> np.ndarray:
        i = rng.integers(0, len(first), size=n)
        j = rng.integers(0, len(last), size=n)
        return first[i] + " " + last[j]

    def companies() -> np.ndarray:
        return _pick(rng, _CO_A, n) + " " + _pick(rng, _CO_B, n)

    def teams() -> np.ndarray:
        return _pick(rng, _CITIES, n) + " " + _pick(rng, _MASCOTS, n)

    def ints(low: int, high: int) -> np.ndarray:
        return rng.integers(low, high, size=n).astype(object)

    def texts(values: list[str]) -> np.ndarray:
        return np.asarray(values, dtype=object)

    money = rng.integers(2, 900, size=n)
    money_unit = rng.random(n) < 0.5
    money2 = rng.integers(2, 900, size=n)
    hours = rng.integers(6, 22, size=n)
    phones = rng.integers(1_000_000, 9_999_999, size=n)
    return {
        "p": people(), "p2": people(), "role": _pick(rng, _ROLES, n),
        "c": _pick(rng, _CITIES, n), "c2": _pick(rng, _CITIES, n), "c3": _pick(rng, _CITIES, n),
        "vpol": _pick(rng, _VERB_POL, n), "policy": _pick(rng, _POLICY, n),
        "d": _pick(rng, _DAYS, n), "d2": _pick(rng, _DAYS, n),
        "mo": _pick(rng, _MONTHS, n), "mo2": _pick(rng, _MONTHS, n),
        "day": ints(1, 29), "day2": ints(1, 29),
        "n1": ints(2, 12), "n2": ints(12, 90), "n3": ints(100, 5000), "n4": ints(2000, 60000),
        "n5": ints(20, 900), "n6": ints(3, 40),
        "pron": _pick(rng, _PRONOUNS, n), "pron2": _pick(rng, _PRONOUNS, n),
        "office": _pick(rng, _OFFICES, n), "co": companies(), "co2": companies(),
        "pct": ints(2, 19), "pct2": ints(20, 80), "res": _pick(rng, _RESULTS, n),
        "qtr": _pick(rng, _QUARTERS, n),
        "money": texts([f"{m} {'million' if u else 'thousand'} euros"
                        for m, u in zip(money.tolist(), money_unit.tolist(), strict=True)]),
        "money2": texts([f"{m} million euros" for m in money2.tolist()]),
        "shop": _pick(rng, _SHOPS, n), "street": _pick(rng, _STREETS, n),
        "team": teams(), "team2": teams(), "s1": ints(3, 7), "s2": ints(0, 3),
        "race": _pick(rng, _RACES, n), "wx": _pick(rng, _WEATHER, n),
        "deg": ints(31, 45), "year": ints(1890, 2015), "year2": ints(2027, 2036),
        "finding": _pick(rng, _FINDINGS, n), "group": _pick(rng, _GROUPS, n),
        "ward": _pick(rng, _WARDS, n), "loot": _pick(rng, _LOOT, n),
        "place": _pick(rng, _PLACES, n), "venue": _pick(rng, _VENUES, n),
        "art": _pick(rng, _ART, n), "title": _pick(rng, _TITLES, n),
        "fest": _pick(rng, _FESTIVALS, n), "cause": _pick(rng, _CAUSES, n),
        "river": _pick(rng, _RIVERS, n), "air": _pick(rng, _AIRLINES, n),
        "scause": _pick(rng, _SCHOOL_CAUSES, n), "org": _pick(rng, _ORGS, n),
        "feel": _pick(rng, _FEELINGS, n), "advice": _pick(rng, _ADVICE, n),
        "ord": _pick(rng, _ORDINALS, n), "price": texts([f"{p} euros" for p in ints(8, 120)]),
        "hour": texts([f"{h}:{'30' if h % 2 else '00'}" for h in hours.tolist()]),
        "phone": texts([f"0{p // 10000}-{p % 10000:04d}" for p in phones.tolist()]),
    }  # fmt: skip


@functools.cache
def _compiled(template: str) -> tuple[str, tuple[str, ...]]:
    """A template with named slots as a positional format string and its slot names."""
    literal, names = [], []
    for text, name, spec, _ in string.Formatter().parse(template):
        literal.append(text.replace("{", "{{").replace("}", "}}"))
        if name is not None:
            literal.append("{" + (":" + spec if spec else "") + "}")
            names.append(name)
    return "".join(literal), tuple(names)


def _fill(
    templates: tuple[str, ...], choice: np.ndarray, slots: dict[str, np.ndarray]
) -> np.ndarray:
    """Sentence ``choice[i]`` of ``templates`` for each document (``""`` where -1).

    Works a template at a time: the documents using it are filled in one comprehension.
    """
    out = np.full(choice.shape, "", dtype=object)
    for t, template in enumerate(templates):
        rows = np.flatnonzero(choice == t)
        if rows.size == 0:
            continue
        fmt, names = _compiled(template)
        values = [slots[name][rows].tolist() for name in names]
        filled = [fmt.format(*row) for row in zip(*values, strict=True)]
        if template.startswith("{"):
            filled = [f[0].upper() + f[1:] for f in filled]
        out[rows] = filled
    return out


def _uniforms(rng: np.random.Generator, block: int = 65_536) -> Callable[[], float]:
    """A function handing out uniform floats from ``rng``, drawn in blocks."""
    blocks = iter(lambda: rng.random(block).tolist(), None)
    return itertools.chain.from_iterable(blocks).__next__


def _typo(word: str, u: Callable[[], float]) -> str:
    """One keyboard slip in ``word``: a letter replaced, dropped, doubled or transposed."""
    if len(word) < 2:
        return word
    i = int(u() * len(word))
    if not word[i].isalpha():
        return word
    kind = u()
    if kind < 0.35:
        return word[:i] + _LETTERS[int(u() * len(_LETTERS))] + word[i + 1 :]
    if kind < 0.6:
        return word[:i] + word[i + 1 :]
    if kind < 0.8:
        return word[:i] + word[i] + word[i:]
    if i + 1 < len(word) and word[i + 1].isalpha():
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    return word


def _edit(words: list[str], n_ops: int, u: Callable[[], float]) -> list[str]:
    """Apply ``n_ops`` edits, in place, to a document given as its words.

    Each edit is one of: a word substituted, a typo, a word dropped, a word inserted,
    two neighbouring words swapped, a sentence moved to the end. A word ending in "."
    ends a sentence; edits keep it last in its sentence.
    """
    for _ in range(n_ops):
        op = u()
        i = int(u() * len(words))
        word = words[i]
        if op < 0.22:  # substitute, keeping trailing punctuation
            new = _SUBSTITUTES[int(u() * len(_SUBSTITUTES))]
            words[i] = new + word[-1] if word[-1] in ".," else new
        elif op < 0.42:
            words[i] = _typo(word, u)
        elif op < 0.6:  # drop
            if not word.endswith(".") and len(words) > 8:
                del words[i]
        elif op < 0.78:  # insert
            filler = _FILLERS[int(u() * len(_FILLERS))]
            words.insert(i if word.endswith(".") else i + 1, filler)
        elif op < 0.95:  # swap neighbours inside a sentence, not its first word
            if (
                0 < i < len(words) - 1
                and not words[i - 1].endswith(".")
                and not word.endswith(".")
                and not words[i + 1].endswith(".")
            ):
                words[i], words[i + 1] = words[i + 1], word
        else:  # move the sentence holding word i to the end
            start, stop = i, i
            while start > 0 and not words[start - 1].endswith("."):
                start -= 1
            while stop < len(words) - 1 and not words[stop].endswith("."):
                stop += 1
            words[start : stop + 1], moved = [], words[start : stop + 1]
            words.extend(moved)
    return words


def _check_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    return int(value)


def example_corpus(n: int = 2000, seed: int = 0) -> pd.DataFrame:
    """A generated corpus of short news items, a share of them edited copies.

    About 35% of the documents are copies of an earlier document (an original or itself
    a copy) with edits from none (about one copy in eight is an exact duplicate) to
    heavy: words substituted, dropped, inserted or swapped, typos, sentences reordered
    or rewritten. Copies land anywhere from a Jaccard similarity of about 0.3 to 1.0
    with their parent (lower-case character 5-gram sets), while unrelated items mostly
    stay below 0.2, so the S-curve and the threshold matter.

    Parameters
    ----------
    n : int
        Number of documents, 300 to 20,000.
    seed : int
        Seed (≥ 0) for ``numpy.random.default_rng``; the same seed gives the same corpus.

    Returns
    -------
    pandas.DataFrame
        Columns ``text`` (str) and ``parent`` (int64: -1 for an original, else the row
        of the earlier document it was copied from); a default RangeIndex.

    Raises
    ------
    ValueError
        If ``n`` is not an integer from 300 to 20,000 or ``seed`` is not an integer ≥ 0.
    """
    n = _check_int(n, "n")
    seed = _check_int(seed, "seed")
    if not EXAMPLE_MIN_DOCS <= n <= EXAMPLE_MAX_DOCS:
        raise ValueError(
            f"n={n} documents is not accepted; the example has {EXAMPLE_MIN_DOCS} to "
            f"{EXAMPLE_MAX_DOCS:,} documents"
        )
    if seed < 0:
        raise ValueError(f"seed={seed} is not accepted; use an integer ≥ 0")
    rng = np.random.default_rng(seed)

    is_copy = rng.random(n) < 0.35
    is_copy[0] = False
    parent = np.where(is_copy, (rng.random(n) * np.arange(n)).astype(np.int64), -1)
    # Edit strength. An eighth of the copies are exact; for the others a target
    # similarity is drawn evenly from 0.3 to 0.98 and turned into a number of edits per
    # word with the measured mean similarity after x edits per word (char 5-grams).
    exact = rng.random(n) < 0.125
    target = rng.uniform(0.3, 0.98, size=n)
    per_word = np.where(exact, 0.0, np.interp(target, _EDIT_J, _EDIT_X))

    # Originals: a lead sentence, a follow-up and, for short ones, a third sentence.
    slots = _draw_slots(rng, n)
    lead = np.where(is_copy, -1, rng.integers(0, len(_LEADS), size=n))
    follow = np.where(is_copy, -1, rng.integers(0, len(_FOLLOWS), size=n))
    third = rng.integers(0, len(_FOLLOWS), size=n)
    third = np.where(third == follow, (third + 1) % len(_FOLLOWS), third)
    first_two = _fill(_LEADS, lead, slots) + " " + _fill(_FOLLOWS, follow, slots)
    length = np.fromiter(map(len, first_two), dtype=np.int64, count=n)
    wants_third = (length < 120) | ((rng.random(n) < 0.5) & (length < 190))
    third = np.where(is_copy | ~wants_third, -1, third)
    text = [t.rstrip() for t in (first_two + " " + _fill(_FOLLOWS, third, slots)).tolist()]

    # Copies, in row order so that a copy of a copy sees its parent's final text.
    u = _uniforms(rng)
    parent_list = parent.tolist()
    per_word_list = per_word.tolist()
    for i in np.flatnonzero(is_copy).tolist():
        words = text[parent_list[i]].split(" ")
        n_ops = round(per_word_list[i] * len(words))
        text[i] = " ".join(_edit(words, n_ops, u)) if n_ops else text[parent_list[i]]
    return pd.DataFrame({"text": text, "parent": parent})
