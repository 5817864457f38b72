"""Clusters: transitive groups of accepted pairs, and a check against each cluster's first.

Accepted pairs (LSH candidates that passed the estimate, exact pairs, SimHash pairs) link
documents; a cluster is a connected component of that graph, found with
``scipy.sparse.csgraph.connected_components``.

Labels are friendly and deterministic: clusters are numbered 0, 1, 2, … in the order of
their smallest member, so document 0 is always in cluster 0, and a document's label never
exceeds its own index. The same pairs in any order give the same labels.

Clusters are transitive: a chain of small edits A → B → C → D puts A and D in one cluster
even when they have little in common. :func:`check_clusters` compares every member with
its cluster's first document (smallest index) by exact Jaccard and detaches those below the
threshold.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from nearsim.utils.arrays import unique_int
from nearsim.utils.validation import check_callable, check_n, check_threshold
from nearsim.utils.validation_arrays import check_labels, check_pairs

if TYPE_CHECKING:  # imported by the functions that use them: nearsim dedup loads neither
    import pandas as pd


def _friendly(labels: np.ndarray) -> np.ndarray:
    """Renumber labels so clusters count up in the order of their smallest member."""
    n = labels.shape[0]
    if n == 0:
        return labels.astype(np.int64)
    order = np.argsort(labels, kind="stable")  # members of a label in index order
    sl = labels[order]
    starts = np.flatnonzero(np.concatenate([[True], sl[1:] != sl[:-1]]))
    first = order[starts]  # smallest member of each label
    rank = np.empty(first.shape[0], dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.shape[0], dtype=np.int64)
    sizes = np.diff(np.append(starts, n))
    out = np.empty(n, dtype=np.int64)
    out[order] = np.repeat(rank, sizes)
    return out


def _component_roots(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The documents in some pair (ascending) and the smallest member of each one's
    component; the graph is built on those documents alone, so the work is O(pairs)."""
    # imported here: scipy.sparse and csgraph cost 0.5 s of every start-up, the explorer's too
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    nodes, local = np.unique(arr, return_inverse=True)
    local = local.reshape(-1, 2)
    k = nodes.shape[0]
    data = np.ones(local.shape[0], dtype=np.int8)
    graph = coo_matrix((data, (local[:, 0], local[:, 1])), shape=(k, k)).tocsr()
    _, comp = connected_components(graph, directed=True, connection="weak")
    # nodes ascend, so a component's first occurrence in ``comp`` is its smallest member
    _, first = np.unique(comp, return_index=True)
    return nodes, nodes[first[comp]]


def clusters(n: int, pairs) -> np.ndarray:
    """Cluster label of every document: the connected components of the pairs.

    Parameters
    ----------
    n : int
        Number of documents (>= 0).
    pairs : array_like of int, shape (m, 2), or DataFrame with columns i, j
        Accepted pairs; each row links two documents 0 <= i, j < n (order within a row
        and repeats do not matter; a document paired with itself is harmless).

    Returns
    -------
    ndarray of int64, shape (n,)
        Labels 0 .. c − 1 numbered in the order of each cluster's smallest member: document
        0 has label 0, and the next document not in cluster 0 starts cluster 1, and so on.
        A document in no pair is alone in its cluster.

    Examples
    --------
    >>> clusters(5, [[3, 4], [1, 3]]).tolist()
    [0, 1, 2, 1, 1]
    """
    n = check_n(n)
    arr = check_pairs(pairs, "pairs", n=n, ordered=False, unique=False, distinct=False)
    return _labels(n, *_component_roots(arr))


def _labels(n: int, nodes: np.ndarray, roots: np.ndarray) -> np.ndarray:
    """:func:`clusters`'s labels from the documents in some pair and their components'
    smallest members."""
    # A cluster starts at its smallest member (a document in no pair is one): a label is
    # the number of starts before it. 8 bytes per document (the labels), however few the
    # pairs; the work on the pairs is O(pairs).
    labels = np.ones(n, dtype=np.int64)
    labels[nodes[roots != nodes]] = 0
    np.cumsum(labels, out=labels)
    labels -= 1
    labels[nodes] = labels[roots]
    return labels


