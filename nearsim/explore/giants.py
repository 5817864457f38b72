"""Giant and chained clusters, named: what the Clusters and Threshold views warn about.

Clusters are transitive, so a chain of small edits joins documents whose ends are not
similar, and a templated family (manual pages from one generator, pages of one site) can
become one cluster holding most of a run's removals. Both are found from each member's
similarity to the document kept in its place (the cluster's first, as
:func:`nearsim.clustering.check_against_kept` compares them) and from each cluster's share
of the removals; the member check (``nearsim dedup --cluster-check``) is the remedy.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from nearsim.clustering import check_against_kept, cluster_table, clusters
from nearsim.utils.validation import check_n, check_threshold

CHAIN_GAP = 0.2
"""A cluster whose least similar member is more than this below t is called a chain: its
ends are not near duplicates of each other although every link is."""
GIANT_SHARE = 0.25
"""A cluster holding at least this share of the removals is called giant ..."""
GIANT_MIN_REMOVED = 20
"""... when the run removes at least this many documents (two removals of three are not a
giant cluster)."""


class ClusterWarnings(NamedTuple):
    """What :func:`cluster_warnings` returns.

    Attributes
    ----------
    removed : int
        Documents a run removes: all but one of every cluster.
    table : pandas.DataFrame
        One row per cluster of two or more, largest first: cluster (int64), size (int64),
        first (int64, the document kept), least_similarity (float64, the least similarity
        of a member to the first), least_member (int64, that member), removed_share
        (float64, (size − 1) / removed), chain (bool), giant (bool).
    """

    removed: int
    table: pd.DataFrame

    @property
    def chains(self) -> pd.DataFrame:
        """Clusters whose least similar member is far below t."""
        return self.table[self.table["chain"]]

    @property
    def giants(self) -> pd.DataFrame:
        """Clusters holding a large share of the removals."""
        return self.table[self.table["giant"]]


def cluster_warnings(n: int, pairs, similarity, threshold: float) -> ClusterWarnings:
    """Name the chained and the giant clusters of accepted pairs.

    Parameters
    ----------
    n : int
        Number of documents.
    pairs : ndarray of int64, shape (m, 2)
        Accepted pairs, as for :func:`nearsim.clusters`.
    similarity : callable
        ``similarity(kept, member)``, two int64 arrays of equal length to a float64 array
        (exact Jaccard in the explorer), as for :func:`check_against_kept`.
    threshold : float
        The threshold t in (0, 1].

    Returns
    -------
    ClusterWarnings
        A cluster is a chain when its least similar member is below t − :data:`CHAIN_GAP`,
        and giant when it holds at least :data:`GIANT_SHARE` of the removals of a run that
        removes at least :data:`GIANT_MIN_REMOVED` documents.
    """
    n = check_n(n, "n")
    t = check_threshold(threshold)
    labels = clusters(n, pairs)
    sim = check_against_kept(n, pairs, similarity, None, labels=labels).similarity
    table = cluster_table(labels).drop(columns="members")
    sizes = table["size"].to_numpy(np.int64)
    removed = int((sizes - 1).sum())
    # each label's least similar member: sort by (label, similarity), take each run's first
    order = np.lexsort((sim, labels))
    starts = np.flatnonzero(np.r_[True, labels[order][1:] != labels[order][:-1]])
    least_member = np.empty(int(labels.max()) + 1 if n else 0, dtype=np.int64)
    least_member[labels[order[starts]]] = order[starts]
    cl = table["cluster"].to_numpy(np.int64)
    table["least_member"] = least_member[cl]
    table["least_similarity"] = sim[table["least_member"].to_numpy(np.int64)]
    table["removed_share"] = (sizes - 1) / removed if removed else np.zeros(len(table))
    table["chain"] = table["least_similarity"].to_numpy() < t - CHAIN_GAP
    table["giant"] = (table["removed_share"].to_numpy() >= GIANT_SHARE) & (
        removed >= GIANT_MIN_REMOVED
    )
    cols = ["cluster", "size", "first", "least_similarity", "least_member", "removed_share",
            "chain", "giant"]  # fmt: skip
    return ClusterWarnings(removed, table[cols].reset_index(drop=True))
