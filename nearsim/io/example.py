"""The generated example corpus: short news items, a share of them edited copies.

Items are built from sentence templates whose slots draw from word lists big enough that
two unrelated items share little beyond common words; then a share of the items are
edited copies of earlier ones (copies of copies too). The templates and word lists are
package data (``nearsim/data/example_words.json``); the same (n, seed) always gives the
same corpus.
"""

from __future__ import annotations

import functools
import itertools
import json
import string
from collections.abc import Callable
from importlib import resources
from typing import TYPE_CHECKING

import numpy as np

from nearsim.utils.validation import check_int

if TYPE_CHECKING:  # imported where a frame is built
    import pandas as pd

__all__ = ["EXAMPLE_MAX_DOCS", "EXAMPLE_MIN_DOCS", "example_corpus"]

EXAMPLE_MIN_DOCS = 300
EXAMPLE_MAX_DOCS = 20_000


@functools.cache
def _words() -> dict[str, tuple[str, ...]]:
    """The templates and word lists, read once from the package data."""
    text = resources.files("nearsim").joinpath("data/example_words.json").read_text("utf-8")
    return {name: tuple(values) for name, values in json.loads(text).items()}


_LETTERS = "etaoinshrdlcumwfgypbvk"
# Mean Jaccard similarity (lower-case char 5-gram sets) of an item and its copy after
# _EDIT_X edits per word, measured on 400 generated items; increasing in _EDIT_J.
_EDIT_J = (0.232, 0.292, 0.36, 0.446, 0.509, 0.588, 0.683, 0.819, 0.904, 1.0)
_EDIT_X = (1.2, 0.9, 0.7, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05, 0.0)


@functools.cache
def _objects(name: str) -> np.ndarray:
    """Word list ``name`` as an object array (built once)."""
    return np.asarray(_words()[name], dtype=object)


Slot = Callable[[np.ndarray], list]
"""A template slot: drawn for every document, turned into values only for the rows asked
(a document's templates use a few of the sixty slots)."""


