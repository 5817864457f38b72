"""The compiled shingle cutter and hashing helpers shared by MinHash, the join and SimHash."""

import mmh3
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nearsim as ns
from nearsim.hashing import decode, flatten, flatten_texts, text_shingles
from nearsim.shingling import normalize

TEXTS = [
    "Hello world, this is a test",
    "héllo wörld 日本語のテキスト 🎉 emoji",
    "",
    "abc",
    "  spaced   out  text  ",
    "ΟΔΟΣ σ",
    "\t\n",
    "a\x00b\x00c nul",
    "abcabcabc abc abc abc",
    "to be or not to be to be",
    "aaaaaaaaaaaaaaaaaaaaaaaa",
]
OPTIONS = [
    {"kind": kind, "k": k, "collapse_whitespace": cw, "remove_punctuation": rp}
    for kind, ks in (("char", (1, 3, 5)), ("word", (1, 2, 5)))
    for k in ks
    for cw in (True, False)
    for rp in (True, False)
]


@pytest.mark.parametrize("opts", OPTIONS, ids=str)
def test_text_shingles_equal_python_shingles(opts):
    flat = text_shingles(TEXTS, **opts)
    for d, text in enumerate(TEXTS):
        assert decode(flat, d) == ns.shingles(text, **opts)


@given(st.lists(st.text(max_size=50), max_size=6), st.integers(1, 6), st.booleans())
def test_text_shingles_property(texts, k, word):
    opts = {"kind": "word" if word else "char", "k": k}
    flat = text_shingles(texts, **opts)
    assert [decode(flat, d) for d in range(len(texts))] == [ns.shingles(t, **opts) for t in texts]


@pytest.mark.parametrize("batch", [1, 7, 40])
def test_text_shingles_in_batches_equal_python_shingles(monkeypatch, batch):
    """Documents are cut in batches of about _BATCH_SHINGLES shingles (scratch reused):
    batches of one shingle, of a few documents and of all give the same spans."""
    import nearsim.hashing as hashing

    texts = [*TEXTS, "", "a", *(t * 3 for t in TEXTS)]
    monkeypatch.setattr(hashing, "_BATCH_SHINGLES", batch)
    flat = text_shingles(texts, k=3)
    assert [decode(flat, d) for d in range(len(texts))] == [ns.shingles(t, k=3) for t in texts]
    assert flat.starts.shape == flat.ends.shape == (flat.doc_offsets[-1],)


def test_signatures_from_cut_shingles_equal_signatures_from_lists():
    mh = ns.MinHasher(32, seed=9)
    lists = [ns.shingles(t) for t in TEXTS]
    assert (mh.signatures(text_shingles(TEXTS)) == mh.signatures(lists)).all()


@given(st.lists(st.lists(st.text(max_size=6), max_size=8), max_size=6))
def test_flatten_round_trips_and_hashes(docs):
    flat = flatten(docs)
    assert [decode(flat, d) for d in range(len(docs))] == docs
    expected = [mmh3.hash(s.encode(), 7, signed=False) for doc in docs for s in doc]
    assert flat.hashes(7).tolist() == expected
    assert flat.hashes(7).dtype == np.uint32


# Every ASCII character the normalisation treats specially (upper case, the white space
# str.split splits on, punctuation and the symbols that are not punctuation), and a few
# that are not ASCII, so a list mixes documents the kernel normalises and documents
# normalised in Python first.
_NORMALISED = (
    "aZ 09\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f.,!?'\"-_$+<=>^`|~é\u2019Σ\u3000"
    # and the other code points the compiled path treats specially: white space (NEL, no-break
    # space, line separator), punctuation (dashes, quotes), case pairs of 2 and 3 bytes, the
    # Kelvin sign (lower case k: fewer bytes), and those left to Python (İ: two code points,
    # Ⱥ: more bytes, Σ: final sigma, and a code point beyond U+FFFF with a lower case)
    "\x85\xa0\u2028\u2013\u201cÉÀßẞΩω\u212aİ\u023a\U00010400\U0001f600"
)


