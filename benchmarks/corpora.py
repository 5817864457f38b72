"""Corpora shaped like the ones users bring, for benchmarks and tests; deterministic.

* :func:`real_documents`: text installed on a Debian machine: manual pages as plain text
  (:func:`roff_to_text`), package documentation (READMEs, changelogs, NEWS, ``copyright``
  files: many exact copies and templated families) and the Python standard library.
* :func:`hot_bucket_corpus`: a crawl: news items with edited copies, boilerplate copied
  thousands of times, dated near-copies of a cookie banner (one hot LSH bucket) and a chain
  of small edits whose ends are far apart; :func:`without_boilerplate` leaves the
  boilerplate out. :func:`describe` says what a corpus holds, :func:`write_jsonl` writes it.

From the repository root (nothing is cached; write to a working folder, not the repository)::

    python -m benchmarks.corpora real --n 12000 --out real.jsonl
    python -m benchmarks.corpora hot --n 1000000 --out hot.jsonl
    python -m benchmarks.corpora hot --n 1000000 --without-boilerplate --out plain.jsonl
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import sys
import sysconfig
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from nearsim.utils.validation import check_int

SOURCES = ("man", "doc", "python")
"""The sources of :func:`real_documents`, in the order their files are sampled."""

MAN_ROOT = "/usr/share/man"
DOC_ROOT = "/usr/share/doc"

# --- roff to plain text --------------------------------------------------------------------

# Named glyphs (\(xx, \[xx]) and predefined strings (\*(xx, \*[xx], \*x: pod2man's and a few
# common ones); anything not listed becomes nothing.
_GLYPHS = {
    "aq": "'", "dq": '"', "em": "—", "en": "–", "hy": "-", "mi": "−", "bu": "•", "ci": "○",
    "lq": "“", "rq": "”", "oq": "‘", "cq": "’", "ga": "`", "ha": "^", "ti": "~", "rs": "\\",
    "sl": "/", "pl": "+", "eq": "=", "or": "|", "ba": "|", "at": "@", "sh": "#", "Do": "$",
    "co": "©", "rg": "®", "tm": "™", "de": "°", "mu": "×", "di": "÷", "+-": "±", "<=": "≤",
    ">=": "≥", "!=": "≠", "->": "→", "<-": "←", "lA": "⇐", "rA": "⇒", "sc": "§", "ps": "¶",
    "dg": "†", "dd": "‡", "pd": "∂", "ts": "ς", "*p": "π", "*b": "β", "*a": "α", "*S": "Σ",
    "*W": "Ω", "la": "⟨", "ra": "⟩", "fo": "‹", "fc": "›", "Fo": "«", "Fc": "»", "ff": "ff",
    "fi": "fi", "fl": "fl", "12": "½", "14": "¼", "34": "¾", "ss": "ß", ":a": "ä", ":o": "ö",
    ":u": "ü", ":A": "Ä", ":O": "Ö", ":U": "Ü", ":i": "ï", "'e": "é", "`e": "è", "S2": "²",
    "bv": "|", "br": "│", "ul": "_", "ru": "_", "ct": "¢", "Po": "£", "Eu": "€", "Ye": "¥",
}  # fmt: skip
_STRINGS = {
    'L"': "“", 'R"': "”", "C`": '"', "C'": '"', "C+": "C++", "--": "—", "PI": "π",
    "Aq": "'", "lq": "“", "rq": "”", "``": "“", "''": "”", "R": "®", "Tm": "™", "Sd": "",
}  # fmt: skip

_BACKSLASH = "\ue000"  # a literal backslash (\e, \\) while the other escapes are rewritten
_DEFINITION = re.compile(r"^[.'][ \t]*(?:de1?|am1?|ig)\b.*?^[.'][ \t]*\.[ \t]*$\n?", re.M | re.S)
_COMMENT_LINE = re.compile(r'^(?:[.\'][ \t]*)?\\["#].*\n?', re.M)
_COMMENT = re.compile(r'\\["#].*')
_TABLE_FORMAT = re.compile(
    r"^\.TS[^\n]*\n(?:[^\n]*;[ \t]*\n)?(?:[^\n]*\n){0,20}?[^\n]*\.[ \t]*$", re.M
)
_MDOC_NAME = re.compile(r"^\.Nm[ \t]+(\S+)", re.M)
_MDOC_BARE_NAME = re.compile(r"^\.Nm[ \t]*$", re.M)
_MACRO = re.compile(r"^[.'][ \t]*(\S*)[ \t]*(.*)$", re.M)
_ARGUMENT = re.compile(r'"((?:[^"]|"")*)"?|(\S+)')
_TABLE_BLOCK = re.compile(r"^T[{}][ \t]*", re.M)  # a table cell's text block
_TRAILING_SPACE = re.compile(r"[ \t]+\n")
_BLANK_LINES = re.compile(r"\n{3,}")
_UNICODE = re.compile(r"u(?:[0-9A-F]{4,5}|10[0-9A-F]{4})(?:_[0-9A-F]{4,6})*")
_FONT = re.compile(r"\\f(?:\([^\n]{2}|\[[^\]\n]*\]|.)")
_SIMPLE = {
    "\\-": "-", "\\&": "", "\\|": "", "\\^": "", "\\%": "", "\\:": "", "\\/": "", "\\,": "",
    "\\ ": " ", "\\~": " ", "\\0": " ", "\\'": "'", "\\`": "`", "\\.": ".", "\\{": "",
    "\\}": "", "\\t": "\t", "\\a": "", "\\u": "", "\\d": "", "\\r": "", "\\p": "", "\\z": "",
}  # fmt: skip
_ESCAPE = re.compile(
    r"""\\(?:
        \(([^\n]{2}) | \[([^\]\n]*)\]                       # glyph: \(xx, \[name]
      | \*(?:\(([^\n]{2}) | \[([^\]\n]*)\] | (.))           # string: \*(xx, \*[name], \*x
      | s(?:[+-]?\d|\([+-]?\d\d|\[[^\]\n]*\]|'[^'\n]*')     # point size
      | [hvwlLDXobxSRZABCHN](.)[^\n]*?\6                    # \h'..' and other delimited ones
      | [nmMFgVY$](?:\([^\n]{2}|\[[^\]\n]*\]|[+-]?.)        # registers, colours, arguments
      | k. | (.)                                            # mark; any other: the character
    )""",
    re.X,
)
_MDOC = frozenset(
    "Nm Nd Sh Ss It Fl Ar Op Oo Oc Pa Xr Dl D1 Em Sy Cm Ic Ev Va Fn Fa Ft Fd Fo Fc In Li Dq Sq "
    "Pq Ql Qq Aq Bq Brq Lk Mt An Cd Dv Er Ex Rv St Tn Ux Bx At Nx Fx Ox No Ns Xo Xc Ta Sx Vt "
    "Ad Ms Tg %A %T %B %J %D %N %O %P %R %V %U".split()
)
_MDOC_CALLABLE = _MDOC - {"Nm", "Nd", "Sh", "Ss", "It", "Dl", "D1", "Xr"}
_PARAGRAPH = frozenset("PP LP P sp br HP TP Pp Lp Sp Bl El Bd Ed SY YS bP Rs Re TQ".split())
_DROP = frozenset("RS RE PD DT UC EX EE TS TE T& IX Vb Ve Dd Os Sm PS PE INDENT UNINDENT".split())
_JOINED = frozenset("BR RB IR RI BI IB".split())  # alternating fonts: arguments run together


def _arguments(args: str) -> list[str]:
    """A macro's arguments: white-space separated, double quotes group ("" is a quote)."""
    if '"' not in args:
        return args.split()
    return [w or q.replace('""', '"') for q, w in _ARGUMENT.findall(args)]


