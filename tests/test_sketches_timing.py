"""The Two sketches comparison times signing on a bounded share of the text."""

from __future__ import annotations

import pandas as pd
import pytest

import nearsim as ns
import nearsim.explore.sketches as sk
from nearsim import pipeline
from nearsim.minhash import MinHasher
from nearsim.settings import Settings


def test_signing_is_timed_on_the_first_megabytes_and_scaled_to_all(monkeypatch):
    texts = ns.example_corpus(400, seed=2)["text"].tolist()
    run = pipeline.Runner(texts, Settings(n_docs=400))
    signed: list[int] = []
    real = MinHasher.text_signatures

    def counted(self, batch, **kw):
        signed.append(len(batch))
        return real(self, batch, **kw)

    monkeypatch.setattr(MinHasher, "text_signatures", counted)
    total = sum(len(t.encode()) for t in texts)
    monkeypatch.setattr(sk, "TIMING_BYTES", total // 4)
    cmp = sk.compare_sketches(
        texts, run.get("shingles").flat, run.get("sample"), run.get("exact"), run.get("valid"),
        run.settings, seeds=1,
    )  # fmt: skip
    timed = signed[0]
    assert signed == [timed] * 4 and 1 <= timed < len(texts) // 2
    timed_mb = sum(len(t.encode()) for t in texts[:timed]) / 1e6
    for row in cmp.timing.itertuples():  # seconds = the timed share's best, scaled to all
        assert row.seconds == pytest.approx(timed_mb / row.mb_per_s * total / 1e6 / timed_mb)
    monkeypatch.setattr(sk, "TIMING_BYTES", 1)  # at least one document is timed
    signed.clear()
    sk.compare_sketches(
        texts, run.get("shingles").flat, run.get("sample"), run.get("exact"), run.get("valid"),
        run.settings, seeds=1,
    )  # fmt: skip
    assert signed == [1] * 4


def test_long_documents_are_measured_on_a_random_subset_as_if_it_were_loaded_alone(
    monkeypatch,
):
    """Above MAX_SIGNED_SHINGLES the spread and recall come from a seeded subset of the
    documents: the same tables as the comparison run on those documents alone (their own
    sample and exact pairs), and the subset's shingles are its documents' own."""
    texts = ns.example_corpus(400, seed=2)["text"].tolist()
    settings = Settings(n_docs=400, threshold=0.5)
    run = pipeline.Runner(texts, settings)
    flat, valid = run.get("shingles").flat, run.get("valid")
    total = int(flat.doc_offsets[-1])
    monkeypatch.setattr(sk, "MAX_SIGNED_SHINGLES", total // 3)
    whole = sk.compare_sketches(texts, flat, run.get("sample"), run.get("exact"), valid,
                                settings, seeds=2)  # fmt: skip
    docs, sub = sk._subset(flat, valid, total // 3, seed=0)
    assert 2 <= whole.signed == docs.size < len(texts) * 0.5
    assert int(sub.doc_offsets[-1]) <= total // 3
    for pos, d in enumerate(docs.tolist()):  # each kept document keeps its own shingles
        lo, hi = flat.doc_offsets[d], flat.doc_offsets[d + 1]
        spans = zip(flat.starts[lo:hi], flat.ends[lo:hi], strict=True)
        want = [bytes(flat.buf[a:b]) for a, b in spans]
        lo, hi = sub.doc_offsets[pos], sub.doc_offsets[pos + 1]
        spans = zip(sub.starts[lo:hi], sub.ends[lo:hi], strict=True)
        got = [bytes(sub.buf[a:b]) for a, b in spans]
        assert got == want
    alone_texts = [texts[d] for d in docs.tolist()]
    alone = pipeline.Runner(alone_texts, settings)
    inputs = [alone.get(s) for s in ("sample", "exact", "valid")]
    cmp = sk.compare_sketches(alone_texts, alone.get("shingles").flat, *inputs, settings, seeds=2)
    assert cmp.signed == docs.size
    pd.testing.assert_frame_equal(whole.quality, cmp.quality)
    pd.testing.assert_frame_equal(whole.spread, cmp.spread)
    assert whole.quality["recall"].notna().all() and (whole.quality["candidates"] > 0).all()
