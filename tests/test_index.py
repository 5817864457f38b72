"""nearsim.Index: matches equal the batch library's answer through many adds, the
skip_duplicates filter against a reference loop, hot buckets and exact copies as
``nearsim dedup`` treats them, queries, explanations, refusals."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import jaccard

import nearsim as ns
from nearsim.index.storage import IndexBusyError, IndexFolderError, writer_lock
from nearsim.run.options import BUCKET_LIMIT

COLUMNS = ["row", "id", "match_id", "estimate", "stored"]


def batch_answer(texts, s, bucket_limit=BUCKET_LIMIT) -> set[tuple[int, int]]:
    """The pairs ``nearsim dedup`` accepts on these texts, through the library's public
    calls: exact copies linked to their first occurrence, band candidates among distinct
    documents with the run's bucket limit, estimate ≥ t."""
    mh = ns.MinHasher(s.num_perm, s.hash_seed)
    sig = mh.text_signatures(texts, **s.shingle_options())
    valid = np.array([len(ns.shingles(t, **s.shingle_options())) > 0 for t in texts])
    links = ns.copy_pairs(ns.copy_keys(texts, **s.shingle_options()), valid)
    distinct = valid.copy()
    distinct[links[:, 1]] = False
    cand = ns.candidate_pairs(sig, s.bands, s.rows, valid=distinct, bucket_limit=bucket_limit)
    cand = np.concatenate([cand, links])
    keep = ns.estimate_pairs(sig, cand) >= s.threshold if len(cand) else np.zeros(0, bool)
    return {(int(a), int(b)) for a, b in cand[keep]}


def brute_force(texts, s) -> set[tuple[int, int]]:
    """Every pair i < j, checked one by one: a text that is a copy of an earlier one (equal
    copy keys) pairs with that text's first occurrence only; a first occurrence pairs with
    an earlier first occurrence when a whole band of their signatures is equal and the
    share of equal positions reaches t. Texts without shingles pair with nothing."""
    opts = s.shingle_options()
    mh = ns.MinHasher(s.num_perm, s.hash_seed)
    sh = [ns.shingles(t, **opts) for t in texts]
    sig = [mh.signature(x) for x in sh]
    keys = [ns.copy_keys([t], **opts)[0].tobytes() for t in texts]
    r = s.rows
    first: dict[bytes, int] = {}
    out = set()
    for j in range(len(texts)):
        if not sh[j]:
            continue
        if keys[j] in first:
            out.add((first[keys[j]], j))
            continue
        first[keys[j]] = j
        for i in range(j):
            if not sh[i] or first.get(keys[i]) != i:
                continue
            band = any((sig[i][b * r : b * r + r] == sig[j][b * r : b * r + r]).all()
                       for b in range(s.bands))  # fmt: skip
            if band and np.mean(sig[i] == sig[j]) >= s.threshold:
                out.add((i, j))
    return out


def found_pairs(frames_and_offsets) -> set[tuple[int, int]]:
    """(earlier position, later position) of every match in add results whose ids are the
    documents' positions (the default ids)."""
    out = set()
    for frame, offset in frames_and_offsets:
        hit = frame[frame["match_id"] != ""]
        out |= {(int(m), offset + int(r)) for r, m in zip(hit["row"], hit["match_id"], strict=True)}
    return out


WORDS = "storm council budget harbour closed approved monday river city new old two".split()


@st.composite
def near_duplicate_texts(draw):
    """Short texts from a small vocabulary: edited copies, exact copies (differing only
    in case and spacing) and empty texts."""
    n = draw(st.integers(2, 40))
    texts: list[str] = []
    for _ in range(n):
        kind = draw(st.sampled_from(["new", "edit", "copy", "empty"]))
        if kind == "new" or not texts:
            words = draw(st.lists(st.sampled_from(WORDS), min_size=3, max_size=12))
            texts.append(" ".join(words))
        elif kind == "edit":
            words = draw(st.sampled_from(texts)).split() or ["x"]
            at = draw(st.integers(0, len(words) - 1))
            words[at] = draw(st.sampled_from(WORDS))
            texts.append(" ".join(words))
        elif kind == "copy":
            texts.append("  " + draw(st.sampled_from(texts)).upper())
        else:
            texts.append(draw(st.sampled_from(["", "   "])))
    return texts


SMALL = ns.RunSettings(shingle_k=3, num_perm=16, auto_tune=False, bands=4, rows=3, threshold=0.5)