def cluster_table(labels) -> pd.DataFrame:
    """Clusters with more than one member, largest first.

    Parameters
    ----------
    labels : array_like of int, shape (n,)
        A label per document, as :func:`clusters` returns.

    Returns
    -------
    pandas.DataFrame
        One row per cluster of size > 1, sorted by size descending, then by label; a
        default RangeIndex. Columns: cluster (int64, the label), size (int64), first
        (int64, smallest member), members (list of int, ascending).
    """
    import pandas as pd

    lab = check_labels(labels)
    cols = {"cluster": [], "size": [], "first": [], "members": []}
    if lab.size:
        order = np.argsort(lab, kind="stable")
        sl = lab[order]
        starts = np.flatnonzero(np.concatenate([[True], sl[1:] != sl[:-1]]))
        ends = np.append(starts[1:], lab.size)
        sizes = ends - starts
        big = np.flatnonzero(sizes > 1)
        big = big[np.lexsort((sl[starts[big]], -sizes[big]))]
        cols["cluster"] = sl[starts[big]].tolist()
        cols["size"] = sizes[big].tolist()
        cols["first"] = order[starts[big]].tolist()
        cols["members"] = [order[starts[c] : ends[c]].tolist() for c in big]
    return pd.DataFrame(
        {
            "cluster": np.asarray(cols["cluster"], dtype=np.int64),
            "size": np.asarray(cols["size"], dtype=np.int64),
            "first": np.asarray(cols["first"], dtype=np.int64),
            "members": pd.Series(cols["members"], dtype=object),
        }
    )


class ClusterCheck(NamedTuple):
    """What :func:`check_clusters` returns (unpacks as ``table, labels``).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per member of every cluster with more than one member, by cluster then
        document: doc (int64), cluster (int64, the label before the check),
        jaccard_to_first (float64, exact Jaccard with the cluster's first document; 1.0
        for the first itself), kept (bool).
    labels : ndarray of int64, shape (n,)
        Labels after the check: detached members are alone, numbered again in the order of
        each cluster's smallest member (as :func:`clusters` does).
    """

    table: pd.DataFrame
    labels: np.ndarray


def check_clusters(labels, sets, threshold) -> ClusterCheck:
    """Check every cluster member against the cluster's first document.

    Transitive clusters can join the ends of a chain of small edits. For each cluster with
    more than one member, the first document (smallest index) is the reference; a member
    whose exact Jaccard with it is below ``threshold`` is detached.

    Parameters
    ----------
    labels : array_like of int, shape (n,)
        A label per document (:func:`clusters`).
    sets : sequence of sequences of str, length n, or FlatShingles, or TokenSets
        Each document's shingles (repeats ignored), as for :func:`nearsim.exact_pairs`;
        from a list or FlatShingles only members of clusters with more than one member
        are read.
    threshold : float
        Jaccard threshold, in (0, 1].

    Returns
    -------
    ClusterCheck
        ``(table, labels)``. Detached members become clusters of their own — they are not
        regrouped with each other, since nothing checked says they belong together; run
        the pairs among them again if that is wanted. The kept members stay with their
        first document, which stays in its cluster. Two documents that both have no
        shingles have Jaccard 0 here.

    Examples
    --------
    >>> sets = [["a", "b", "c"], ["a", "b", "c", "d"], ["b", "c", "d", "e"]]
    >>> table, new = check_clusters([0, 0, 0], sets, 0.7)
    >>> table["kept"].tolist(), new.tolist()
    ([True, True, False], [0, 0, 1])
    """
    import pandas as pd

    from nearsim.join.exact import pair_jaccard
    from nearsim.join.tokens import checked_sets, n_documents

    sets = checked_sets(sets)
    lab = check_labels(labels, "labels", n=n_documents(sets))
    t = check_threshold(threshold)
    groups = cluster_table(lab)
    sizes = groups["size"].to_numpy(np.int64)
    docs = np.asarray([d for m in groups["members"] for d in m], dtype=np.int64)
    first = np.repeat(groups["first"].to_numpy(np.int64), sizes)
    cl = np.repeat(groups["cluster"].to_numpy(np.int64), sizes)
    jac = pair_jaccard(sets, np.stack([first, docs], axis=1))
    is_first = docs == first
    jac[is_first] = 1.0
    kept = is_first | (jac >= t)
    table = pd.DataFrame(
        {
            "doc": docs,
            "cluster": cl,
            "jaccard_to_first": jac,
            "kept": kept,
        }
    )
    table = table.sort_values(["cluster", "doc"], kind="stable").reset_index(drop=True)
    new = lab.copy()
    detached = table["doc"].to_numpy()[~table["kept"].to_numpy()]
    if detached.size:
        new[detached] = lab.max() + 1 + np.arange(detached.size, dtype=np.int64)
    return ClusterCheck(table, _friendly(new))


class KeptCheck(NamedTuple):
    """What :func:`check_against_kept` returns.

    Attributes
    ----------
    labels : ndarray of int64, shape (n,)
        Cluster labels after the check, numbered as :func:`clusters` numbers them.
    similarity : ndarray of float64, shape (n,)
        Each document's similarity to its cluster's kept document (its smallest row);
        1.0 for a kept document and for every document alone.
    split_off : ndarray of bool, shape (n,)
        Documents the check took out of the cluster the pairs had joined them to.
    rounds : int
        How many times members were compared with their kept document.
    """

    labels: np.ndarray
    similarity: np.ndarray
    split_off: np.ndarray
    rounds: int


