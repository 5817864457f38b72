"""The audit scan's cheap first look (:mod:`nearsim.audit.prefilter`) against brute force:
its hashes are the scan's, and it flags every document that reaches the floor with an
anchor before it, so that skipping the unflagged ones changes nothing."""

from __future__ import annotations

import numpy as np
import pytest

import nearsim as ns
from nearsim.audit.measure import _copy_keys
from nearsim.audit.prefilter import _hashes, flag_documents
from nearsim.audit.scan import AnchorScan
from nearsim.audit.tokens import flat_tokens
from nearsim.hashing import flatten_texts


def _corpus(seed: int, n: int = 240) -> list[str]:
    """News items, a third of them followed by an edited copy (a few words changed), some
    accented and some shorter than a shingle."""
    rng = np.random.default_rng(seed)
    texts = []
    for text in ns.example_corpus(300, seed=seed)["text"].tolist()[:n]:
        texts.append(text)
        if rng.random() < 0.35:
            words = text.split()
            for i in rng.choice(len(words), max(1, len(words) // 15), replace=False):
                words[i] = "édité" if rng.random() < 0.3 else f"x{int(rng.integers(1000))}"
            texts.append(" ".join(words))
    texts[3] = "ab"
    texts[7] = "Ça va très bien, merci."
    return texts


@pytest.mark.parametrize("kind,k", [("char", 5), ("char", 3), ("char", 9), ("word", 3)])
def test_the_first_look_hashes_like_the_scan(kind, k):
    """Every document's hashes (the sliding word for ASCII character shingles, k ≤ 7;
    the general path otherwise) are, as a set, the scan's sorted hash set."""
    texts = _corpus(1, 60)
    flat = flatten_texts(texts, kind=kind, k=k)
    tok, off = flat_tokens(flat)
    longest = int(np.diff(flat.doc_offsets).max()) + 1
    ring, st, en = np.empty(k, np.int64), np.empty(longest, np.int64), np.empty(longest, np.int64)
    h = np.empty(longest, np.uint64)
    for d in range(len(texts)):
        lo, hi = int(flat.doc_offsets[d]), int(flat.doc_offsets[d + 1])
        count = _hashes(flat.buf, lo, hi, kind == "word", flat.whole[d], k, ring, st, en, h)
        assert np.array_equal(np.unique(h[:count]), tok[off[d] : off[d + 1]]), d


@pytest.mark.parametrize("seed,floor,kind", [(0, 0.8, "char"), (1, 0.5, "char"),
                                              (2, 0.65, "word"), (3, 0.9, "char")])  # fmt: skip
def test_every_document_reaching_the_floor_is_flagged(seed, floor, kind):
    """No draws (q = 0): a document is flagged when, and in practice only when, an anchor
    before it reaches the floor with it. Brute force over every (anchor, later document)
    pair; the test needs pairs near the floor on both sides to mean anything."""
    texts = _corpus(seed)
    n = len(texts)
    flat = flatten_texts(texts, kind=kind, k=5 if kind == "char" else 3)
    tok, off = flat_tokens(flat)
    sets = [tok[off[d] : off[d + 1]] for d in range(n)]
    rng = np.random.default_rng(seed)
    anchors = np.sort(rng.choice(n, n // 3, replace=False))
    scan = AnchorScan(floor, floor, 0.0, seed)
    scan.set_pilot(tok[: off[40]])
    keys = _copy_keys(flat, anchors)
    scan.add_anchors(*flat_tokens(flat, anchors), anchors, anchors, keys)
    flags = flag_documents(scan, flat, np.arange(n, dtype=np.int64))
    best = np.zeros(n)
    for a in anchors.tolist():
        for x in range(a + 1, n):
            inter = np.intersect1d(sets[a], sets[x], assume_unique=True).shape[0]
            union = sets[a].shape[0] + sets[x].shape[0] - inter
            best[x] = max(best[x], inter / union if union else 1.0)
    reach = best >= floor
    assert reach.sum() >= 5  # pairs at the floor exist
    assert np.any((best < floor) & (best >= floor - 0.15))  # and pairs just below it
    missed = np.flatnonzero(reach & ~flags)
    assert missed.shape[0] == 0, f"documents {missed[:5]} reach {floor} and are not flagged"
    # the look screens: most documents far below the floor are left out
    assert np.mean(flags[best < floor - 0.2]) < 0.5


def test_a_pair_exactly_at_the_floor_whose_bound_is_tight_is_flagged():
    """Word 1-grams, so each word is one hash: x holds 89 of anchor a's 100 words (J = 89 /
    111 ≥ 0.8, the least overlap that reaches it) and 11 words of its own, and the order puts
    x's own words and a's missing words first. The first hash the two share is then the
    12th of each, and the positional bound min(|x| − 11, |a| − 11) = 89 is exactly the
    overlap needed (88, the bound rounded down, is what the filter asks): two less and the
    pair would be lost."""
    from nearsim.audit.tokens import order_keys

    words = [f"w{i}" for i in range(400)]
    flat_words = flatten_texts(words, kind="word", k=1)
    tok, _off = flat_tokens(flat_words)  # one hash a word, in word order
    scan = AnchorScan(0.8, 0.8, 0.0, 0)
    scan.set_pilot(flat_tokens(flatten_texts(["unrelated text"], kind="word", k=1))[0])
    rank = np.argsort(order_keys(scan.pilot.classes, tok))  # words, first in the order first
    own = [words[i] for i in rank[:11]]  # x's own words: first in the order
    a_words = [words[i] for i in rank[11:111]]  # a's first 11 are the words x lacks
    x_words = own + a_words[11:]
    assert len(set(x_words) & set(a_words)) == 89 and len(x_words) == 100
    texts = [" ".join(a_words), " ".join(x_words)]
    flat = flatten_texts(texts, kind="word", k=1)
    anchors = np.array([0])
    scan.add_anchors(*flat_tokens(flat, anchors), anchors, anchors, _copy_keys(flat, anchors))
    flags = flag_documents(scan, flat, np.arange(2, dtype=np.int64))
    assert flags.tolist() == [False, True]
