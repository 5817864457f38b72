"""The NumPy path that answers a few texts without numba (nearsim.index.quick) gives, bit
for bit, what the compiled path gives: hashes, signatures, copy keys, band keys, matches —
and a fresh process that queries an index loads neither numba nor pandas' heavy parts
until the frame is built."""

from __future__ import annotations

import json
import subprocess
import sys

import mmh3
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nearsim as ns
from nearsim.banding import band_keys as compiled_band_keys
from nearsim.index import quick
from nearsim.index.matching import match_batch
from nearsim.run.signing import sign_batch

TEXT = st.text(
    alphabet=st.sampled_from([*"ab cD,.!\t\n", "é", "ß", "日", "😀", "\u00a0", "İ"]),
    max_size=60,
)


@settings(max_examples=200)
@given(items=st.lists(st.binary(max_size=40), max_size=30))
def test_murmur3_32_of_many_equals_mmh3(items):
    want = [mmh3.hash(x, 0, signed=False) for x in items]
    assert quick.murmur3_32_many(items).tolist() == want


@settings(max_examples=200)
@given(data=st.binary(max_size=80))
def test_murmur3_x64_128_equals_mmh3(data):
    want = mmh3.hash128(data, 0, x64arch=True, signed=False)
    h1, h2 = quick.murmur3_x64_128(data)
    assert h1 | (h2 << 64) == want


OPTIONS = st.fixed_dictionaries(
    {
        "shingle_kind": st.sampled_from(["char", "word"]),
        "shingle_k": st.integers(1, 6),
        "lowercase": st.booleans(),
        "remove_punctuation": st.booleans(),
        "collapse_whitespace": st.booleans(),
        "num_perm": st.sampled_from([8, 64, 128]),
        "hash_seed": st.integers(0, 5),
    }
)


@settings(max_examples=150, deadline=None)
@given(texts=st.lists(TEXT, max_size=8), options=OPTIONS)
def test_sign_equals_the_compiled_signing(texts, options):
    """Validity, signatures and copy keys as nearsim dedup's sign_batch gives them, for any
    shingling, signature length and seed, on text with non-ASCII letters, emoji, tabs and
    no-break spaces (the compiled path normalises ASCII and other text differently)."""
    run = ns.RunSettings(**options)
    valid, sig, keys = quick.sign(texts, run)
    want = sign_batch(texts, run)
    np.testing.assert_array_equal(valid, want[0])
    np.testing.assert_array_equal(sig, want[1])
    np.testing.assert_array_equal(keys, want[2])


def test_a_lone_surrogate_is_refused_as_the_compiled_path_refuses_it():
    run = ns.RunSettings()
    with pytest.raises(ValueError, match="lone surrogate") as mine:
        quick.sign(["bad \udc80 text"], run)
    with pytest.raises(ValueError, match="lone surrogate") as theirs:
        sign_batch(["bad \udc80 text"], run)
    assert str(mine.value) == str(theirs.value)


def test_band_keys_equal_the_compiled_ones():
    rng = np.random.default_rng(3)
    sig = rng.integers(0, 1 << 32, size=(50, 128), dtype=np.uint64).astype(np.uint32)
    sig[10:20, :13] = sig[0, :13]
    got = quick.band_keys(sig, 9, 13)
    for b in range(9):
        np.testing.assert_array_equal(got[b], compiled_band_keys(sig, b * 13, b * 13 + 13))