@settings(max_examples=60)
@given(texts=near_duplicate_texts(), cuts=st.lists(st.integers(0, 40), max_size=6),
       threshold=st.sampled_from([0.3, 0.5, 0.7]))  # fmt: skip
def test_adds_of_any_sizes_find_the_brute_force_pairs(tmp_path_factory, texts, cuts, threshold):
    """Adding a corpus in calls of any sizes finds exactly the pairs a brute-force check of
    every pair finds (buckets here are small: every pair of a bucket is compared)."""
    s = SMALL.replace(threshold=threshold)
    idx = ns.Index.create(tmp_path_factory.mktemp("ix") / "i", s)
    bounds = sorted({0, len(texts), *(c for c in cuts if c < len(texts))})
    frames = [(idx.add(texts[a:b]), a) for a, b in itertools.pairwise(bounds)]
    assert len(idx) == len(texts)
    want = brute_force(texts, s)
    assert found_pairs(frames) == want
    assert batch_answer(texts, s) == want


def test_one_add_equals_dedup_on_the_old_and_new_documents_with_hot_buckets(tmp_path):
    """A crawl with boilerplate copied thousands of times and buckets of more than 100
    distinct documents: stored documents, then one add, finds exactly the pairs nearsim
    dedup's rules (copies, the bucket limit, the filter) find on all of them between a new
    document and an earlier one."""
    from benchmarks.corpora import hot_bucket_corpus

    texts = [r["text"] for r in hot_bucket_corpus(8000, seed=1)]
    s = ns.RunSettings(threshold=0.7)
    want = batch_answer(texts, s)
    mh = ns.MinHasher(s.num_perm, s.hash_seed)
    sig = mh.text_signatures(texts, **s.shingle_options())
    biggest = max(np.unique(sig[:, :s.rows], axis=0, return_counts=True)[1])
    assert biggest > 3 * BUCKET_LIMIT, "the corpus must hold hot buckets"
    for split in (0, 3000, 7990):
        idx = ns.Index.create(tmp_path / f"i{split}", s)
        frames = [(idx.add(texts[:split]), 0)] if split else []
        new = idx.add(texts[split:])
        got = found_pairs([(new, split)])
        assert got == {p for p in want if p[1] >= split}
        if split:  # the stored part alone is a run of its own (smaller buckets)
            assert found_pairs(frames) == batch_answer(texts[:split], s)


def test_a_hot_bucket_costs_a_query_two_comparisons(tmp_path):
    """5,000 stored documents share a band (their first r values) and differ elsewhere: a
    new document in that bucket is compared with its first and its latest member only, and
    matches at most those two there (nearsim dedup's 2m − 3 rule, seen from a new member)."""
    s = ns.RunSettings(num_perm=32, auto_tune=False, bands=2, rows=4, threshold=0.1)
    rng = np.random.default_rng(4)
    base = " ".join(f"w{i}" for i in range(40))
    texts = [base + " " + " ".join(f"x{rng.integers(1 << 30)}" for _ in range(3))
             for _ in range(5000)]  # fmt: skip
    idx = ns.Index.create(tmp_path / "i", s)
    idx.add(texts)
    hits = idx.query([base + " tail words here"])
    sig = idx.signatures(np.arange(len(idx)))
    mh = ns.MinHasher(32, 1)
    q = mh.text_signatures([base + " tail words here"])[0]
    shares = [(sig[:, b * 4 : b * 4 + 4] == q[b * 4 : b * 4 + 4]).all(axis=1) for b in range(2)]
    for b in range(2):
        members = np.flatnonzero(shares[b])
        if members.size > BUCKET_LIMIT:
            matched = {int(m) for m in hits["match_id"] if m != ""}
            inside = matched & set(members.tolist())
            assert inside <= {int(members[0]), int(members[-1])}, (b, sorted(inside)[:5])
    assert (hits["match_id"] != "").sum() <= 4


def reference_loop(texts, s, folder):
    """seed 000's filter one document at a time: query; store only when nothing matched."""
    idx = ns.Index.create(folder, s)
    stored, matches = [], {}
    for row, text in enumerate(texts):
        hit = idx.query([text])
        found = hit.loc[hit["match_id"] != "", ["match_id", "estimate"]]
        matches[row] = sorted(zip(found["match_id"], found["estimate"], strict=True))
        if not len(found):
            idx.add([text], [f"r{row}"])
            stored.append(row)
    return stored, matches


