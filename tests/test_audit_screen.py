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
