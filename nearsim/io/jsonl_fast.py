"""JSON lines in blocks: whole lines of a file, about a megabyte at a time, parsed by pyarrow.

The corpus reader (:func:`nearsim.io.formats._read_jsonl`) reads a JSON lines file
as blocks of whole lines (:func:`blocks`). :func:`parse_block` hands a block to pyarrow's
JSON reader (in C++), asking for the text field (and the id field) only; it gives
up, returning None, on anything the line-by-line reader treats in its own way, which then
reads that block a line at a time with its messages and line numbers. Where it does not
give up, it returns exactly what the line-by-line reader returns:

- every line is one record: no blank line (which is not a record), no two objects on one
  line (pyarrow reads both), so pyarrow's rows are the block's lines one to one;
- no NUL byte, no byte-order mark and valid UTF-8 throughout (pyarrow does not check
  UTF-8 in fields it skips and skips a mark at a line's start; the line reader rejects
  the line);
- the text field is present and a string on every line, the id field present and a
  string on every line, or an integer on every line (pyarrow's int64, written as Python
  writes it); a missing field or null is a null pyarrow reports, another type an error;
- a further field (``fields``) is a string on every line where it is present, or an
  integer on every line where it is present; missing or null gives "" (as
  :func:`nearsim.io.fields.field_text` writes it); any other type sends the block to the
  line reader;
- duplicate keys, control characters in strings, escaped lone surrogates: pyarrow raises.

One difference is accepted: an object nested deeper than Python's recursion limit in a
field the reader skips is read by pyarrow, where the line reader reports it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import BinaryIO

_BOM = b"\xef\xbb\xbf"
"""pyarrow skips a byte-order mark at the start of any line; the line reader only at the
file's start (the caller removes that one)."""
BLOCK_BYTES = 1 << 20
"""Bytes read at a time (a block ends at a line's end, so it can be longer). Not more:
blocks of 8 MB raised glibc's threshold for giving memory to its own mapping, and the
blocks then shared the heap with the ids a run keeps, which pinned it: ``nearsim dedup``
on 1,000,000 documents peaked at 1.93 GB with 8 MB blocks, 1.41 GB with 1 MB (the peak
of the line-by-line reader), as fast."""
_BLANK_LINE = re.compile(rb"\n[ \t\r\x0b\x0c]*\n")
"""A line that ``bytes.strip`` empties (the line reader skips it: not a record), searched
for between newlines put around the block (a pattern that starts with a literal newline
is found at newline speed; one that also matches at the start tried every byte)."""


def blocks(stream: BinaryIO, start: int = 0, stop: int | None = None) -> Iterator[bytes]:
    """Whole lines of ``stream``, about :data:`BLOCK_BYTES` at a time.

    With ``stop``, the lines starting in bytes ``start .. stop - 1`` of a seekable file
    (``start`` is a line's start), the last of them whole even where it ends past
    ``stop``: the lines the Dask engine's span holds. Each block but the last ends with a
    newline.
    """
    if start:
        stream.seek(start)
    left = None if stop is None else stop - start
    carry = b""
    while True:
        if left is not None and left <= 0:
            if carry:
                yield carry + stream.readline()  # starts before stop, ends after it
            return
        data = stream.read(BLOCK_BYTES if left is None else min(BLOCK_BYTES, left))
        if not data:
            if carry:
                yield carry
            return
        if left is not None:
            left -= len(data)
        data = carry + data if carry else data
        cut = data.rfind(b"\n") + 1
        if cut == 0:  # one line longer than a block so far
            carry = data
            continue
        carry = data[cut:]
        yield data[:cut]


def line_count(block: bytes) -> int:
    """How many lines ``block`` holds (a last line without a newline counts)."""
    return block.count(b"\n") + (not block.endswith(b"\n"))


def parse_block(
    block: bytes, text_field: str, id_field: str | None, fields: tuple[str, ...] = ()
) -> tuple | None:
    """The texts (and ids, as str) of a block of JSON lines, one per line; or None.

    Returns ``(texts, ids)`` (ids None without ``id_field``) followed by one list of str
    per further field of ``fields``. None means the block holds something the line-by-line
    reader must see: a blank or bad line, a missing field, a value of another type (see
    the module text).
    """
    if id_field == text_field or b"\x00" in block or _BOM in block:
        return None
    if any(f in (text_field, id_field) for f in fields):
        return None
    body = block[:-1] if block.endswith(b"\n") else block
    if _BLANK_LINE.search(b"\n" + body + b"\n") is not None:
        return None
    try:
        block.decode("utf-8")
    except UnicodeDecodeError:
        return None
    id_type = _id_type(block, id_field)
    if id_type is False:
        return None
    extra_types = _field_types(block, fields)
    if extra_types is None:
        return None
    table = _read(block, text_field, id_field, id_type, dict(zip(fields, extra_types, strict=True)))
    if table is None or table.num_rows != line_count(block):
        return None
    texts = table.column(text_field)
    if texts.null_count:
        return None
    extra = [_texts(table.column(f)) for f in fields]
    if id_field is None:
        return texts.to_pylist(), None, *extra
    ids = table.column(id_field)
    if ids.null_count:
        return None
    if id_type == "int64":
        import pyarrow.compute as pc

        ids = pc.cast(ids, "string")
    return texts.to_pylist(), ids.to_pylist(), *extra