def _mdoc(name: str, args: list[str]) -> str:
    """An mdoc line as text: ``.Op Fl b Ar address`` is ``[-b address]``."""
    if name == "Xr" and len(args) >= 2:
        return f"{args[0]}({args[1]})" + "".join(args[2:])
    out, opened, glue = "", 0, True
    for token in [name, *args] if name in _MDOC_CALLABLE else args:
        if token in ("Op", "Oo", "Fl"):
            word = "-" if token == "Fl" else "["
            out += word if glue else " " + word
            opened += token == "Op"
            glue = True
        elif token == "Oc":
            out += "]"
        elif token == "Ns":
            glue = True
        elif token not in _MDOC_CALLABLE:
            out += token if glue or token in ",.;:)]" else " " + token
            glue = False
    return ("— " if name == "Nd" else "") + out + "]" * opened


def _macro(match: re.Match) -> str:
    """The text a macro line stands for; ``\\x01`` for a line that disappears."""
    name, rest = match.group(1), match.group(2)
    if name in _PARAGRAPH:
        return "\x01" if name == "br" else ""
    if name in ("SH", "SS", "Sh", "Ss"):
        return "\n" + " ".join(_arguments(rest)) if rest else ""
    if name in _JOINED:
        return "".join(_arguments(rest))
    if name in _MDOC:
        return _mdoc(name, _arguments(rest)) or "\x01"
    if name in _DROP or not name[:1].isupper() or not rest:
        return "\x01"
    if name == "IP":  # the tag only, not the indent
        return (_arguments(rest) or [""])[0]
    return " ".join(_arguments(rest))  # B, I, SM, TH, and a page's own text-carrying macros


