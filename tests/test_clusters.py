"""Clusters: connected components with friendly labels, and the check against the first."""

from __future__ import annotations

from collections import deque

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import jaccard

import nearsim as ns
from nearsim.clustering import ClusterCheck, check_clusters, cluster_table, clusters
from nearsim.hashing import text_shingles
from nearsim.join.tokens import TokenSets
from nearsim.shingling import shingles

HYP = settings(max_examples=80, deadline=None, derandomize=True)


def bfs_components(n, pairs):
    """Reference: components by breadth-first search, numbered by smallest member."""
    adj = [[] for _ in range(n)]
    for a, b in pairs:
        adj[a].append(b)
        adj[b].append(a)
    label = [-1] * n
    nxt = 0
    for start in range(n):
        if label[start] >= 0:
            continue
        label[start] = nxt
        queue = deque([start])
        while queue:
            u = queue.popleft()
            for v in adj[u]:
                if label[v] < 0:
                    label[v] = nxt
                    queue.append(v)
        nxt += 1
    return label


pair_lists = st.integers(0, 40).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=60)
        if n
        else st.just([]),
    )
)


@HYP
@given(pair_lists, st.randoms(use_true_random=False))
def test_clusters_equal_bfs_and_ignore_pair_order(case, rnd):
    n, pairs = case
    arr = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    labels = clusters(n, arr)
    assert labels.dtype == np.int64 and labels.shape == (n,)
    assert labels.tolist() == bfs_components(n, pairs)
    # The same pairs shuffled, flipped and repeated give the same labels.
    shuffled = [(b, a) if rnd.random() < 0.5 else (a, b) for a, b in pairs] * 2
    rnd.shuffle(shuffled)
    np.testing.assert_array_equal(clusters(n, np.array(shuffled).reshape(-1, 2)), labels)


@HYP
@given(pair_lists)
def test_labels_count_up_by_smallest_member(case):
    n, pairs = case
    labels = clusters(n, np.array(pairs, dtype=np.int64).reshape(-1, 2)).tolist()
    seen = -1
    for doc, lab in enumerate(labels):
        assert lab <= seen + 1  # a new cluster starts at its smallest member
        assert lab <= doc
        seen = max(seen, lab)
    if n:
        assert labels[0] == 0


def test_clusters_small_cases_and_inputs():
    assert clusters(0, []).tolist() == []
    assert clusters(3, []).tolist() == [0, 1, 2]
    assert clusters(3, np.empty((0, 2), dtype=np.int64)).tolist() == [0, 1, 2]
    assert clusters(5, [[3, 4], [1, 3]]).tolist() == [0, 1, 2, 1, 1]
    assert clusters(4, [[2, 2]]).tolist() == [0, 1, 2, 3]  # a self-pair is harmless
    assert clusters(np.int64(4), np.array([[0, 3]], dtype=np.uint32)).tolist() == [0, 1, 2, 0]
    frame = pd.DataFrame({"i": [0, 2], "j": [1, 3], "distance": [1, 2]})
    assert clusters(5, frame).tolist() == [0, 0, 1, 1, 2]


@pytest.mark.parametrize(
    ("n", "pairs", "match"),
    [
        (-1, [], "n=-1"),
        (2.5, [], "n=2.5"),
        (True, [], "n=True"),
        ("3", [], "n='3'"),
        (3, [1, 2], r"shape \(m, 2\)"),
        (3, [[0, 1, 2]], r"shape \(m, 2\)"),
        (3, [[0.0, 1.0]], "integer"),
        (3, [[0, 3]], r"pairs=\[\[0, 3\]\] is not accepted; accepted: .*0 ≤ i, j < 3"),
        (3, [[-1, 0]], r"pairs=\[\[-1, 0\]\] is not accepted"),
        (0, [[0, 1]], "0 ≤ i, j < 0"),
        (3, pd.DataFrame({"a": [0], "b": [1]}), "columns i and j"),
        (2**64, [], "n=18446744073709551616 is not accepted; accepted: an integer from 0"),
        (2**31, [], "n=2147483648 is not accepted"),
        (3, np.array([[0, 2**63]], dtype=np.uint64), "is not accepted"),
    ],
)
def test_clusters_bad_input(n, pairs, match):
    with pytest.raises(ValueError, match=match):
        clusters(n, pairs)


