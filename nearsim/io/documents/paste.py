"""Pasted text: one document per line, or blank-line-separated blocks."""

from __future__ import annotations

import re

from nearsim.utils.validation import check_unicode

__all__ = ["parse_paste"]

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
        If ``text`` is not a ``str`` of valid Unicode text.

    Examples
    --------
    >>> parse_paste("one\\ntwo\\n")
    ['one', 'two']
    >>> parse_paste("a first\\nparagraph\\n\\nand a second")
    ['a first\\nparagraph', 'and a second']
    """
    text = check_unicode(text, "text", what="a str (the pasted text)")
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        return []
    pieces = _BLANK_LINE.split(text) if _BLANK_LINE.search(text) else text.split("\n")
    return [p for p in (piece.strip() for piece in pieces) if p]