def _escape(match: re.Match) -> str:
    """An escape not handled by the plain replacements: its character or nothing."""
    glyph, name, string2, string_name, string1, _delimiter, char = match.groups()
    if glyph is not None or name is not None:
        key = glyph if glyph is not None else name
        if _UNICODE.fullmatch(key):  # \[u2014]; a surrogate is no character
            code = int(key[1:].split("_")[0], 16)
            return "" if 0xD800 <= code <= 0xDFFF else chr(code)
        return _GLYPHS.get(key, "")
    string = string2 or string_name or string1
    if string is not None:
        return _STRINGS.get(string, "")
    return char if char is not None else ""


def roff_to_text(source: str) -> str:
    """A manual page's roff source as readable plain text.

    Macro definitions, comments and formatting requests disappear; the text of macros
    that carry it stays (``.SH``/``.SS`` headings on their own line after a blank one,
    ``.B``, ``.I``, ``.BR`` …, ``.IP`` tags, ``.TH`` and common mdoc macros); font changes
    go, and character escapes become their characters (``\\-`` a hyphen, ``\\(em`` a dash,
    ``\\(aq`` an apostrophe, ``\\e`` a backslash). Not a formatter: lines are not filled
    and tables keep their cells as written. About 1 ms for a typical page.

    Parameters
    ----------
    source : str
        The page as written (``.TH``, ``.SH``, …).

    Returns
    -------
    str
        The text, paragraphs separated by one blank line, stripped.

    Examples
    --------
    >>> roff_to_text('.SH NAME\\nls \\\\- list\\n.SH "SEE ALSO"\\n.BR dir (1)')
    'NAME\\nls - list\\n\\nSEE ALSO\\ndir(1)'
    """
    text = source.replace("\r\n", "\n").replace("\\\\", _BACKSLASH).replace("\\e", _BACKSLASH)
    text = _DEFINITION.sub("", text)
    text = _COMMENT.sub("", _COMMENT_LINE.sub("", text))
    text = text.replace("\\\n", "").replace("\\c\n", "")  # continued lines join
    text = _TABLE_FORMAT.sub(".TS", text) if ".TS" in text else text
    if name := _MDOC_NAME.search(text):  # mdoc: a bare .Nm stands for the page's name
        text = _MDOC_BARE_NAME.sub(lambda _: ".Nm " + name.group(1), text)
    text = _MACRO.sub(_macro, text)
    text = _FONT.sub("", text)
    for escape, char in _SIMPLE.items():
        text = text.replace(escape, char)
    if "\\" in text:
        text = _ESCAPE.sub(_escape, text)
    text = text.replace("\x01\n", "").replace("\x01", "").replace(_BACKSLASH, "\\")
    text = _TABLE_BLOCK.sub("", text) if "T{" in text or "T}" in text else text
    return _BLANK_LINES.sub("\n\n", _TRAILING_SPACE.sub("\n", text + "\n")).strip()


# --- documents installed on this machine ---------------------------------------------------

