"""Show two documents side by side with their word differences highlighted."""

from __future__ import annotations

import difflib

import streamlit as st

from .safe_text import html_block, md

_DEL = '<del style="background:#fbe3dd;color:#8a2b12">'
_INS = '<ins style="background:#d9efe9;color:#14594f;text-decoration:none">'


def diff_html(reference: str, text: str) -> tuple[str, str]:
    """Both texts as escaped HTML, words only in one of them marked.

    Returns
    -------
    (str, str)
        ``reference`` with the words ``text`` dropped struck through in red, and
        ``text`` with the words it added in green. Every piece of user text is shown as text
        (``safe_text.html_block``): no HTML, Markdown, LaTeX or autolink in it is read.
    """
    a, b = reference.split(), text.split()
    left, right = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            left.append(html_block(" ".join(a[i1:i2])))
            right.append(html_block(" ".join(b[j1:j2])))
            continue
        if i2 > i1:
            left.append(_DEL + html_block(" ".join(a[i1:i2])) + "</del>")
        if j2 > j1:
            right.append(_INS + html_block(" ".join(b[j1:j2])) + "</ins>")
    return " ".join(left), " ".join(right)


def _box(body: str) -> str:
    return (
        '<div style="font-size:0.92rem;line-height:1.5;max-height:22rem;overflow:auto;'
        f'white-space:normal">{body}</div>'
    )


def side_by_side(title_a: str, text_a: str, title_b: str, text_b: str) -> None:
    """Two documents in two columns, differences highlighted."""
    left, right = diff_html(text_a, text_b)
    ca, cb = st.columns(2)
    with ca:
        st.markdown(f"**{md(title_a)}**")
        st.markdown(_box(left), unsafe_allow_html=True)
    with cb:
        st.markdown(f"**{md(title_b)}**")
        st.markdown(_box(right), unsafe_allow_html=True)
