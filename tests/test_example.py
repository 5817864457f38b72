"""The generated example corpus: shape, seeds, similarities of copies, pinned output."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pandas as pd
import pytest
from support import char_shingles, jaccard

import nearsim as ns
from nearsim.io.documents import example_corpus


@pytest.fixture(scope="module")
def corpus() -> pd.DataFrame:
    return example_corpus(2000, seed=0)


def test_example_corpus_shape_and_types(corpus):
    assert list(corpus.columns) == ["text", "parent"]
    assert len(corpus) == 2000
    assert isinstance(corpus.index, pd.RangeIndex)
    assert corpus.index.start == 0 and corpus.index.step == 1
    assert corpus["parent"].dtype == np.int64
    assert all(isinstance(t, str) and t == t.strip() and t for t in corpus["text"])


def test_example_corpus_parents_are_earlier_rows(corpus):
    parent = corpus["parent"].to_numpy()
    rows = np.arange(len(corpus))
    assert parent[0] == -1
    assert np.all((parent == -1) | ((parent >= 0) & (parent < rows)))
    share = float(np.mean(parent >= 0))
    assert 0.28 <= share <= 0.42
    copies = parent >= 0
    assert np.any(parent[parent[copies]] >= 0)  # copies of copies exist


def test_example_corpus_is_deterministic_and_seeded():
    a = example_corpus(300, seed=7)
    b = example_corpus(300, seed=7)
    c = example_corpus(300, seed=8)
    pd.testing.assert_frame_equal(a, b)
    assert not a["text"].equals(c["text"])
    # a larger corpus is not a prefix of another seed's
    assert example_corpus(300, seed=np.int64(7))["text"].tolist() == a["text"].tolist()


def test_example_corpus_texts_are_short_news_items(corpus):
    lengths = corpus["text"].str.len()
    assert lengths.between(100, 300).mean() >= 0.95
    assert lengths.min() >= 60 and lengths.max() <= 400
    joined = " ".join(corpus["text"]).lower()
    assert "lorem" not in joined and "ipsum" not in joined
    originals = corpus.loc[corpus["parent"] < 0, "text"]
    assert originals.nunique() == len(originals)
    words = set(" ".join(originals).split())
    assert len(words) > 1500


def test_example_corpus_copies_spread_over_similarities(corpus):
    shingles = [char_shingles(t) for t in corpus["text"]]
    copies = np.flatnonzero(corpus["parent"].to_numpy() >= 0)
    j = np.array([jaccard(shingles[i], shingles[corpus["parent"][i]]) for i in copies])
    assert np.mean(j >= 0.3) >= 0.9
    assert 0.05 <= np.mean(j == 1.0) <= 0.3  # some exact duplicates
    assert 0.5 <= np.median(j) <= 0.85
    for low in np.arange(0.3, 1.0, 0.1):  # every tenth of the range 0.3..1 is used
        assert np.mean((j >= low) & (j < low + 0.1)) >= 0.04, low


def test_example_corpus_unrelated_items_are_dissimilar(corpus):
    originals = np.flatnonzero(corpus["parent"].to_numpy() < 0)
    rng = np.random.default_rng(0)
    pairs = rng.choice(originals, size=(3000, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    shingles = {i: char_shingles(corpus["text"][i]) for i in np.unique(pairs)}
    j = np.array([jaccard(shingles[a], shingles[b]) for a, b in pairs])
    assert np.mean(j < 0.2) >= 0.95
    assert np.median(j) < 0.08


def test_example_corpus_size_limits():
    assert len(example_corpus(300)) == 300
    big = example_corpus(20_000, seed=3)
    assert len(big) == 20_000 and big["parent"].max() < 20_000


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n": 299}, r"n=299 .*300 to 20,000"),
        ({"n": 20_001}, r"n=20001 .*300 to 20,000"),
        ({"n": 0}, r"300 to 20,000"),
        ({"n": -5}, r"300 to 20,000"),
        ({"n": 500.0}, r"n=500.0 is not accepted; accepted: an integer from 300 to 20,000"),
        ({"n": "500"}, r"n='500' is not accepted; accepted: an integer"),
        ({"n": True}, r"n=True is not accepted; accepted: an integer"),
        ({"n": None}, r"n=None is not accepted; accepted: an integer"),
        ({"seed": -1}, r"seed=-1 .*≥ 0"),
        ({"seed": 1.5}, r"seed=1.5 is not accepted; accepted: an integer ≥ 0"),
        ({"seed": False}, r"seed=False is not accepted; accepted: an integer ≥ 0"),
    ],
)
def test_example_corpus_rejects(kwargs, match):
    with pytest.raises(ValueError, match=match):
        example_corpus(**kwargs)


# Digests of example_corpus's output (texts and parents, as JSON) taken before the
# generator moved from nearsim/documents.py to nearsim/example.py and its word lists to
# package data: the move must not change a single text.
PINNED = {
    (300, 0): "21d312e1cc60ed182cb28fd40b38deef92b631db3dd890b4efed7f9fbc39c82f",
    (2000, 0): "e940b99d3fb226b6f3ed6ad07df14ab77718d0719580b07de6f16b36beb6be97",
    (1234, 7): "d29205a43239ae814c1886e6bdf1d510aef6f2b9796cafa8b46acf5b2bb3ab78",
    (20000, 3): "4b8336d0ef5c701366bb709023ac84df93e0d5ce7f6fbec2230451ed37dcb2eb",
    (500, 123456789): "03543382f21c5798acb053391b444a8e01af247f6f62cb32748dab59835f566b",
}


@pytest.mark.parametrize(("n", "seed"), list(PINNED))
def test_example_corpus_output_is_pinned(n, seed):
    df = ns.example_corpus(n, seed)
    payload = json.dumps([df["text"].tolist(), df["parent"].tolist()], ensure_ascii=False)
    assert hashlib.sha256(payload.encode()).hexdigest() == PINNED[(n, seed)]


def test_example_words_are_package_data():
    from importlib import resources

    words = json.loads(
        resources.files("nearsim").joinpath("data/example_words.json").read_text("utf-8")
    )
    assert {"first", "cities", "leads", "follows"} <= set(words)
    assert all(isinstance(w, str) for values in words.values() for w in values)
    assert ns.example_corpus is example_corpus


def test_uncapped_generator_is_example_corpus_below_its_chunk():
    from nearsim.io.example import _generate

    pd.testing.assert_frame_equal(_generate(1234, 7), example_corpus(1234, seed=7))


def test_uncapped_generator_in_chunks_keeps_the_corpus_shape():
    """Several chunks of originals (the benchmark's million documents, in miniature): the
    copies still pick parents among all earlier rows, across chunk boundaries, and every
    row has a text."""
    from nearsim.io.example import _generate

    df = _generate(3000, 5, chunk=700)
    parent = df["parent"].to_numpy()
    rows = np.arange(len(df))
    assert len(df) == 3000 and parent[0] == -1
    assert np.all((parent == -1) | ((parent >= 0) & (parent < rows)))
    assert 0.28 <= float(np.mean(parent >= 0)) <= 0.42
    assert np.any((parent >= 0) & (parent // 700 < rows // 700))  # across a boundary
    assert df["text"].str.len().min() >= 60
    originals = df.loc[parent < 0, "text"]
    assert originals.nunique() == len(originals)
    assert not df["text"].equals(_generate(3000, 5)["text"])  # the chunk changes draws