def _draw_slots(rng: np.random.Generator, n: int) -> dict[str, Slot]:
    """Every template slot for ``n`` documents, drawn at once.

    The random draws happen here, in a fixed order, so the corpus does not depend on which
    slots its templates use; the strings are built in :func:`_fill`, for the rows that use
    them (at 20,000 documents the originals took 0.14–0.16 s before, 0.07–0.09 s after).
    """

    def pick(name: str) -> Slot:
        idx = rng.integers(0, len(_words()[name]), size=n)
        return lambda rows: _objects(name)[idx[rows]].tolist()

    def pair(a: str, b: str) -> Slot:  # "first last", "company suffix", "city mascot"
        i = rng.integers(0, len(_words()[a]), size=n)
        j = rng.integers(0, len(_words()[b]), size=n)
        return lambda rows: (_objects(a)[i[rows]] + " " + _objects(b)[j[rows]]).tolist()

    def ints(low: int, high: int) -> Slot:
        values = rng.integers(low, high, size=n)
        return lambda rows: values[rows].tolist()

    def texts(make: Callable[..., str], *columns: np.ndarray) -> Slot:
        def build(rows: np.ndarray) -> list:
            values = [c[rows].tolist() for c in columns]
            return [make(*row) for row in zip(*values, strict=True)]

        return build

    money = rng.integers(2, 900, size=n)
    money_unit = rng.random(n) < 0.5
    money2 = rng.integers(2, 900, size=n)
    hours = rng.integers(6, 22, size=n)
    phones = rng.integers(1_000_000, 9_999_999, size=n)
    return {
        "p": pair("first", "last"), "p2": pair("first", "last"), "role": pick("roles"),
        "c": pick("cities"), "c2": pick("cities"), "c3": pick("cities"),
        "vpol": pick("verb_pol"), "policy": pick("policy"),
        "d": pick("days"), "d2": pick("days"), "mo": pick("months"), "mo2": pick("months"),
        "day": ints(1, 29), "day2": ints(1, 29),
        "n1": ints(2, 12), "n2": ints(12, 90), "n3": ints(100, 5000), "n4": ints(2000, 60000),
        "n5": ints(20, 900), "n6": ints(3, 40),
        "pron": pick("pronouns"), "pron2": pick("pronouns"),
        "office": pick("offices"), "co": pair("co_a", "co_b"), "co2": pair("co_a", "co_b"),
        "pct": ints(2, 19), "pct2": ints(20, 80), "res": pick("results"),
        "qtr": pick("quarters"),
        "money": texts(lambda m, u: f"{m} {'million' if u else 'thousand'} euros", money,
                       money_unit),
        "money2": texts(lambda m: f"{m} million euros", money2),
        "shop": pick("shops"), "street": pick("streets"),
        "team": pair("cities", "mascots"), "team2": pair("cities", "mascots"),
        "s1": ints(3, 7), "s2": ints(0, 3),
        "race": pick("races"), "wx": pick("weather"),
        "deg": ints(31, 45), "year": ints(1890, 2015), "year2": ints(2027, 2036),
        "finding": pick("findings"), "group": pick("groups"),
        "ward": pick("wards"), "loot": pick("loot"),
        "place": pick("places"), "venue": pick("venues"),
        "art": pick("art"), "title": pick("titles"),
        "fest": pick("festivals"), "cause": pick("causes"),
        "river": pick("rivers"), "air": pick("airlines"),
        "scause": pick("school_causes"), "org": pick("orgs"),
        "feel": pick("feelings"), "advice": pick("advice"),
        "ord": pick("ordinals"),
        "price": texts(lambda p: f"{p} euros", rng.integers(8, 120, size=n)),
        "hour": texts(lambda h: f"{h}:{'30' if h % 2 else '00'}", hours),
        "phone": texts(lambda p: f"0{p // 10000}-{p % 10000:04d}", phones),
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


def _fill(templates: tuple[str, ...], choice: np.ndarray, slots: dict[str, Slot]) -> np.ndarray:
    """Sentence ``choice[i]`` of ``templates`` for each document (``""`` where -1).

    Works a template at a time: the documents using it are filled in one comprehension.
    """
    out = np.full(choice.shape, "", dtype=object)
    for t, template in enumerate(templates):
        rows = np.flatnonzero(choice == t)
        if rows.size == 0:
            continue
        fmt, names = _compiled(template)
        values = [slots[name](rows) for name in names]
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
    w = _words()
    for _ in range(n_ops):
        op = u()
        i = int(u() * len(words))
        word = words[i]
        if op < 0.22:  # substitute, keeping trailing punctuation
            new = w["substitutes"][int(u() * len(w["substitutes"]))]
            words[i] = new + word[-1] if word[-1] in ".," else new
        elif op < 0.42:
            words[i] = _typo(word, u)
        elif op < 0.6:  # drop
            if not word.endswith(".") and len(words) > 8:
                del words[i]
        elif op < 0.78:  # insert
            filler = w["fillers"][int(u() * len(w["fillers"]))]
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
    n = check_int(n, "n", low=EXAMPLE_MIN_DOCS, high=EXAMPLE_MAX_DOCS)
    seed = check_int(seed, "seed", low=0)
    return _generate(n, seed)


_CHUNK = 50_000
"""Originals are drawn this many at a time; at least EXAMPLE_MAX_DOCS, so that every
corpus of :func:`example_corpus` is drawn in one piece (its output never depends on it)."""


def _generate(n: int, seed: int, chunk: int = _CHUNK) -> pd.DataFrame:
    """:func:`example_corpus` without the explorer's size limit, for benchmarks.

    The same corpus as ``example_corpus(n, seed)`` for ``n <= chunk``; above it the
    originals' sentence slots are drawn ``chunk`` documents at a time (memory bounded by
    the chunk, not by ``n``; a million documents take about 300 MB, mostly the texts),
    and copies still pick their parent among all earlier rows. ``n`` and ``seed`` are not
    validated here (``n >= 1``, ``seed >= 0``).
    """
    import pandas as pd

    w = _words()
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
    text: list[str] = []
    for lo in range(0, n, chunk):
        text.extend(_originals(rng, w, is_copy[lo : lo + chunk]))

    # Copies, in row order so that a copy of a copy sees its parent's final text.
    u = _uniforms(rng)
    parent_list = parent.tolist()
    per_word_list = per_word.tolist()
    for i in np.flatnonzero(is_copy).tolist():
        words = text[parent_list[i]].split(" ")
        n_ops = round(per_word_list[i] * len(words))
        text[i] = " ".join(_edit(words, n_ops, u)) if n_ops else text[parent_list[i]]
    return pd.DataFrame({"text": text, "parent": parent})


def _originals(rng: np.random.Generator, w: dict, is_copy: np.ndarray) -> list[str]:
    """The texts of one chunk of rows: originals filled in, ``""`` for copies (for now)."""
    n = is_copy.shape[0]
    slots = _draw_slots(rng, n)
    lead = np.where(is_copy, -1, rng.integers(0, len(w["leads"]), size=n))
    follow = np.where(is_copy, -1, rng.integers(0, len(w["follows"]), size=n))
    third = rng.integers(0, len(w["follows"]), size=n)
    third = np.where(third == follow, (third + 1) % len(w["follows"]), third)
    first_two = _fill(w["leads"], lead, slots) + " " + _fill(w["follows"], follow, slots)
    length = np.fromiter(map(len, first_two), dtype=np.int64, count=n)
    wants_third = (length < 120) | ((rng.random(n) < 0.5) & (length < 190))
    third = np.where(is_copy | ~wants_third, -1, third)
    return [t.rstrip() for t in (first_two + " " + _fill(w["follows"], third, slots)).tolist()]
