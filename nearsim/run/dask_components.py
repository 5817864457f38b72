"""Connected components of a graph held as a Dask DataFrame of edges: each partition's edges
contracted by union-find, then the large-star / small-star algorithm over the rest.

The algorithm (Kiveris, Lattanzi, Mirrokni, Rastogi, Vassilvitskii, *Connected Components
in MapReduce and Beyond*, SoCC 2014; the one BigCode's Spark deduplication uses). Edges are
pairs (u, v), u ≠ v; N(x) is x's neighbours and m(x) = min(N(x) ∪ {x}).

- **Large-star**: every x links each *larger* neighbour y > x to m(x): edges (y, m(x)).
- **Small-star**: every x links each *smaller* neighbour y < x, and itself, to the smallest
  of them, m: edges (y, m) for y ∈ N(x) ∪ {x}, y ≠ m.

Both keep the components and never raise a node's smallest reachable label. Repeated in
turn they end with every component a star around its smallest node (each other node's one
edge points at it): O(log² n) rounds proven, about log n on the graphs tested here
(``tests/test_dask_components.py``). A round is two shuffles of the edges (grouped by x),
and the test for the end costs none: a round where large-star re-routed no edge and
small-star made none new is a fixed point, and its edges are those stars.

Why this algorithm (rounds measured on the hard graphs; ``tests/test_dask_components.py``):

- *Min-label propagation* (the engine's earlier method) needs as many rounds as the
  longest shortest path: 10⁵ rounds for a chain of 10⁵ documents, each a full shuffle.
- *Union-find per partition, merged in a tree* needs ⌈log₂ P⌉ merges but its last merge
  holds every clustered document in one task — the memory bound moves from the client
  to one worker. Here union-find runs once per partition as a first step only
  (:func:`local_stars`): it costs no round, and on a corpus, where copies sit near their
  originals, it already collapses most chains.
- *Large-star / small-star* keeps every task at the size of its partition's edges, moves
  each edge twice a round, and takes few rounds: a chain of 10⁵ nodes numbered at random
  converges in about 20, a star of 10⁵ leaves in 1–2.

Every function below works on one partition (pandas DataFrame with int64 columns ``u``,
``v``) and can be tested alone; :func:`star_roots` runs the rounds on a cluster.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

EDGE_META = pd.DataFrame({"u": np.zeros(0, np.int64), "v": np.zeros(0, np.int64)})
STEP_META = pd.DataFrame(
    {"u": np.zeros(0, np.int64), "v": np.zeros(0, np.int64), "new": np.zeros(0, np.int64)}
)


def _frame(u: np.ndarray, v: np.ndarray, new: np.ndarray | None = None) -> pd.DataFrame:
    out = {"u": np.ascontiguousarray(u, np.int64), "v": np.ascontiguousarray(v, np.int64)}
    if new is not None:
        out["new"] = np.ascontiguousarray(new, np.int64)
    return pd.DataFrame(out)


def _distinct(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct pairs (x[t], y[t]), sorted by x then y."""
    order = np.lexsort((y, x))
    x, y = x[order], y[order]
    keep = np.ones(x.shape[0], dtype=bool)
    keep[1:] = (x[1:] != x[:-1]) | (y[1:] != y[:-1])
    return x[keep], y[keep]


