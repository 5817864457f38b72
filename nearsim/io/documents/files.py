"""One uploaded file as one document: ``.txt``, ``.md``, ``.html``, ``.htm``."""

from __future__ import annotations

from pathlib import PurePath

from nearsim.io.documents.decoding import (
    MAX_FILE_BYTES,
    binary_kind,
    check_max_bytes,
    check_size,
    decode,
    short,
)
from nearsim.io.documents.html_text import declared_charset, html_to_text
from nearsim.utils.validation import check_bytes, check_unicode

__all__ = ["DOCUMENT_EXTENSIONS", "read_document_file"]

DOCUMENT_EXTENSIONS = (".txt", ".md", ".html", ".htm")
"""The file types :func:`read_document_file` reads (any case)."""


def read_document_file(name: str, data: bytes, *, max_bytes: int | None = MAX_FILE_BYTES) -> str:
    """Read one uploaded file as one document.

    Parameters
    ----------
    name : str
        The file name; its extension (any case) picks the reader: ``.txt`` and ``.md``
        are plain text (Markdown is kept as written), ``.html`` and ``.htm`` give the
        visible text (see :func:`~nearsim.io.documents.html_to_text`).
    data : bytes
        The raw file (``bytes``, ``bytearray`` or ``memoryview``).
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

    Examples
    --------
    >>> read_document_file("note.txt", b"  hello\\r\\nworld\\n")
    'hello\\nworld'
    """
    name = check_unicode(name, "name", what="a str (the file name)")
    limit = check_max_bytes(max_bytes)
    label = short(name, 80)
    accepted = ", ".join(DOCUMENT_EXTENSIONS)
    suffix = PurePath(name).suffix.lower()
    if suffix not in DOCUMENT_EXTENSIONS:
        shown = repr(suffix) if suffix else "no extension"
        raise ValueError(f"file {label} has {shown}; accepted file types: {accepted}")
    data = check_bytes(data, "data", what=f"bytes (the raw contents of file {label})")
    check_size(data, limit, f"file {label}")
    kind = binary_kind(data)
    if kind is not None:
        raise ValueError(
            f"file {label} looks like {kind}, not text; accepted: text files ({accepted})"
        )
    if suffix in (".html", ".htm"):
        markup, _ = decode(data, declared_charset(data))
        text = html_to_text(markup)
        if not text:
            raise ValueError(
                f"file {label} has no visible text (everything in it is markup, scripts, "
                "styles, navigation, header, footer or sidebar)"
            )
        return text
    text, _ = decode(data)
    text = text.strip()
    if not text:
        raise ValueError(f"file {label} has no text (it is empty or only white space)")
    return text