def test_cluster_table():
    labels = clusters(9, [[5, 6], [1, 3], [3, 5], [0, 2], [7, 8]])
    table = cluster_table(labels)
    assert list(table.columns) == ["cluster", "size", "first", "members"]
    assert isinstance(table.index, pd.RangeIndex)
    assert table["size"].tolist() == [4, 2, 2]
    assert table["members"].tolist() == [[1, 3, 5, 6], [0, 2], [7, 8]]
    assert table["first"].tolist() == [1, 0, 7]
    assert table["cluster"].tolist() == [labels[1], labels[0], labels[7]]
    empty = cluster_table(clusters(3, []))
    assert len(empty) == 0 and empty["size"].dtype == np.int64
    with pytest.raises(ValueError, match="labels=.* accepted: a 1-D array of integers"):
        cluster_table(np.zeros((2, 2), dtype=np.int64))


def chain_corpus(seed=0, steps=5, edit=6, words=60):
    """A → B → C → … each a few words edited from the last; ends share little."""
    rng = np.random.default_rng(seed)
    letters = list("abcdefghijklmnopqrstuvwxyz")

    def word():
        return "".join(rng.choice(letters, size=int(rng.integers(4, 9))))

    doc = [word() for _ in range(words)]
    chain = [" ".join(doc)]
    for _ in range(steps - 1):
        doc = list(doc)
        for q in rng.choice(words, size=edit, replace=False):
            doc[q] = word()
        chain.append(" ".join(doc))
    return chain


def test_check_clusters_detaches_the_far_end_of_a_chain():
    t = 0.7
    chain = chain_corpus()
    others = chain_corpus(seed=1, steps=2, edit=1)  # a tight pair elsewhere
    texts = ["unrelated document number one", *chain, "another lone one", *others]
    sets = [shingles(x) for x in texts]
    n = len(texts)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if jaccard(sets[i], sets[j]) >= t]
    labels = clusters(n, pairs)
    members = list(range(1, 1 + len(chain)))
    assert len({labels[m] for m in members}) == 1  # the chain is one cluster
    to_first = {m: jaccard(sets[1], sets[m]) for m in members}
    far = [m for m in members if to_first[m] < t]
    assert far and far[-1] == members[-1]  # the ends differ
    assert all(to_first[m] >= t for m in members[:2])

    result = check_clusters(labels, sets, t)
    assert isinstance(result, ClusterCheck)
    table, new = result
    assert list(table.columns) == ["doc", "cluster", "jaccard_to_first", "kept"]
    assert table["doc"].dtype == np.int64 and table["kept"].dtype == bool
    chain_rows = table[table["cluster"] == labels[1]].set_index("doc")
    assert chain_rows.index.tolist() == members
    for m in members:
        assert chain_rows.loc[m, "jaccard_to_first"] == pytest.approx(to_first[m])
        assert chain_rows.loc[m, "kept"] == (to_first[m] >= t)
    # The first document is its own reference.
    assert chain_rows.loc[1, "jaccard_to_first"] == 1.0
    # Detached members are alone; the kept ones stay with the first; the other cluster stays.
    kept = [m for m in members if m not in far]
    assert len({new[m] for m in kept}) == 1
    for m in far:
        assert (new == new[m]).sum() == 1
    o = len(texts) - 2
    assert new[o] == new[o + 1]
    # Labels are renumbered by smallest member, as clusters() does.
    np.testing.assert_array_equal(
        new, clusters(n, [(a, b) for a in kept for b in kept if a < b] + [(o, o + 1)])
    )
    # The same from FlatShingles and from prepared tokens.
    flat = text_shingles(texts)
    for form in (flat, TokenSets.from_shingles(flat)):
        flat_table, flat_new = check_clusters(labels, form, t)
        pd.testing.assert_frame_equal(flat_table, table)
        np.testing.assert_array_equal(flat_new, new)


def test_check_clusters_nothing_to_check():
    table, new = check_clusters(np.arange(3), [["a"], ["b"], ["c"]], 0.5)
    assert len(table) == 0 and list(table.columns) == ["doc", "cluster", "jaccard_to_first", "kept"]
    assert new.tolist() == [0, 1, 2]
    # Empty documents: Jaccard 0, detached.
    table, new = check_clusters([0, 0], [[], []], 0.5)
    assert table["kept"].tolist() == [True, False] and new.tolist() == [0, 1]


