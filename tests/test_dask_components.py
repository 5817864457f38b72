"""Connected components on a Dask cluster (union-find per partition, then large-star /
small-star) against ``scipy.sparse.csgraph`` on hard graphs: a chain of 10⁵ nodes (in order
and numbered at random), a star of 10⁵ leaves, many small components, one giant component;
and a property test of the same steps, run in this process, against scipy on random graphs.

Rounds: Kiveris et al. prove O(log² n) rounds for large-star / small-star; on these graphs it
takes about log₂ n or fewer. Each test bounds the rounds by 2 · ⌈log₂ n⌉ (34 at n = 10⁵), where
min-label propagation would need one round per step of the longest shortest path (10⁵ for
the chain).
"""

from __future__ import annotations

import math

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from distributed import Client
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from nearsim.run import dask_components as dc
from nearsim.run.dask_engine import local_cluster

N = 100_000


@pytest.fixture(scope="module")
def client():
    cluster = local_cluster(2)
    with Client(cluster) as c:
        yield c
    cluster.close()


def scipy_roots(n: int, edges: np.ndarray) -> np.ndarray:
    """Each node's component's smallest node, by scipy."""
    graph = coo_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(n, n))
    _, comp = connected_components(graph, directed=False)
    smallest = np.full(comp.max() + 1, n, dtype=np.int64)
    np.minimum.at(smallest, comp, np.arange(n))
    return smallest[comp]


def as_roots(n: int, frame: pd.DataFrame) -> np.ndarray:
    roots = np.arange(n, dtype=np.int64)
    roots[frame["u"].to_numpy()] = frame["v"].to_numpy()
    return roots


def random_order(edges: np.ndarray, seed: int) -> np.ndarray:
    """The edges in a random order, each pair in a random orientation: no partition of
    them happens to hold a whole component."""
    rng = np.random.default_rng(seed)
    edges = edges[rng.permutation(len(edges))]
    flip = rng.random(len(edges)) < 0.5
    edges[flip] = edges[flip][:, ::-1]
    return edges


def chain(n: int, numbered_at_random: bool) -> np.ndarray:
    nodes = np.random.default_rng(1).permutation(n) if numbered_at_random else np.arange(n)
    return np.stack([nodes[:-1], nodes[1:]], axis=1)


def star(n: int) -> np.ndarray:
    nodes = np.random.default_rng(2).permutation(n)
    return np.stack([np.full(n - 1, nodes[0]), nodes[1:]], axis=1)