_SO_PAGE = re.compile(r"(?:[.'][ \t]*\\\".*\n|[ \t]*\n)*[.'][ \t]*so[ \t]")
_DOC_NAME = re.compile(r"(?:readme|changelog|news)[^/]*|copyright|[^/]*\.(?:txt|md)", re.I)
_NOT_PLAIN = re.compile(
    r"\.(?:html?|xml|pdf|ps|dvi|png|gif|jpe?g|svg|ico|css|js|py|pl|pm|c|h|sh|el|elc)$", re.I
)
_MAX_UNDECODABLE = 0.1  # a file whose text is more than this share U+FFFD is not text


def _files(root: str, keep: Callable[[str], bool], prune: frozenset[str] = frozenset()):
    """``(relative path, path)`` of the files under ``root`` whose name ``keep`` accepts.

    Sorted by relative path; folders named in ``prune`` and symbolic links to folders are
    not entered. A symbolic link to a file is kept only when no file already kept (a real
    one, or an earlier link) resolves to the same file; a broken link is left out.
    """
    root = os.path.realpath(root)
    found: list[tuple[str, str, bool]] = []
    stack = [root]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in prune:
                        stack.append(entry.path)
                elif keep(entry.name) and entry.is_file():
                    found.append((entry.path[len(root) + 1 :], entry.path, entry.is_symlink()))
    found.sort()
    taken = {path for _, path, link in found if not link}
    kept = []
    for rel, path, link in found:
        if link:
            target = os.path.realpath(path)
            if target in taken:
                continue
            taken.add(target)
        kept.append((rel, path))
    return kept


def _doc_name(name: str) -> bool:
    """Whether a file in /usr/share/doc is plain text by its name (``.gz`` or not)."""
    base = name[:-3] if name.endswith(".gz") else name
    return _DOC_NAME.fullmatch(base) is not None and _NOT_PLAIN.search(base) is None


def _candidates(source: str) -> list[tuple[str, str]]:
    """The files of one source, sorted by relative path."""
    if source == "man":
        return _files(MAN_ROOT, lambda name: name.endswith(".gz"))
    if source == "doc":
        return _files(DOC_ROOT, _doc_name)
    stdlib = sysconfig.get_paths()["stdlib"]
    return _files(stdlib, lambda name: name.endswith(".py"), frozenset({"site-packages"}))


