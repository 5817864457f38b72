"""Removal rate against threshold: how much a run would remove at each threshold.

A run keeps one document per cluster and removes the rest, where clusters are the
connected components of the pairs with exact Jaccard ≥ t (:func:`nearsim.clusters`). So
a user can choose t by a target removal rate ("remove about 8 %") as well as by precision.

All thresholds come from one exact join at the lowest of them. The components at any
t ≥ that threshold are the components of the *maximum spanning forest* of the pairs
(weighted by Jaccard) restricted to its edges with J ≥ t — the single-linkage property: a
pair with J ≥ t that is not in the forest joins two documents the forest already links by
edges of J ≥ t. The forest (scipy's ``minimum_spanning_tree`` on each pair's rank by
descending J) has at most n − 1 edges, so the clusters at each t are found on it quickly.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from nearsim.clustering import clusters
from nearsim.utils.validation import check_choice, check_n, check_threshold, shown
from nearsim.utils.validation_arrays import (
    check_labels,
    check_pair_frame,
    check_pairs,
    check_similarity,
    check_thresholds,
)

DEFAULT_GRID = np.arange(50, 100) / 100
"""Thresholds 0.50, 0.51, … 0.99: the range where removal rates are usually chosen (an
exact join below 0.5 gets slow on large corpora)."""


def _forest(n: int, pairs: np.ndarray, jac: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Edges (k, 2) and Jaccard (k,) of a maximum spanning forest of the pairs."""
    from scipy.sparse import coo_matrix  # imported here, as in clusters.py
    from scipy.sparse.csgraph import minimum_spanning_tree

    if pairs.shape[0] == 0:
        return np.empty((0, 2), dtype=np.int64), np.empty(0, dtype=np.float64)
    # weight = 1 + rank by descending Jaccard: exact in float, never 0 (which a sparse
    # matrix would drop), and the minimum spanning forest on it is a maximum one on J
    order = np.argsort(-jac, kind="stable")
    weight = np.empty(jac.shape[0], dtype=np.float64)
    weight[order] = np.arange(1, jac.shape[0] + 1, dtype=np.float64)
    graph = coo_matrix((weight, (pairs[:, 0], pairs[:, 1])), shape=(n, n)).tocsr()
    tree = minimum_spanning_tree(graph).tocoo()
    edges = np.stack([tree.row, tree.col], axis=1).astype(np.int64)
    return edges, jac[order[tree.data.astype(np.int64) - 1]]


def removal_curve(n, pairs: pd.DataFrame, thresholds=None, *, join_threshold) -> pd.DataFrame:
    """Share of documents removed and number of clusters, for every threshold on a grid.

    Parameters
    ----------
    n : int
        Number of documents (all of them; documents in no pair are kept, alone).
    pairs : pandas.DataFrame
        Columns i, j, jaccard: every pair with exact Jaccard ≥ ``join_threshold``, as
        :func:`nearsim.exact_pairs` returns (0 ≤ i < j < n, each pair once).
    thresholds : array_like of float, shape (g,), optional
        Strictly increasing, each ≥ ``join_threshold`` and ≤ 1. Default: the values of
        :data:`DEFAULT_GRID` at or above ``join_threshold``.
    join_threshold : float
        The threshold the pairs were computed at, in (0, 1]. Below it pairs are missing,
        so no grid value may be lower.

    Returns
    -------
    pandas.DataFrame
        One row per threshold t: threshold (float64), pairs (int64: pairs with J ≥ t),
        clusters (int64: clusters of two or more documents), removed (int64: documents
        removed, all but one per cluster), removed_share (float64: removed / n; NaN when
        n = 0), largest (int64: documents in the largest cluster; 0 with no cluster).

    Examples
    --------
    >>> pairs = pd.DataFrame({"i": [0, 1, 3], "j": [1, 2, 4], "jaccard": [0.9, 0.7, 0.8]})
    >>> curve = removal_curve(6, pairs, [0.7, 0.8, 0.9], join_threshold=0.7)
    >>> curve[["threshold", "clusters", "removed", "largest"]].values.tolist()
    [[0.7, 2.0, 3.0, 3.0], [0.8, 2.0, 2.0, 2.0], [0.9, 1.0, 1.0, 2.0]]
    """
    n = check_n(n)
    low = check_threshold(join_threshold, "join_threshold")
    check_pair_frame(pairs, "pairs", columns=("i", "j", "jaccard"), n=n)
    arr = check_pairs(pairs, "pairs", n=n)
    jac = check_similarity(pairs["jaccard"].to_numpy(), "pairs['jaccard']").reshape(-1)
    if thresholds is None:
        grid = DEFAULT_GRID[DEFAULT_GRID >= low]
        grid = grid if grid.size else np.array([low])
    else:
        grid = check_thresholds(thresholds)
        if grid[0] < low:
            raise ValueError(
                f"thresholds={grid[0]:g} … is not accepted; accepted: thresholds ≥ "
                f"join_threshold={low:g} (the pairs below it were not computed)"
            )
    # Only the documents in some pair can join a cluster: renumber them 0 .. k − 1, so
    # that the work is O(pairs) whatever n is (the others are alone at every threshold).
    nodes, local = np.unique(arr, return_inverse=True)
    k = nodes.shape[0]
    edges, weights = _forest(k, local.reshape(-1, 2), jac)
    sorted_jac = np.sort(jac)
    rows = []
    for t in grid.tolist():
        labels = clusters(k, edges[weights >= t])
        sizes = np.bincount(labels, minlength=1) if k else np.zeros(0, dtype=np.int64)
        big = sizes[sizes >= 2]
        rows.append(
            (
                t,
                int(sorted_jac.shape[0] - np.searchsorted(sorted_jac, t, side="left")),
                int(big.shape[0]),
                int(k - sizes.shape[0]),
                int(big.max()) if big.size else 0,
            )
        )
    table = pd.DataFrame(rows, columns=["threshold", "pairs", "clusters", "removed", "largest"])
    table = table.astype({"threshold": np.float64} | {c: np.int64 for c in table.columns[1:]})
    share = table["removed"] / n if n else np.nan
    table.insert(4, "removed_share", share)
    return table.astype({"removed_share": np.float64})