@settings(max_examples=40)
@given(texts=near_duplicate_texts(), threshold=st.sampled_from([0.3, 0.6]))
def test_skip_duplicates_equals_a_reference_loop(tmp_path_factory, texts, threshold):
    """add(skip_duplicates=True) stores and reports exactly what querying each document and
    storing it only when nothing matched does, one at a time: of two copies in one call,
    the second is not stored, and nothing later is compared with an unstored document."""
    s = SMALL.replace(threshold=threshold)
    folder = tmp_path_factory.mktemp("ix")
    stored, matches = reference_loop(texts, s, folder / "ref")
    idx = ns.Index.create(folder / "one", s)
    ids = [f"r{i}" for i in range(len(texts))]
    got = idx.add(texts, ids, skip_duplicates=True)
    assert sorted(set(got.loc[got["stored"], "row"])) == stored
    assert len(idx) == len(stored)
    for row in range(len(texts)):
        part = got[(got["row"] == row) & (got["match_id"] != "")]
        assert sorted(zip(part["match_id"], part["estimate"], strict=True)) == matches[row]
        assert bool(got.loc[got["row"] == row, "stored"].iloc[0]) == (not matches[row])


def test_two_copies_in_one_call_the_second_is_not_stored(tmp_path):
    idx = ns.Index.create(tmp_path / "i")
    post = "Senior accountant wanted for a growing firm in the city centre, full time."
    got = idx.add([post, post, "  " + post.upper()], ["a", "b", "c"], skip_duplicates=True)
    assert np.isnan(got["estimate"][0])  # no match: no estimate
    assert got[COLUMNS].fillna({"estimate": -1}).values.tolist() == [
        [0, "a", "", -1, True],
        [1, "b", "a", 1.0, False],
        [2, "c", "a", 1.0, False],
    ]
    assert len(idx) == 1
    again = idx.add([post], ["d"], skip_duplicates=True)
    assert again[COLUMNS].values.tolist() == [[0, "d", "a", 1.0, False]]


def test_add_returns_the_documented_columns_and_types(tmp_path):
    idx = ns.Index.create(tmp_path / "i")
    texts = ns.example_corpus(300, seed=1)["text"].tolist()
    out = idx.add(texts)
    assert list(out.columns) == COLUMNS
    assert out["row"].dtype == np.int64 and out["estimate"].dtype == np.float64
    assert out["stored"].dtype == bool
    assert pd.api.types.is_string_dtype(out["id"]) and pd.api.types.is_string_dtype(out["match_id"])
    assert set(out["row"]) == set(range(300))
    assert out["row"].is_monotonic_increasing
    assert (out["id"] == out["row"].astype(str)).all()  # default ids: positions in the index
    hit = out[out["match_id"] != ""]
    assert (hit["match_id"].astype(int) < hit["row"]).all()
    assert (hit["estimate"] >= 0.8).all()
    q = idx.query(texts[:50])
    assert list(q.columns) == ["row", "id", "match_id", "estimate"]
    assert len(idx) == 300  # a query stores nothing


def test_query_takes_each_text_alone_as_an_add_of_it_would(tmp_path):
    texts = ns.example_corpus(600, seed=2)["text"].tolist()
    idx = ns.Index.create(tmp_path / "i")
    idx.add(texts[:400])
    q = idx.query(texts[400:])
    for row in range(0, 200, 7):
        one = ns.Index.create(tmp_path / f"one{row}")
        one.add(texts[:400])
        alone = one.add([texts[400 + row]])
        want = alone.loc[alone["match_id"] != "", ["match_id", "estimate"]].values.tolist()
        have = q.loc[(q["row"] == row) & (q["match_id"] != ""), ["match_id", "estimate"]]
        assert have.values.tolist() == want


def test_settings_are_fixed_and_a_mismatch_is_refused(tmp_path):
    s = ns.RunSettings(threshold=0.7, num_perm=64)
    idx = ns.Index.create(tmp_path / "i", s)
    assert idx.settings == ns.Settings(threshold=0.7, num_perm=64)
    assert ns.Index.open(tmp_path / "i").settings.run_settings() == s
    ns.Index.open(tmp_path / "i", ns.Settings(threshold=0.7, num_perm=64, n_docs=500))
    with pytest.raises(ValueError, match=r"num_perm 128 \(the index has 64\)"):
        ns.Index.open(tmp_path / "i", ns.RunSettings(threshold=0.7))
    with pytest.raises(ValueError, match=r"threshold 0.8 \(the index has 0.7\)"):
        ns.Index.open(tmp_path / "i", ns.RunSettings(num_perm=64))