def _document(source: str, path: str, min_chars: int, max_chars: int) -> str | None:
    """One file's text, or None when it is not text, a redirect page, or too short."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        if path.endswith(".gz"):
            data = gzip.decompress(data)
    except (OSError, EOFError):  # unreadable, or a broken .gz
        return None
    if b"\0" in data:  # binary (also UTF-16 text, which no reader here expects)
        return None
    text = data.decode("utf-8", errors="replace")
    if text.count("\ufffd") > _MAX_UNDECODABLE * len(text):
        return None
    if source == "man":
        if _SO_PAGE.match(text):  # ".so man1/other.1": the page is another page
            return None
        text = roff_to_text(text)
    text = text.strip()
    return text[:max_chars] if len(text) >= min_chars else None


def _apportion(n: int, counts: np.ndarray) -> np.ndarray:
    """``n`` split in proportion to ``counts`` (largest remainders; ties to the first)."""
    exact = n * counts / counts.sum()
    quota = np.floor(exact).astype(np.int64)
    order = np.argsort(-(exact - quota), kind="stable")
    quota[order[: n - quota.sum()]] += 1
    return quota


def real_documents(
    n: int | None = None, *, seed: int = 0, min_chars: int = 200, max_chars: int = 200_000
) -> list[dict]:
    """Documents installed on this machine: manual pages, package docs, Python's sources.

    Sources (``source`` of each record):

    * ``"man"``: every ``.gz`` page under /usr/share/man (all sections and languages) as
      plain text (:func:`roff_to_text`); ``.so`` redirect pages and symbolic links to a page
      already taken are left out.
    * ``"doc"``: plain-text files under /usr/share/doc (``README*``, ``changelog*``,
      ``NEWS*``, ``copyright``, ``*.txt``, ``*.md``, also as ``.gz``). Debian's
      ``copyright`` files are kept although many are exact copies of each other: real
      corpora have such copies and templated families.
    * ``"python"``: the ``.py`` files of this interpreter's standard library
      (``sysconfig.get_paths()["stdlib"]``, without site-packages).

    A file with a NUL byte, or whose text is more than 10% undecodable bytes, is not text
    and is left out; text is decoded as UTF-8 with undecodable bytes replaced.

    Parameters
    ----------
    n : int, optional
        How many documents; all of them when None (or when the machine has fewer). The
        files are sampled without replacement, each source giving its share of ``n`` in
        proportion to its number of files; a file that gives no document is replaced by
        the next one drawn from the same source.
    seed : int
        Seed (≥ 0) for ``numpy.random.default_rng``: the sample and the order.
    min_chars : int
        Documents shorter than this after stripping white space are left out.
    max_chars : int
        Longer documents are cut to this many characters (at least ``min_chars``).

    Returns
    -------
    list of dict
        ``{"id": f"{source}:{relative path}", "text": str, "source": str}`` in a seeded
        random order (sources, copies and families mixed, as in a crawl). The same
        arguments give the same list on the same machine.

    Raises
    ------
    ValueError
        If an argument is not an integer in its range.
    """
    n = None if n is None else check_int(n, "n", low=0)
    seed, min_chars = check_int(seed, "seed", low=0), check_int(min_chars, "min_chars", low=0)
    max_chars = check_int(max_chars, "max_chars", low=max(min_chars, 1))
    files = [_candidates(source) for source in SOURCES]
    counts = np.array([len(f) for f in files], dtype=np.int64)
    wanted = counts if n is None or n >= counts.sum() else _apportion(int(n), counts)
    rng = np.random.default_rng(seed)
    queues = [iter(rng.permutation(c).tolist()) for c in counts.tolist()]
    records: list[dict] = []

    def draw(s: int, count: int) -> int:
        """Up to ``count`` more documents from source ``s``; how many were found."""
        found = 0
        while found < count and (i := next(queues[s], None)) is not None:
            rel, path = files[s][i]
            text = _document(SOURCES[s], path, min_chars, max_chars)
            if text is not None:
                records.append({"id": f"{SOURCES[s]}:{rel}", "text": text, "source": SOURCES[s]})
                found += 1
        return found

    short = sum(int(q) - draw(s, int(q)) for s, q in enumerate(wanted))
    for s in range(len(SOURCES)):  # a source with too few documents: others fill its share
        short -= draw(s, short) if short > 0 else 0
    return [records[i] for i in rng.permutation(len(records)).tolist()]


# --- a crawl with boilerplate --------------------------------------------------------------

COOKIE_BANNER = (
    "We use cookies and similar technologies to run this website, to understand how it is "
    "used and to show you content that fits your interests. Some cookies are necessary for "
    'the site to work; others are set only with your consent. By clicking "Accept all" you '
    'agree to cookies being stored on your device; change your choice at any time under "Cookie '
    'settings". Accept all · Reject all · Cookie settings · Privacy policy'
)
NOT_FOUND_PAGE = (
    "404 Page not found. Sorry, the page you are looking for does not exist or has been "
    "moved. Please check the address for typing errors, go back to the previous page or "
    "start again from our home page. If you followed a link on this site, let us know so we "
    "can fix it. Home · Search · Contact us · Site map"
)
EMPTY_PAGE = (
    "Home › News › Untitled. Share this article: Facebook · X · LinkedIn · Email. Related "
    "articles. Most read. Newsletter: sign up for the morning briefing. Terms of use · "
    "Privacy policy · Cookie settings · Accessibility · © 2026 All rights reserved."
)
BOILERPLATE = (COOKIE_BANNER, NOT_FOUND_PAGE, EMPTY_PAGE)
_BOILERPLATE_WEIGHTS = np.array([9, 4, 2])
BOILERPLATE_SHARE = 0.15
DATED_SHARE = 0.025
CHAIN_LENGTH = 100
HOT_MIN_DOCS = 1_000
_KINDS = ("news", "boilerplate", "dated", "chain")


def _hot_counts(n: int) -> dict[str, int]:
    """How many rows of each kind a corpus of ``n`` rows has (boilerplate per text)."""
    boilerplate = _apportion(round(BOILERPLATE_SHARE * n), _BOILERPLATE_WEIGHTS)
    dated = round(DATED_SHARE * n)
    news = n - int(boilerplate.sum()) - dated - CHAIN_LENGTH
    return {"news": news, **{f"boilerplate{b}": int(c) for b, c in enumerate(boilerplate)},
            "dated": dated, "chain": CHAIN_LENGTH}  # fmt: skip


def _chain(rng: np.random.Generator, seed: int) -> list[str]:
    """An article of about 1,500 characters and its 99 successive one-word edits.

    Each edit replaces a different word of four letters or more, so neighbours share
    nearly all their character 5-grams while the ends differ in 99 words.
    """
    from nearsim.io.example import _generate, _words

    items = _generate(60, seed + 1).query("parent == -1")["text"].tolist()
    lengths = np.cumsum([len(t) + 1 for t in items])
    article = " ".join(items[: int(np.searchsorted(lengths, 1_500)) + 1]).split(" ")
    editable = [i for i, w in enumerate(article) if len(w) >= 4 and w.isalpha()]
    positions = rng.choice(editable, size=CHAIN_LENGTH - 1, replace=False).tolist()
    substitutes = sorted({w for w in _words()["substitutes"] if len(w) >= 4})
    picks = rng.integers(0, len(substitutes), size=CHAIN_LENGTH - 1).tolist()
    texts = [" ".join(article)]
    for position, pick in zip(positions, picks, strict=True):
        word = substitutes[pick]
        if word == article[position].lower():
            word = substitutes[(pick + 1) % len(substitutes)]
        article[position] = word
        texts.append(" ".join(article))
    return texts


def hot_bucket_corpus(n: int, *, seed: int = 0) -> list[dict]:
    """A crawl's shape: news items, boilerplate copied thousands of times, dated copies, a chain.

    Rows, at random positions:

    * ``"news"`` (the rest, about 82.5%): short news items from the Example generator
      (``nearsim.io.example._generate``), about a third of them edited copies of earlier ones;
    * ``"boilerplate"`` (15%): exact copies of a cookie banner, a "404 page not found"
      page and an empty article template, in proportion 9 : 4 : 2;
    * ``"dated"`` (2.5%): the cookie banner with "Last updated <date> · visit <counter>"
      appended: no two alike, all sharing most of their shingles (one LSH bucket);
    * ``"chain"`` (100 rows, in order): an article of about 1,500 characters, each next row
      the previous with one more word replaced: neighbours above 0.9 Jaccard (character
      5-grams), the two ends far below 0.8.

    Parameters
    ----------
    n : int
        Number of rows, at least 1,000. Every count scales with ``n`` (60,000 rows hold
        9,000 boilerplate copies) and is exactly the same for the same ``n``.
    seed : int
        Seed (≥ 0) for the layout, the news items, the dates and the chain.

    Returns
    -------
    list of dict
        ``{"id": f"d{row:07d}", "text": str, "source": kind}`` in row order.

    Raises
    ------
    ValueError
        If ``n`` is below 1,000 or ``seed`` is negative.
    """
    from nearsim.io.example import _generate

    n, seed = check_int(n, "n", low=HOT_MIN_DOCS), check_int(seed, "seed", low=0)
    counts = _hot_counts(n)
    rng = np.random.default_rng(seed)
    layout = rng.permutation(np.repeat(np.arange(len(counts)), list(counts.values())))
    rows = {kind: np.flatnonzero(layout == k) for k, kind in enumerate(counts)}

    text = np.empty(n, dtype=object)
    text[rows["news"]] = _generate(counts["news"], seed)["text"].to_numpy()
    for b, page in enumerate(BOILERPLATE):
        text[rows[f"boilerplate{b}"]] = page
    days = rng.integers(0, 3 * 365, size=counts["dated"])
    dates = np.datetime_as_string(np.datetime64("2024-01-01") + days, unit="D").tolist()
    visits = 10_000 + rng.choice(max(90_000, 4 * counts["dated"]), counts["dated"], False)
    text[rows["dated"]] = [
        f"{COOKIE_BANNER} Last updated {d} · visit {v}"
        for d, v in zip(dates, visits.tolist(), strict=True)
    ]
    text[rows["chain"]] = _chain(rng, seed)

    kind = np.array(_KINDS)[[0, 1, 1, 1, 2, 3]][layout].tolist()
    return [
        {"id": f"d{row:07d}", "text": t, "source": k}
        for row, (t, k) in enumerate(zip(text.tolist(), kind, strict=True))
    ]


def without_boilerplate(records: Iterable[dict]) -> list[dict]:
    """The records that are not boilerplate or dated copies, ids unchanged.

    For the side-by-side benchmark: the same crawl with its boilerplate removed.
    """
    return [r for r in records if r["source"] not in ("boilerplate", "dated")]


# --- what a corpus holds, and writing it ---------------------------------------------------


def describe(records: list[dict]) -> dict:
    """Counts and sizes of a corpus, overall and per source.

    Parameters
    ----------
    records : list of dict
        Records with ``text`` and ``source``.

    Returns
    -------
    dict
        ``documents``, ``mean_chars``, ``median_chars``, ``exact_copies`` (records whose
        text equals an earlier record's text exactly) and ``distinct_texts``; and
        ``by_source``: for each source (sorted by name) its ``documents``, ``mean_chars``,
        ``median_chars`` and ``exact_copies`` (its records whose text an earlier record,
        of any source, already had).
    """
    import pandas as pd

    frame = pd.DataFrame({"source": [r["source"] for r in records]})
    texts = pd.Series([r["text"] for r in records], dtype=object)
    frame["chars"] = texts.str.len().to_numpy(dtype=np.int64) if len(texts) else 0
    frame["copy"] = texts.duplicated(keep="first").to_numpy()

    def summary(part: pd.DataFrame) -> dict:
        return {
            "documents": len(part),
            "mean_chars": round(float(part["chars"].mean()), 1) if len(part) else 0.0,
            "median_chars": float(part["chars"].median()) if len(part) else 0.0,
            "exact_copies": int(part["copy"].sum()),
        }

    return {
        **summary(frame),
        "distinct_texts": len(frame) - int(frame["copy"].sum()),
        "by_source": {s: summary(part) for s, part in frame.groupby("source", sort=True)},
    }


def write_jsonl(records: Iterable[dict], path: str | os.PathLike) -> int:
    """Write records as JSON lines (UTF-8, one object a line, non-ASCII kept as it is).

    Returns
    -------
    int
        The number of lines written.
    """
    encode = json.JSONEncoder(ensure_ascii=False).encode
    count = 0
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for record in records:
            fh.write(encode(record) + "\n")
            count += 1
    return count


def _report(facts: dict) -> str:
    """:func:`describe`'s dict as lines for a person."""

    def line(label: str, d: dict) -> str:
        return (
            f"{label:<12} {d['documents']:>9,} documents   mean {d['mean_chars']:>8,.0f} chars"
            f"   median {d['median_chars']:>8,.0f}   exact copies {d['exact_copies']:>8,}"
        )

    rows = [line(source, d) for source, d in facts["by_source"].items()]
    return "\n".join([*rows, line("all", facts), f"distinct texts: {facts['distinct_texts']:,}"])


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.corpora {real,hot}``: build a corpus, describe it, write it."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.corpora", description=__doc__)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    sub = parser.add_subparsers(dest="corpus", required=True)
    real = sub.add_parser("real", help="documents installed on this machine")
    real.add_argument("--n", type=int, default=None, help="how many (default: all)")
    real.add_argument("--min-chars", type=int, default=200)
    real.add_argument("--max-chars", type=int, default=200_000)
    hot = sub.add_parser("hot", help="a crawl with boilerplate copied thousands of times")
    hot.add_argument("--n", type=int, default=1_000_000, help="how many (default: 1,000,000)")
    hot.add_argument("--without-boilerplate", action="store_true", help="no boilerplate rows")
    for p in (real, hot):
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--out", type=Path, default=None, help="write JSON lines here")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    try:
        if args.corpus == "real":
            sizes = {"min_chars": args.min_chars, "max_chars": args.max_chars}
            records = real_documents(args.n, seed=args.seed, **sizes)
        else:
            records = hot_bucket_corpus(args.n, seed=args.seed)
    except ValueError as error:
        parser.error(str(error))
    if args.corpus == "hot" and args.without_boilerplate:
        records = without_boilerplate(records)
    built = time.perf_counter() - start
    print(_report(describe(records)))
    print(f"built in {built:.1f} s")
    if args.out is not None:
        start = time.perf_counter()
        lines = write_jsonl(records, args.out)
        print(f"wrote {lines:,} records to {args.out} in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
