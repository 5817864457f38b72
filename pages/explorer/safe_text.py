"""Documents' text (and ids, file names, field names, messages quoting them) shown as text.

Streamlit draws ``st.markdown``, captions, alerts and widget labels as GitHub-flavoured
Markdown with LaTeX (``$…$``), directives (``:red[…]``, ``:material/…:``) and autolinks of
bare URLs; ``html.escape`` stops tags but none of these. A document holding
``![x](http://host/pixel.png)`` would make the browser fetch that image, and the promise
that nothing is loaded from other sites would be broken by data the user did not write.

So every character Markdown, LaTeX, a directive or an autolink could act on is written as
an HTML character reference: CommonMark never treats a reference as syntax (it is only
ever the literal character), and the browser shows the character itself.
"""

from __future__ import annotations

# Markdown syntax, LaTeX's $, directives' :, autolinks' : @ . and GFM's ~ | = ^; & < > " '
# as HTML needs them. Digits, letters and spaces pass unchanged.
_SPECIAL = "&<>\"'\\`*_{}[]()#+-.!|$~:@=^%"
_TABLE = {ord(c): f"&#{ord(c)};" for c in _SPECIAL}
_LINE_BREAKS = {ord("\r"): None}


def md(text: str) -> str:
    """One line of user text for a Markdown string (a caption, a bold name, an alert).

    Parameters
    ----------
    text : str

    Returns
    -------
    str
        ``text`` with every Markdown/HTML/LaTeX/autolink character as a character
        reference and line breaks as spaces: it shows exactly as written, on one line.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    flat = " ".join(text.split("\n")).translate(_LINE_BREAKS)
    return flat.translate(_TABLE)


def html_block(text: str) -> str:
    """User text for the inside of an HTML element drawn with ``unsafe_allow_html``.

    Line breaks become ``<br>``: a blank line would end the HTML block and the rest of the
    text would be read as Markdown again.

    Returns
    -------
    str
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return "<br>".join(line.translate(_TABLE) for line in text.translate(_LINE_BREAKS).split("\n"))