def _group_min(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For pairs sorted by x: the start of each x's run and min(x, its y's) per row."""
    if x.shape[0] == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    starts = np.flatnonzero(np.concatenate([[True], x[1:] != x[:-1]]))
    smallest = np.minimum(np.minimum.reduceat(y, starts), x[starts])
    return starts, np.repeat(smallest, np.diff(np.append(starts, x.shape[0])))


def local_stars(df: pd.DataFrame) -> pd.DataFrame:
    """Union-find on one partition's edges: each node of a component linked to the
    component's smallest node (edges (node, root), node > root).

    Parameters
    ----------
    df : pandas.DataFrame
        Edges, int64 columns ``u`` and ``v`` (any order within a pair, repeats allowed).

    Returns
    -------
    pandas.DataFrame
        Columns ``u`` (node) and ``v`` (its component's smallest node, ``v < u``): the same
        components with at most one edge per node.
    """
    from nearsim.clustering import _component_roots

    pairs = np.stack([df["u"].to_numpy(np.int64), df["v"].to_numpy(np.int64)], axis=1)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    if pairs.shape[0] == 0:
        return EDGE_META.copy()
    nodes, roots = _component_roots(pairs)
    leaf = nodes != roots
    return _frame(nodes[leaf], roots[leaf])


def both_ways(df: pd.DataFrame) -> pd.DataFrame:
    """Every edge in both directions (what large-star groups by its first node)."""
    u, v = df["u"].to_numpy(np.int64), df["v"].to_numpy(np.int64)
    return _frame(np.concatenate([u, v]), np.concatenate([v, u]))


def large_star(df: pd.DataFrame) -> pd.DataFrame:
    """Large-star on one partition of directed edges grouped by ``u`` (every edge of a node
    ``u`` is in the partition that holds ``u``).

    Returns
    -------
    pandas.DataFrame
        Edges (y, m(x)) for every neighbour y > x, as ``u`` = y, ``v`` = m(x) (so u > v);
        ``new`` is 1 where m(x) ≠ x (the edge was re-routed), else 0.
    """
    x, y = _distinct(df["u"].to_numpy(np.int64), df["v"].to_numpy(np.int64))
    _, m = _group_min(x, y)
    larger = y > x
    return _frame(y[larger], m[larger], (m[larger] != x[larger]).astype(np.int64))


def larger_first(df: pd.DataFrame) -> pd.DataFrame:
    """Each edge as (larger node, smaller node): small-star groups edges by the larger."""
    u, v = df["u"].to_numpy(np.int64), df["v"].to_numpy(np.int64)
    return _frame(np.maximum(u, v), np.minimum(u, v))


def small_star(df: pd.DataFrame) -> pd.DataFrame:
    """Small-star on one partition of edges (x, y), x > y, grouped by x.

    Returns
    -------
    pandas.DataFrame
        Edges (y, m) for every y in N(x) ∪ {x} other than m = min N(x), oriented larger
        first; ``new`` counts, on the first edge of each x, the edges it made that were
        not x's own (|N(x)| − 1).
    """
    x, y = _distinct(df["u"].to_numpy(np.int64), df["v"].to_numpy(np.int64))
    if x.shape[0] == 0:
        return STEP_META.copy()
    starts, m = _group_min(x, y)
    sizes = np.diff(np.append(starts, x.shape[0]))
    others = y != m  # (y, m) for x's other neighbours; (x, m) once per x
    u = np.concatenate([x[starts], y[others]])
    v = np.concatenate([m[starts], m[others]])
    flags = np.concatenate([sizes - 1, np.zeros(int(others.sum()), np.int64)])
    return _frame(u, v, flags)


def roots_of(df: pd.DataFrame) -> pd.DataFrame:
    """The distinct edges of a finished run: (node, its component's smallest node)."""
    u, v = _distinct(df["u"].to_numpy(np.int64), df["v"].to_numpy(np.int64))
    return _frame(u, v)


def star_roots(edges, partitions: int, *, shuffle_method: str | None = None, say=None):
    """The connected components of a graph of edges on a Dask cluster.

    Parameters
    ----------
    edges : dask.dataframe.DataFrame
        Int64 columns ``u`` and ``v``; any partitioning, repeats and self-loops allowed.
    partitions : int
        Partitions of the shuffles (≥ 1).
    shuffle_method : str, optional
        Dask's shuffle method (default: Dask's choice, P2P on a distributed cluster).
    say : callable, optional
        Called with a line of progress after each round.

    Returns
    -------
    (dask.dataframe.DataFrame, int)
        Persisted edges (``u`` = a node in some edge, ``v`` = the smallest node of its
        component, ``u > v``; a component's smallest node has no row), and the rounds of
        large-star / small-star it took, the last one changing nothing (1 when union-find
        per partition was enough).
    """
    import dask
    from distributed import wait

    shuffle = {"npartitions": partitions, "shuffle_method": shuffle_method}
    current = edges.map_partitions(local_stars, meta=EDGE_META).persist()
    rounds = 0
    while True:
        rounds += 1
        grouped = current.map_partitions(both_ways, meta=EDGE_META).shuffle(on="u", **shuffle)
        large = grouped.map_partitions(large_star, meta=STEP_META).persist()
        by_larger = large[["u", "v"]].map_partitions(larger_first, meta=EDGE_META)
        small = by_larger.shuffle(on="u", **shuffle).map_partitions(small_star, meta=STEP_META)
        small = small.persist()
        wait([large, small])
        moved, made = dask.compute(large["new"].sum(), small["new"].sum())
        current = small[["u", "v"]]
        if say is not None:
            say(f"connected components, round {rounds}: {int(moved):,} edges re-routed, "
                f"{int(made):,} made")  # fmt: skip
        if int(moved) == 0 and int(made) == 0:
            break
    return current.map_partitions(roots_of, meta=EDGE_META).persist(), rounds