def _laid_out(texts, kind, k, **opts):
    """flatten_texts' layout written plainly: shingles.normalize per text, then words."""
    out, whole = [], []
    for text in texts:
        text = normalize(text, **opts)
        words = text.split()
        if kind == "word" and len(words) >= k:
            text = " ".join(words)
        out.append(text.encode())
        whole.append(kind == "word" and len(words) < k and bool(text))
    return b"".join(out), np.cumsum([0] + [len(b) for b in out]), whole


def _check_layout(texts, kind, k, *, whole=False, **opts):
    """flatten_texts against :func:`_laid_out`: the same bytes and document offsets, and
    (``whole``) the same whole-document flags."""
    flat = flatten_texts(texts, kind=kind, k=k, **opts)
    buf, offsets, flags = _laid_out(texts, kind, k, **opts)
    assert bytes(flat.buf) == buf
    assert flat.doc_offsets.tolist() == offsets.tolist()
    if whole:
        assert flat.whole.tolist() == flags


@given(
    st.lists(st.text(alphabet=_NORMALISED, max_size=30), max_size=8),
    st.sampled_from([("char", 3), ("word", 1), ("word", 2), ("word", 4)]),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_flatten_texts_normalises_as_normalize_does(texts, shingling, lower, punct, collapse):
    """The compiled normalisation (nearsim._ascii_text) against
    nearsim.shingling.normalize, byte for byte, with the word layout and its whole-document
    flags, on documents it normalises and documents it leaves to Python, side by side."""
    kind, k = shingling
    opts = {"lowercase": lower, "remove_punctuation": punct, "collapse_whitespace": collapse}
    _check_layout(texts, kind, k, whole=True, **opts)


_ASCII = "".join(map(chr, range(128)))


@given(
    st.lists(
        st.text(alphabet=st.sampled_from(_ASCII) | st.sampled_from(" \n\tAZaz\x1f"),
                max_size=60),
        max_size=6,
    ),
    st.sampled_from([("char", 3), ("word", 2)]),
    st.booleans(),
    st.booleans(),
)
def test_ascii_blocks_normalise_as_normalize_does(texts, shingling, lower, collapse):
    """Eight ASCII bytes at a time (every code point below 128, white space and capitals
    drawn often: runs of spaces across a block's edges, control characters that are and
    are not white space) against nearsim.shingling.normalize."""
    kind, k = shingling
    opts = {"lowercase": lower, "remove_punctuation": False, "collapse_whitespace": collapse}
    _check_layout(texts, kind, k, whole=True, **opts)


@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("collapse", [False, True])
def test_every_ascii_byte_at_every_place_of_a_block(lower, collapse):
    """Every code point below 128 at each of a block's eight places, between letters and
    between spaces, against nearsim.shingling.normalize (exhaustive: the random texts
    above draw a given control character in a given place rarely)."""
    texts = [
        before * 8 + pad[:place] + chr(c) + pad[place:]
        for c in range(128)
        for place in range(8)
        for before, pad in (("Ab", "Cdefghijklmnop"), (" ", "  \t X  \n Y  "))
    ]
    opts = {"lowercase": lower, "remove_punctuation": False, "collapse_whitespace": collapse}
    _check_layout(texts, "char", 3, **opts)


@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("punct", [False, True])
def test_every_code_point_of_plane_1(lower, punct):
    """Every code point of U+10000-U+1FFFF (copied, or the document left to Python), and
    some beyond, between letters and spaces, against nearsim.shingling.normalize."""
    points = [*range(0x10000, 0x20000), 0x20000, 0x2A6D6, 0xE0041, 0x10FFFD]
    texts = [f"Ab {chr(c)}Cd{chr(c)} " for c in points]
    opts = {"lowercase": lower, "remove_punctuation": punct, "collapse_whitespace": True}
    _check_layout(texts, "char", 3, **opts)


@given(st.lists(st.text(max_size=40), max_size=6), st.booleans(), st.booleans())
def test_flatten_texts_normalises_any_text_as_normalize_does(texts, lower, punct):
    """Any code point (hypothesis draws the whole of Unicode but lone surrogates)."""
    opts = {"lowercase": lower, "remove_punctuation": punct, "collapse_whitespace": True}
    _check_layout(texts, "char", 3, **opts)
