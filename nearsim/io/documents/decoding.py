"""Bytes to text: size limits, byte-order marks, binary sniffing and decoding.

Text and CSV: UTF-8 (with or without a byte-order mark), else Windows-1252, else Latin-1
(which never fails). UTF-16/UTF-32 files are read when they start with a byte-order mark.
HTML adds the charset the page declares (see :mod:`nearsim.io.documents.html_text`).

Binary data: NUL bytes, or the signature of a PNG, JPEG, GIF, PDF, ZIP (also .xlsx/.docx),
gzip, 7-Zip, old Office or ELF file, is rejected with a message naming what it looks like.
"""

from __future__ import annotations

import codecs

from nearsim.utils.validation import check_optional_int

__all__ = [
    "MAX_CSV_BYTES",
    "MAX_FILE_BYTES",
    "binary_kind",
    "bom_encoding",
    "check_max_bytes",
    "check_size",
    "choose_encoding",
    "count",
    "decode",
    "short",
]

MAX_FILE_BYTES = 5_000_000
"""Default size limit of one uploaded text or HTML file, in bytes."""
MAX_CSV_BYTES = 50_000_000
"""Default size limit of an uploaded CSV file, in bytes."""

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

_FALLBACKS = ("utf-8", "cp1252", "latin-1")


def check_max_bytes(max_bytes: object) -> int | None:
    """A size limit: ``None`` (no limit) or an integer ≥ 1."""
    return check_optional_int(max_bytes, "max_bytes", low=1)


def check_size(data: bytes, max_bytes: int | None, what: str) -> None:
    """Raise if ``data`` is larger than ``max_bytes``; the message states size and limit."""
    if max_bytes is not None and len(data) > max_bytes:
        raise ValueError(
            f"{what} is {len(data):,} bytes, more than the limit of {max_bytes:,} bytes"
        )


def bom_encoding(data: bytes) -> str | None:
    """The codec a byte-order mark at the start of ``data`` names, or None."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding
    return None


def binary_kind(data: bytes) -> str | None:
    """What binary data looks like, or None if it may be text."""
    for signature, kind in _SIGNATURES:
        if data.startswith(signature):
            return kind
    if bom_encoding(data) in ("utf-16", "utf-32"):
        return None
    if b"\x00" in data:
        return "binary data (it contains NUL bytes)"
    return None


def choose_encoding(data: bytes, declared: str | None = None, *, complete: bool = True) -> str:
    """The codec to read ``data`` with.

    Order: byte-order mark, ``declared`` (if it decodes cleanly), UTF-8, Windows-1252,
    Latin-1 (which decodes every byte string).

    Parameters
    ----------
    data : bytes
        The whole file, or its first bytes when ``complete`` is false (then a character
        cut at the end of ``data`` does not count against a codec).
    declared : str, optional
        A codec named by the file itself (an HTML page's charset).
    complete : bool
        Whether ``data`` is the whole file.

    Returns
    -------
    str
        A Python codec name.
    """
    bom = bom_encoding(data)
    if bom is not None:
        return bom
    for candidate in (declared, *_FALLBACKS):
        if candidate is None:
            continue
        try:
            codecs.getincrementaldecoder(candidate)().decode(data, final=complete)
        except (UnicodeDecodeError, LookupError):
            continue
        return candidate
    return "latin-1"  # pragma: no cover - latin-1 decodes every byte string


def decode(data: bytes, declared: str | None = None) -> tuple[str, str]:
    """Decode bytes to text; return ``(text, encoding used)``.

    The codec is :func:`choose_encoding`'s; a byte-order mark is dropped and line ends
    become ``"\\n"``. Bytes a byte-order-marked codec cannot decode become U+FFFD.
    """
    encoding = choose_encoding(data, declared)
    text = data.decode(encoding, errors="replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n"), encoding


def count(number: int, noun: str) -> str:
    """``"1 field"``, ``"2 fields"``, ``"1,000 fields"``."""
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


def short(value: str, limit: int = 60) -> str:
    """``repr`` of a string cut to ``limit`` characters, for messages."""
    if len(value) > limit:
        value = value[: limit - 1] + "…"
    return repr(value)