def _same(a, b):
    for name in ("row", "position", "earlier", "count", "stored", "banded", "copy", "band_keys"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@pytest.mark.parametrize("limit", [1, 2, 3, 100])
def test_match_solo_equals_the_compiled_matcher_with_hot_buckets_and_copies(tmp_path, limit):
    """Against an index of several segments holding exact copies and buckets larger than
    the limit (small limits make many buckets hot): the same matches, counts and order."""
    texts = ns.example_corpus(1500, seed=5)["text"].tolist()
    s = ns.RunSettings(threshold=0.5)
    idx = ns.Index.create(tmp_path / "i", s)
    for lo, hi in [(0, 700), (700, 1000), (1000, 1100), (1100, 1150)]:
        idx.add(texts[lo:hi])
    assert idx.segment_count >= 2
    probes = texts[1150:1400] + [t.upper() for t in texts[:40:3]] + ["", "   "]
    valid, sig, keys = quick.sign(probes, s)
    got = quick.match_solo(idx._stored, sig, valid, keys, bands=s.bands, rows=s.rows,
                           threshold=s.threshold, bucket_limit=limit)  # fmt: skip
    want = match_batch(idx._stored, sig, valid, keys, bands=s.bands, rows=s.rows,
                       threshold=s.threshold, bucket_limit=limit, solo=True)  # fmt: skip
    assert got.row.shape[0] > 50 and got.copy.sum() >= 10
    _same(got, want)


def test_query_of_a_few_texts_equals_the_compiled_answer(tmp_path, monkeypatch):
    texts = ns.example_corpus(800, seed=6)["text"].tolist()
    idx = ns.Index.create(tmp_path / "i")
    idx.add(texts[:600], [f"d{i}" for i in range(600)])
    few = [*texts[600:610], texts[3].upper(), texts[40] + " More.", texts[41][:-3]]
    assert len(few) <= quick.QUICK_MAX
    fast = idx.query(few)
    monkeypatch.setattr(quick, "QUICK_MAX", 0)  # the compiled path
    slow = idx.query(few)
    assert (fast["match_id"] != "").sum() >= 3
    assert fast.equals(slow)


COLD = """
import json, sys
import nearsim as ns
idx = ns.Index.open(sys.argv[1])
found = idx.query([sys.argv[2]])
print(json.dumps({"numba": "numba" in sys.modules, "scipy": "scipy" in sys.modules,
                  "matches": found["match_id"].tolist()}))
"""


def test_a_fresh_process_queries_without_loading_numba(tmp_path):
    """Opening an index and answering one query loads no numba (nor SciPy, which numba's
    import pulls in): what made a cold query take a second."""
    texts = ns.example_corpus(300, seed=7)["text"].tolist()
    idx = ns.Index.create(tmp_path / "i")
    idx.add(texts, [f"d{i}" for i in range(300)])
    probe = texts[5] + " and more"
    out = subprocess.run([sys.executable, "-c", COLD, str(tmp_path / "i"), probe],
                         capture_output=True, text=True, check=True)  # fmt: skip
    got = json.loads(out.stdout)
    assert got == {
        "numba": False,
        "scipy": False,
        "matches": idx.query([probe])["match_id"].tolist(),
    }


def test_matches_gives_the_query_answer_as_plain_lists(tmp_path):
    texts = ns.example_corpus(500, seed=9)["text"].tolist()
    idx = ns.Index.create(tmp_path / "i")
    idx.add(texts[:400], [f"d{i}" for i in range(400)])
    probes = [texts[7].upper(), texts[420], texts[8] + " More here.", ""]
    got = idx.matches(probes)
    q = idx.query(probes)
    hit = q[q["match_id"] != ""]
    want = [list(zip(hit.loc[hit["row"] == r, "match_id"], hit.loc[hit["row"] == r, "estimate"],
                     strict=True)) for r in range(len(probes))]  # fmt: skip
    assert got == want
    assert got[0] == [("d7", 1.0)] and got[3] == []


CLI_FEW = """
import sys
from nearsim.cli import main
status = main(sys.argv[1:])
print(status, "numba" in sys.modules, "pandas" in sys.modules)
"""


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_cli_query_of_a_few_records_writes_what_the_full_path_writes(tmp_path, suffix):
    """`nearsim index query` on a file of at most QUICK_MAX records answers without numba
    or pandas, and writes what the full path (pandas) writes (CSV byte for byte)."""
    from nearsim.index.commands import write_table

    texts = ns.example_corpus(300, seed=10)["text"].tolist()
    idx = ns.Index.create(tmp_path / "i", ns.RunSettings(threshold=0.6, num_perm=96))
    idx.add(texts[:250], [f"d{i}" for i in range(250)])
    probes = [texts[3].upper(), texts[260], texts[4] + " More.", texts[5][:-9], texts[6][5:], "  "]
    records = [{"id": f"p{i}", "text": t} for i, t in enumerate(probes)]
    (tmp_path / "few.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / f"few{suffix}"
    r = subprocess.run([sys.executable, "-c", CLI_FEW, "index", "query", str(tmp_path / "i"),
                        str(tmp_path / "few.jsonl"), "--id-field", "id", "--out", str(out),
                        "--quiet"], capture_output=True, text=True)  # fmt: skip
    assert r.stdout.split() == ["0", "False", "False"], r.stderr
    frame = idx.query(probes, [f"p{i}" for i in range(len(probes))])
    assert (frame["match_id"] != "").sum() >= 3
    assert frame["estimate"].dropna().map(lambda x: len(repr(x)) > 12).any()  # 10 digits in JSON
    write_table(frame, str(tmp_path / f"want{suffix}"))
    want = (tmp_path / f"want{suffix}").read_text(encoding="utf-8")
    if suffix == ".csv":
        assert out.read_text(encoding="utf-8") == want
    else:  # the same records (pandas writes "/" as "\\/", the json module as it is)
        lines = out.read_text(encoding="utf-8").splitlines()
        assert [json.loads(x) for x in lines] == [json.loads(x) for x in want.splitlines()]


def test_a_long_text_is_signed_in_chunks_as_the_compiled_path_signs_it():
    rng = np.random.default_rng(8)
    long = "".join(rng.choice(list("abcdefghij klmnop"), size=30_000).tolist())
    run = ns.RunSettings()
    assert len(ns.shingles(long)) > 3 * quick.CHUNK
    valid, sig, keys = quick.sign([long, "short one"], run)
    np.testing.assert_array_equal(valid, [True, True])
    want = sign_batch([long, "short one"], run)
    np.testing.assert_array_equal(sig, want[1])
    np.testing.assert_array_equal(keys, want[2])
    assert quick.worth_it([long], run)
    assert not quick.worth_it([long] * 7, run)  # 210,000 characters: the compiled way
    assert not quick.worth_it(["x"] * (quick.QUICK_MAX + 1), run)
    assert not quick.worth_it(["x"], run.replace(sketch="superminhash"))
