"""The explorer's glue outside a running app: one cache per stage, launch arguments, kept
uploads, and what the browser storage restores."""

from __future__ import annotations

import base64
import json
import sys

from nearsim import pipeline


def test_every_stage_has_its_own_cache():
    """Streamlit keys a cache on the function's qualified name: one name per stage, so a
    stage's entries never evict another's and each has its own bound."""
    from nearsim_app.explorer import state

    assert set(state._CACHES) == set(pipeline.STAGES)
    names = {fn.__wrapped__.__qualname__ if hasattr(fn, "__wrapped__") else fn.__qualname__
             for fn in state._CACHES.values()}  # fmt: skip
    assert len(names) == len(pipeline.STAGES)
    assert state.MAX_ENTRIES["shingles"] < state.DEFAULT_ENTRIES


def test_corpus_arguments_come_from_after_the_double_dash(monkeypatch):
    from nearsim_app.explorer import launch

    launch.corpus_arguments.cache_clear()
    monkeypatch.setattr(sys, "argv", ["app.py", "--corpus", "a.jsonl", "b.parquet",
                                      "--text-field", "body", "--id-field", "url"])  # fmt: skip
    got = launch.corpus_arguments()
    assert got.paths == ("a.jsonl", "b.parquet") and got.text_field == "body"
    assert got.id_field == "url"
    launch.corpus_arguments.cache_clear()
    monkeypatch.setattr(sys, "argv", ["app.py"])
    assert launch.corpus_arguments() == launch.CorpusArguments()
    launch.corpus_arguments.cache_clear()


def test_an_upload_lands_at_one_path_per_content(tmp_path):
    from nearsim_app.explorer import launch

    a = launch.save_upload("../../etc/corpus.jsonl", b'{"text": "x"}\n')
    b = launch.save_upload("corpus.jsonl", b'{"text": "x"}\n')
    c = launch.save_upload("corpus.jsonl", b'{"text": "y"}\n')
    assert a == b and a != c
    assert a.endswith("/corpus.jsonl") and "/etc/" not in a  # the name only, never a path
    with open(a, "rb") as f:
        assert f.read() == b'{"text": "x"}\n'


def test_storage_restores_paste_and_csv_and_ignores_a_damaged_entry(monkeypatch):
    import streamlit as st
    from nearsim_app.explorer import state, storage

    fake: dict = {}
    monkeypatch.setattr(st, "session_state", fake)
    payload = {"name": "a.csv", "column": "body", "data": base64.b64encode(b"x,body\n").decode()}
    assert storage.restore({"paste": "one\ntwo", "csv": json.dumps(payload)})
    assert fake[state.PASTE_KEY] == "one\ntwo"
    assert fake[state.CSV_STATE] == ("a.csv", b"x,body\n") and fake[state.CSV_COLUMN] == "body"
    fake.clear()
    assert not storage.restore({"csv": '{"name": "a.csv", "data": "%%% not base64"}'})
    assert state.CSV_STATE not in fake


def test_the_exact_pairs_come_from_the_similarity_sample_once_it_is_at_hand(monkeypatch):
    """Once the similarity sample is computed, the exact pairs at any threshold from its
    floor up are read from it (no second join), and equal the join's; below a raised
    floor, and before any sample, the join runs."""
    import pandas as pd
    from nearsim_app.explorer import state

    from nearsim import example_corpus
    from nearsim.join import exact as exact_module
    from nearsim.settings import Settings

    texts = example_corpus(3000, seed=4)["text"].tolist()  # above the all-pairs limit
    docs = state.Documents(texts, [f"#{i}" for i in range(3000)], None, "paste",
                           pipeline.digest(texts), "test")  # fmt: skip
    joins = []
    real_join_rows = exact_module.join_rows
    monkeypatch.setattr(exact_module, "join_rows",
                        lambda *a, **k: joins.append(a[1]) or real_join_rows(*a, **k))  # fmt: skip
    state._SAMPLED.clear()
    before = state.runner(docs, Settings(threshold=0.9, auto_tune=False)).get("exact")
    assert len(joins) == 1  # no sample yet: the join ran
    sample = state.runner(docs, Settings(threshold=0.85)).get("sample")
    floor = sample.attrs["floor"]
    assert floor is not None and floor <= 0.75
    joins.clear()
    for t in (0.8, 0.93, floor):
        got = state.runner(docs, Settings(threshold=t, auto_tune=False)).get("exact")
        want = pipeline.Runner(texts, Settings(threshold=t)).get("exact")
        pd.testing.assert_frame_equal(got, want)
    assert len([c for c in joins if c is not None]) == 3  # only the fresh Runners joined
    assert len(before) == len(pipeline.Runner(texts, Settings(threshold=0.9)).get("exact"))


def test_the_subsets_shingles_taken_from_the_whole_equal_cutting_them_again():
    """Export scores the settings in force on a subset of long documents with shingles
    taken from the pages' own (take_documents): every stage up to the evaluation equals
    a run that cuts the subset's shingles again."""
    import numpy as np
    import pandas as pd

    from nearsim import example_corpus
    from nearsim.hashing import take_documents
    from nearsim.settings import Settings

    texts = example_corpus(600, seed=3)["text"].tolist()
    settings = Settings(threshold=0.5, auto_tune=False, bands=16, rows=4)
    rows = np.sort(np.random.default_rng(1).choice(600, 250, replace=False))
    flat = take_documents(pipeline.Runner(texts, settings).get("shingles").flat, rows)
    subset = [texts[i] for i in rows]
    fresh = pipeline.Runner(subset, settings)
    memo = {("shingles", fresh.digest, pipeline.stage_key(settings, "shingles")):
            pipeline.Shingled(flat, np.diff(flat.doc_offsets))}  # fmt: skip

    def fetch(stage, runner):
        key = (stage, *runner.key(stage))
        if key not in memo:
            memo[key] = runner.compute(stage)
        return memo[key]

    seeded = pipeline.Runner(subset, settings, fetch=fetch, digest=fresh.digest)
    np.testing.assert_array_equal(seeded.get("signatures"), fresh.get("signatures"))
    np.testing.assert_array_equal(seeded.get("candidates").pairs, fresh.get("candidates").pairs)
    pd.testing.assert_frame_equal(seeded.get("exact"), fresh.get("exact"))
    assert repr(seeded.get("evaluation")) == repr(fresh.get("evaluation"))
    assert len(fresh.get("exact")) > 0
