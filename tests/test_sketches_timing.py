"""The Two sketches comparison times signing on a bounded share of the text."""

from __future__ import annotations

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