def removal_rates(sets, thresholds=None, *, method: str = "auto") -> pd.DataFrame:
    """:func:`removal_curve` with the exact join run here, at the lowest threshold.

    Parameters
    ----------
    sets : sequence of sequences of str, length n, or FlatShingles
        Documents as shingle lists, as for :func:`nearsim.exact_pairs`.
    thresholds : array_like of float, shape (g,), optional
        Strictly increasing, in (0, 1]; default :data:`DEFAULT_GRID`.
    method : str
        The join's method: "auto", "brute" or "ppjoin".

    Returns
    -------
    pandas.DataFrame
        As :func:`removal_curve`.

    Examples
    --------
    >>> sets = [["a", "b", "c", "d"], ["a", "b", "c", "e"], ["x", "y"], ["x", "y"]]
    >>> removal_rates(sets, [0.5, 0.7])["removed"].tolist()
    [2, 1]
    """
    from nearsim.join.exact import exact_pairs
    from nearsim.join.tokens import as_token_sets

    grid = DEFAULT_GRID if thresholds is None else check_thresholds(thresholds)
    method = check_choice(method, "method", ("auto", "brute", "ppjoin"))
    tokens = as_token_sets(sets)  # once: a generator of documents is read once
    pairs = exact_pairs(tokens, float(grid[0]), method=method)
    return removal_curve(tokens.n, pairs, grid, join_threshold=float(grid[0]))


GROUP_LOSS = 0.5
"""A group losing more than this share of its documents is named."""


def removal_by_group(labels, groups) -> pd.DataFrame:
    """Documents and removals per group (source, site, crawl) for a run's clusters.

    A run keeps each cluster's first document (its smallest row) and every document alone,
    and removes the rest. When one group loses most of its documents, something systematic
    is at work (a templated family, a fetcher that stored the same page again).

    Parameters
    ----------
    labels : array_like of int, shape (n,)
        Cluster labels (:func:`nearsim.clusters`).
    groups : sequence of str, length n
        Each document's group.

    Returns
    -------
    pandas.DataFrame
        One row per group, the largest share removed first (then the group): group (str),
        documents (int64), removed (int64), share (float64, removed / documents),
        most_lost (bool, share > :data:`GROUP_LOSS`).
    """
    lab = check_labels(labels)
    if not isinstance(groups, Sequence) or isinstance(groups, str) or len(groups) != lab.size:
        raise ValueError(
            f"groups={shown(groups)} is not accepted; accepted: a sequence of one str per "
            f"document ({lab.size:,})"
        )
    removed = np.ones(lab.size, dtype=bool)
    if lab.size:
        removed[np.unique(lab, return_index=True)[1]] = False  # each cluster's first row
    names, inverse = np.unique(np.asarray(groups, dtype=object).astype(str), return_inverse=True)
    docs = np.bincount(inverse, minlength=names.size).astype(np.int64)
    gone = np.bincount(inverse, weights=removed, minlength=names.size).astype(np.int64)
    share = gone / np.maximum(docs, 1)
    out = pd.DataFrame(
        {
            "group": names,
            "documents": docs,
            "removed": gone,
            "share": share,
            "most_lost": share > GROUP_LOSS,
        }
    )
    return out.sort_values(["share", "group"], ascending=[False, True], kind="stable").reset_index(
        drop=True
    )
