"""HTML to the text a reader sees: BeautifulSoup's tolerant parser, page chrome dropped."""

from __future__ import annotations

import codecs
import re

from nearsim.utils.validation import check_unicode

__all__ = ["declared_charset", "html_to_text"]

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


def declared_charset(data: bytes) -> str | None:
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

    Raises
    ------
    ValueError
        If ``markup`` is not a ``str`` of valid Unicode text.

    Examples
    --------
    >>> html_to_text("<nav>Menu</nav><p>Hello <b>world</b></p><p>Bye</p>")
    'Hello world\\nBye'
    """
    from bs4 import BeautifulSoup
    from bs4.element import NavigableString, PreformattedString, Tag

    markup = check_unicode(markup, "markup", what="a str (the page, decoded)")
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