def parse_columns(
    block: bytes,
    id_field: str | None,
    fields: tuple[str, ...],
    *,
    no_blank_line: bool = False,
    lines: int | None = None,
) -> tuple | None:
    """The ids (as str, or None without ``id_field``) and further fields of a block of JSON
    lines, one value per line, without the text; or None (as :func:`parse_block`). For a
    reader that needs these fields on every line but the text of only a few
    (:mod:`nearsim.io.wanted`): the text field is neither read nor checked, and UTF-8 is
    checked in the fields read only. ``no_blank_line``: the caller has found no blank line
    in the block (the search is then skipped); ``lines``: its number of lines, if known."""
    if b"\x00" in block or _BOM in block or id_field in fields:
        return None
    if not no_blank_line:
        body = block[:-1] if block.endswith(b"\n") else block
        if _BLANK_LINE.search(b"\n" + body + b"\n") is not None:
            return None
    id_type = _id_type(block, id_field)
    extra_types = _field_types(block, fields)
    if id_type is False or extra_types is None:
        return None
    table = _read(block, None, id_field, id_type, dict(zip(fields, extra_types, strict=True)))
    if table is None or table.num_rows != (line_count(block) if lines is None else lines):
        return None
    import pyarrow as pa

    try:  # pyarrow reads invalid UTF-8 into a string column; the line reader rejects it
        for column in table.columns:
            column.validate(full=True)
    except pa.ArrowInvalid:
        return None
    extra = [_texts(table.column(f)) for f in fields]
    if id_field is None:
        return None, *extra
    ids = table.column(id_field)
    if ids.null_count:
        return None
    if id_type == "int64":
        import pyarrow.compute as pc

        ids = pc.cast(ids, "string")
    return ids.to_pylist(), *extra


def _texts(column) -> list[str]:
    """A further field's values as str, null as ""."""
    import pyarrow.compute as pc

    return pc.fill_null(pc.cast(column, "string"), "").to_pylist()


def _field_types(block: bytes, fields: tuple[str, ...]) -> list[str] | None:
    """pyarrow's type for each further field, from the block's first line: "int64" for an
    integer, else "string" (a missing field or null too); None when a first value is of
    another type (the line reader then reads the block)."""
    if not fields:
        return []
    import json

    try:
        first = json.loads(block[: block.find(b"\n")] if b"\n" in block else block)
    except (ValueError, RecursionError):
        return None
    if not isinstance(first, dict):
        return None
    out = []
    for name in fields:
        value = first.get(name)
        if isinstance(value, bool) or not isinstance(value, str | int | None):
            return None
        out.append("int64" if isinstance(value, int) else "string")
    return out


def _id_type(block: bytes, id_field: str | None) -> str | bool | None:
    """pyarrow's type for the id field, from the block's first line ("string", "int64"),
    None without an id field, False when the first line says the block needs the line
    reader (pyarrow then checks that every other line agrees with the first)."""
    if id_field is None:
        return None
    import json

    try:
        first = json.loads(block[: block.find(b"\n")] if b"\n" in block else block)
    except (ValueError, RecursionError):
        return False
    value = first.get(id_field) if isinstance(first, dict) else None
    if isinstance(value, str):
        return "string"
    if isinstance(value, int) and not isinstance(value, bool):
        return "int64"
    return False


def _read(
    block: bytes,
    text_field: str | None,
    id_field: str | None,
    id_type: str | None,
    extra: dict[str, str] | None = None,
):
    """pyarrow's table of the fields, or None where pyarrow refuses the block."""
    import pyarrow as pa
    import pyarrow.json as pj

    fields = [(text_field, pa.string())] if text_field is not None else []
    if id_field is not None:
        fields.append((id_field, pa.int64() if id_type == "int64" else pa.string()))
    for name, kind in (extra or {}).items():
        fields.append((name, pa.int64() if kind == "int64" else pa.string()))
    parse = pj.ParseOptions(explicit_schema=pa.schema(fields), unexpected_field_behavior="ignore")
    try:  # the block is pyarrow's one block: no line of it can straddle two
        return pj.read_json(
            pa.BufferReader(block),
            read_options=pj.ReadOptions(block_size=len(block) + 1, use_threads=False),
            parse_options=parse,
        )
    except pa.ArrowInvalid:
        return None