def check_against_kept(n: int, pairs, similarity, threshold=None, *, labels=None) -> KeptCheck:
    """Clusters of accepted pairs, each member compared with the document kept in its place.

    Clusters are transitive: a chain of small edits joins documents whose ends are not
    similar. Here every member of a cluster is compared with the cluster's kept document
    (its smallest row). With a ``threshold``, members below it leave, and the leavers are
    clustered again among themselves — by the pairs whose two documents both left — and
    checked against their new clusters' kept documents, until every member of every
    cluster is within the threshold of its kept document. Members that stay keep their
    cluster even where the leavers were what linked them to it: what counts is their
    similarity to the kept document, not the path.

    Parameters
    ----------
    n : int
        Number of documents.
    pairs : ndarray of int64, shape (m, 2)
        Accepted pairs, as for :func:`clusters`.
    similarity : callable
        ``similarity(kept, member)`` with two int64 arrays of rows of equal length
        returns their similarities (float64 array): the MinHash estimate, or the exact
        Jaccard.
    threshold : float, optional
        The threshold t in (0, 1]. Without it nobody leaves: only the similarities are
        computed.
    labels : ndarray of int64, shape (n,), optional
        ``clusters(n, pairs)`` when already known (computed elsewhere).

    Returns
    -------
    KeptCheck
        ``(labels, similarity, split_off, rounds)``.

    Examples
    --------
    >>> sets = [{1, 2, 3, 4}, {1, 2, 3, 5}, {1, 2, 6, 5}, {1, 7, 6, 5}]  # a chain
    >>> def jac(i, j):
    ...     return np.array([len(sets[a] & sets[b]) / len(sets[a] | sets[b])
    ...                      for a, b in zip(i, j)])
    >>> check = check_against_kept(4, np.array([[0, 1], [1, 2], [2, 3]]), jac, 0.5)
    >>> check.labels.tolist(), check.split_off.tolist()
    ([0, 0, 1, 1], [False, False, True, True])
    """
    n = check_n(n)
    arr = check_pairs(pairs, "pairs", n=n, ordered=False, unique=False, distinct=False)
    similarity = check_callable(similarity, "similarity", "a callable similarity(kept, member)")
    t = None if threshold is None else check_threshold(threshold)
    if labels is None:
        nodes, roots = _component_roots(arr)
        group = _labels(n, nodes, roots)
    else:
        group = check_labels(labels, "labels", n=n).copy()
        nodes = unique_int(arr.ravel())
    sim = np.ones(n, dtype=np.float64)
    left = np.zeros(n, dtype=bool)
    pending = nodes.astype(np.int64)  # the members of clusters of two or more, ascending
    fresh = int(group.max(initial=-1)) + 1
    rounds = 0
    while pending.shape[0]:
        rounds += 1
        labels_now = group[pending]
        order = np.argsort(labels_now, kind="stable")  # rows ascend within each group
        sl = labels_now[order]
        starts = np.flatnonzero(np.concatenate([[True], sl[1:] != sl[:-1]]))
        kept_of = np.empty_like(pending)
        kept_of[order] = np.repeat(pending[order][starts], np.diff(np.append(starts, sl.size)))
        member = pending != kept_of
        s = _similarities(similarity, kept_of[member], pending[member])
        sim[pending[member]] = s
        if t is None:
            break
        leaving = pending[member][s < t]
        if leaving.shape[0] == 0:
            break
        left[leaving] = True
        out = np.zeros(n, dtype=bool)
        out[leaving] = True
        arr = arr[out[arr[:, 0]] & out[arr[:, 1]]]
        # the leavers among themselves: a component of the pairs between two leavers is a
        # new cluster; a leaver in no such pair is alone (kept, similarity 1)
        group[leaving] = fresh + leaving
        sim[leaving] = 1.0
        nodes, roots = _component_roots(arr) if arr.shape[0] else (arr[:0, 0], arr[:0, 0])
        group[nodes] = fresh + roots
        fresh += n
        pending = nodes.astype(np.int64)
    # nobody left: the labels are still clusters()'s own numbering
    return KeptCheck(_friendly(group) if left.any() else group, sim, left, rounds)


def _similarities(similarity, kept: np.ndarray, member: np.ndarray) -> np.ndarray:
    """``similarity(kept, member)``, checked: one float from 0 to 1 for each pair."""
    out = similarity(kept, member)
    try:
        values = np.asarray(out, dtype=np.float64)
    except (TypeError, ValueError):
        values = None
    if values is None or values.shape != kept.shape or not np.all((values >= 0) & (values <= 1)):
        shown = type(out).__name__ if values is None else f"shape {values.shape}"
        raise ValueError(
            f"similarity returned {shown} for {kept.shape[0]} pairs, which is not accepted; "
            "accepted: a similarity(kept, member) returning one value from 0 to 1 per pair"
        )
    return values