def small_components(n: int) -> np.ndarray:
    """Components of 2 to 8 nodes (random trees), nodes numbered at random."""
    rng = np.random.default_rng(3)
    sizes = rng.integers(2, 9, n // 4)
    sizes = sizes[np.cumsum(sizes) <= n]
    nodes = rng.permutation(n)
    edges, at = [], 0
    for size in sizes.tolist():
        members = nodes[at : at + size]
        parents = members[(rng.random(size - 1) * np.arange(1, size)).astype(np.int64)]
        edges.append(np.stack([members[1:], parents], axis=1))
        at += size
    return np.concatenate(edges)


def giant(n: int) -> np.ndarray:
    """A random graph of 2n edges: one component of nearly every node, and a few small."""
    rng = np.random.default_rng(4)
    a, b = rng.integers(0, n, 2 * n), rng.integers(0, n, 2 * n)
    return np.stack([a, b], axis=1)[a != b]


GRAPHS = {
    "chain": lambda: chain(N, False),
    "chain-numbered-at-random": lambda: chain(N, True),
    "star": lambda: star(N),
    "many-small": lambda: small_components(N),
    "giant": lambda: giant(N),
}


@pytest.mark.parametrize("name", list(GRAPHS))
def test_hard_graphs_on_a_cluster_equal_scipy(client, name):
    edges = random_order(GRAPHS[name](), seed=5)
    want = scipy_roots(N, edges)
    frame = dd.from_pandas(pd.DataFrame({"u": edges[:, 0], "v": edges[:, 1]}), npartitions=4)
    roots, rounds = dc.star_roots(frame, 4)
    got = as_roots(N, roots.compute())
    assert np.array_equal(got, want)
    assert rounds <= 2 * math.ceil(math.log2(N))
    if name == "chain-numbered-at-random":
        assert rounds >= 3  # the test graph is hard: one partition's union-find is not enough
    sizes = np.bincount(want)
    expected_largest = {"chain": N, "chain-numbered-at-random": N, "star": N}
    if name in expected_largest:
        assert sizes.max() == expected_largest[name]
    elif name == "many-small":
        assert sizes.max() <= 8 and (sizes >= 2).sum() > 10_000
    else:
        assert sizes.max() > 0.9 * N and (sizes >= 2).sum() > 1


# -- the same steps in this process: a property test against scipy -------------------------
def steps_in_process(edges: np.ndarray, partitions: int) -> tuple[np.ndarray, int]:
    """:func:`nearsim.run.dask_components.star_roots`'s steps with a hash partitioning in
    place of Dask's shuffle: returns the (u, v) edges of the result and the rounds."""

    def shuffle(parts):
        frame = pd.concat(parts, ignore_index=True)
        home = frame["u"].to_numpy() % partitions
        return [frame[home == p] for p in range(partitions)]

    chunks = np.array_split(edges, partitions)
    parts = [dc.local_stars(pd.DataFrame({"u": c[:, 0], "v": c[:, 1]})) for c in chunks]
    rounds = 0
    while True:
        rounds += 1
        large = [dc.large_star(p) for p in shuffle([dc.both_ways(p) for p in parts])]
        grouped = shuffle([dc.larger_first(p[["u", "v"]]) for p in large])
        small = [dc.small_star(p) for p in grouped]
        parts = [p[["u", "v"]] for p in small]
        if sum(int(p["new"].sum()) for p in large + small) == 0:
            break
    result = pd.concat([dc.roots_of(p) for p in parts], ignore_index=True)
    return result[["u", "v"]].to_numpy(), rounds


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 40),
    raw=st.lists(st.tuples(st.integers(0, 39), st.integers(0, 39)), max_size=80),
    partitions=st.integers(1, 5),
)
def test_the_steps_equal_scipy_on_random_graphs(n, raw, partitions):
    edges = np.array([(a % n, b % n) for a, b in raw], dtype=np.int64).reshape(-1, 2)
    result, rounds = steps_in_process(edges, partitions)
    want = scipy_roots(n, edges) if len(edges) else np.arange(n)
    got = np.arange(n, dtype=np.int64)
    got[result[:, 0]] = result[:, 1]
    assert got.tolist() == want.tolist()
    # every node of the result is in some edge of the input, once, pointing at a smaller one
    assert (result[:, 1] < result[:, 0]).all()
    assert len(np.unique(result[:, 0])) == len(result)
    assert rounds <= 2 * max(1, math.ceil(math.log2(n + 1)))


def test_each_step_on_a_small_graph_by_hand():
    """Large-star links each larger neighbour to the smallest of the node's neighbourhood;
    small-star links each node's smaller neighbours (and itself) to the smallest of them."""
    both = dc.both_ways(pd.DataFrame({"u": [3, 3, 5], "v": [1, 5, 4]}))
    large = dc.large_star(both).sort_values(["u", "v"]).to_numpy().tolist()
    # node 1: {3} → (3, 1) kept; node 3: {1, 5} → (5, 1) re-routed; node 4: {5} → (5, 4)
    assert large == [[3, 1, 0], [5, 1, 1], [5, 4, 0]]
    small = dc.small_star(pd.DataFrame({"u": [5, 5, 3], "v": [1, 4, 1]}))
    rows = sorted(map(tuple, small[["u", "v"]].to_numpy().tolist()))
    assert rows == [(3, 1), (4, 1), (5, 1)] and int(small["new"].sum()) == 1
    stars = dc.local_stars(pd.DataFrame({"u": [7, 8, 2], "v": [8, 9, 2]}))
    assert sorted(map(tuple, stars.to_numpy().tolist())) == [(8, 7), (9, 7)]