@pytest.mark.parametrize(
    ("labels", "sets", "threshold", "match"),
    [
        ([0, 0], [["a"]], 0.5, r"labels=\[0, 0\] is not accepted; .* of length 1"),
        ([0, 0], "ab", 0.5, "sets='ab' is not accepted; accepted: a list of shingle lists"),
        ([0, 0], [["a"], ["b"]], 0, "threshold=0 is not accepted"),
        ([0, 0], [["a"], ["b"]], 1.5, "threshold=1.5 is not accepted"),
        ([0, 0], [["a"], ["b"]], "0.5", "threshold='0.5' is not accepted"),
        ([0.5, 0], [["a"], ["b"]], 0.5, "accepted: a 1-D array of integers"),
        ([-1, 0], [["a"], ["b"]], 0.5, "integers ≥ 0"),
        ([[0, 0]], [["a"], ["b"]], 0.5, "a 1-D array"),
        ([0, 0], ["ab", ["b"]], 0.5, r"sets\[0\]='ab' is not accepted"),
        ([0, 0], [["a"], [1]], 0.5, r"sets\[1\] holds 1 of type int"),
    ],
)
def test_check_clusters_bad_input(labels, sets, threshold, match):
    with pytest.raises(ValueError, match=match):
        check_clusters(labels, sets, threshold)


# -- escapes the garbage test (tests/test_garbage.py) found ------------------------------
def test_few_pairs_among_many_documents_cost_the_labels_only():
    """The graph is built on the documents in some pair: at n = 10**9 the old n × n graph
    asked for 3.7 GB before the labels (MemoryError under the garbage test's cap)."""
    n = 10**7
    labels = clusters(n, [[5, n - 1], [3, 5]])
    assert labels[[0, 3, 4, 5, 6, n - 1]].tolist() == [0, 3, 4, 3, 5, 3]
    assert labels[-2] == n - 3 and labels.dtype == np.int64


# -- members against their kept document (nearsim dedup --cluster-check) ---------------------
@given(
    st.lists(st.frozensets(st.integers(0, 6), min_size=1, max_size=5), min_size=1, max_size=14),
    st.floats(0.2, 0.9),
    st.booleans(),
)
@settings(max_examples=200, deadline=None)
def test_members_are_checked_against_their_kept_document(sets, threshold, check):
    """Against a brute force that goes cluster by cluster: every pair of overlapping sets is
    an accepted pair; members below t leave, are grouped by the pairs among them, again."""
    from garbage_checks import brute_kept_check, jaccard_of

    n = len(sets)
    pairs = np.array([(i, j) for i in range(n) for j in range(i + 1, n) if sets[i] & sets[j]],
                     dtype=np.int64).reshape(-1, 2)  # fmt: skip
    similarity = jaccard_of([sorted(s) for s in sets])
    t = threshold if check else None
    got = ns.check_against_kept(n, pairs, similarity, t)
    labels, sim, left = brute_kept_check(n, pairs, similarity, t)
    assert got.labels.tolist() == labels
    np.testing.assert_allclose(got.similarity, sim, rtol=0, atol=1e-12)
    assert got.split_off.tolist() == left
    if check:  # the promise: no member below t against the document kept in its place
        kept = np.array([labels.index(lab) for lab in labels])
        for d in range(n):
            if kept[d] != d:
                assert similarity(np.array([kept[d]]), np.array([d]))[0] >= threshold


def test_a_chain_splits_into_runs_within_the_threshold():
    sets = [set(range(i, i + 10)) for i in range(30)]  # each one element from the next

    def similarity(a, b):
        return np.array(
            [len(sets[i] & sets[j]) / len(sets[i] | sets[j]) for i, j in zip(a, b, strict=True)]
        )

    pairs = np.array([(i, i + 1) for i in range(29)])
    plain = ns.check_against_kept(30, pairs, similarity)
    assert plain.labels.tolist() == [0] * 30 and plain.similarity.min() == 0.0
    checked = ns.check_against_kept(30, pairs, similarity, 0.5)
    # within Jaccard 0.5 of i: i + 1 .. i + 3 (9/11, 8/12, 7/13); i + 4 is 6/14
    assert checked.labels.tolist() == [k // 4 for k in range(30)]
    assert checked.split_off.sum() == 26 and checked.rounds == 8