def test_foreign_missing_and_full_folders_are_refused(tmp_path):
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "notes.txt").write_text("mine")
    with pytest.raises(IndexFolderError, match="is not a nearsim index"):
        ns.Index.open(tmp_path / "foreign")
    with pytest.raises(IndexFolderError, match="is not empty"):
        ns.Index.create(tmp_path / "foreign")
    with pytest.raises(IndexFolderError, match="does not exist"):
        ns.Index.open(tmp_path / "missing")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "index.json").write_text('{"format": "something-else"}')
    with pytest.raises(IndexFolderError, match="not a nearsim index's"):
        ns.Index.open(tmp_path / "other")
    ns.Index.create(tmp_path / "ok")
    with pytest.raises(IndexFolderError, match="holds a nearsim index"):
        ns.Index.create(tmp_path / "ok")
    (tmp_path / "empty").mkdir()
    assert len(ns.Index.create(tmp_path / "empty")) == 0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda i: i.add("one text"), "texts='one text' is not accepted"),
        (lambda i: i.add(["a", 3]), r"texts\[1\] is a int"),
        (lambda i: i.add(["a", "b"], ["x"]), "ids has 1 ids for 2 texts"),
        (lambda i: i.add(["a"], [1.5]), r"ids\[0\] is a float"),
        (lambda i: i.add(["a"], skip_duplicates="yes"), "skip_duplicates='yes'"),
        (lambda i: i.add(["a"], wait=-1), "wait=-1 is not accepted"),
        (lambda i: i.texts([0]), "does not keep texts"),
        (lambda i: i.explain("text", 99), "match=99 is not accepted"),
        (lambda i: i.explain("text", "nobody"), "not the id of a stored document"),
    ],
)
def test_bad_arguments_name_themselves(tmp_path, call, message):
    idx = ns.Index.create(tmp_path / "i")
    idx.add(["a first document of some length", "a second one, also long enough"])
    with pytest.raises(ValueError, match=message):
        call(idx)


def test_a_second_writer_is_told_or_waits(tmp_path):
    idx = ns.Index.create(tmp_path / "i")
    with writer_lock(idx.path):  # another writer (a second descriptor: its own flock)
        with pytest.raises(IndexBusyError, match="being added to by another process"):
            idx.add(["a document that has to wait"])
        assert len(idx) == 0
    idx.add(["a document that has to wait"], wait=1.0)
    assert len(idx) == 1


def test_explain_says_which_bands_agree_and_the_estimate(tmp_path):
    texts = ns.example_corpus(400, seed=6)["text"].tolist()
    idx = ns.Index.create(tmp_path / "i", keep_texts=True)
    out = idx.add(texts)
    hit = out[(out["match_id"] != "") & (out["estimate"] < 1)].iloc[0]
    e = idx.explain(texts[hit["row"]], hit["match_id"])
    s = idx.settings
    assert e.matches and e.candidate and e.reaches
    assert e.estimate == pytest.approx(hit["estimate"])
    assert e.band_rows.shape == (s.bands, s.rows)
    assert all(e.band_rows[b].all() for b in e.full_bands)
    assert float(e.pair.jaccard) == pytest.approx(
        jaccard(ns.shingles(texts[hit["row"]]), ns.shingles(texts[int(hit["match_id"])]))
    )
    miss = idx.explain("something else entirely, about the weather in spring", 0)
    assert not miss.matches and miss.best_rows < s.rows
    assert "not a candidate" in miss.summary()
    copy = idx.explain(texts[0].upper(), 0)
    assert copy.copy and copy.matches and copy.estimate == 1.0


def test_compaction_keeps_every_document_and_few_segments(tmp_path):
    texts = ns.example_corpus(4000, seed=8)["text"].tolist()
    idx = ns.Index.create(tmp_path / "i")
    sizes = np.random.default_rng(1).integers(1, 100, size=60)
    pos = 0
    for size in sizes:
        idx.add(texts[pos : pos + size])
        pos += int(size)
        assert idx.segment_count <= int(np.log2(max(pos, 2))) + 1
    assert len(idx) == pos
    whole = ns.Index.create(tmp_path / "whole")
    whole.add(texts[:pos])
    np.testing.assert_array_equal(idx.signatures(np.arange(pos)), whole.signatures(np.arange(pos)))
    assert idx.ids(np.arange(pos)) == whole.ids(np.arange(pos))
    assert sorted(p.name for p in idx.path.iterdir() if p.suffix == ".seg") == sorted(
        e.file for e in idx._manifest.segments
    )
    q = texts[pos : pos + 300]
    pd.testing.assert_frame_equal(idx.query(q), whole.query(q))
