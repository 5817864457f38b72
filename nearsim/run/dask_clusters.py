"""The Dask engine after verification: clusters, the member check, cluster sizes and the
output parts, all in the workers; the client holds futures and counts, never an array
with a value per document.

Every document's state lives beside its signatures, in the partition that holds its row
(row ranges ``starts[i] .. starts[i + 1] - 1``): ``root`` (the smallest row of its cluster,
its ``cluster`` column), ``sim`` (``similarity_to_kept``) and the cluster size. What moves
between partitions are messages — (node, root) edges from the connected components,
member codes ``root · n + row`` to measure, (root, member) for sizes — each a shuffle with
the row ranges as divisions (``set_index``), so each lands beside the state it updates.

The stages (:class:`Clusters`):

1. **Components** of the accepted pairs (:func:`nearsim.run.dask_components.star_roots`):
   every document in a pair gets its component's smallest row as ``root``.
2. **Similarity to the kept document**: every member (``root ≠ row``) is measured against
   its root where the root's signature lives (the verification join of
   :mod:`nearsim.run.dask_engine`, with codes ``root · n + member``).
3. With the **member check**: members below the threshold leave; the pairs whose two
   documents both left are clustered again (stage 1 on them) and the new members
   measured against their new roots (stage 2), until nobody leaves — the rounds of
   :func:`nearsim.clustering.check_against_kept`, with the same result.
4. **Sizes**: each member sends (root, row) to its root's partition, which counts its
   members and answers each with the size.
5. **Parts**: each partition writes its rows of ``clusters`` (row, id, cluster,
   cluster_size, keep, similarity_to_kept) and its range of ``pairs`` (sorted by (a, b)),
   as ``part-00000.<fmt>``, … in a temporary folder that the client renames at the end.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from nearsim.run.dask_components import EDGE_META, star_roots
from nearsim.run.dask_read import Part, part_ids

CODE_META = pd.DataFrame({"code": np.zeros(0, np.int64)})
ROOT_META = pd.DataFrame({"root": np.zeros(0, np.int64), "row": np.zeros(0, np.int64)})
SIZE_META = pd.DataFrame({"row": np.zeros(0, np.int64), "size": np.zeros(0, np.int64)})
PAIR_EDGE_META = pd.DataFrame({"a": np.zeros(0, np.int64), "b": np.zeros(0, np.int64)})


# -- what the workers run, one partition at a time ---------------------------------------
def _plain(df: pd.DataFrame) -> pd.DataFrame:
    """A shuffled partition with its index (the shuffle's column) back as a column."""
    return df.reset_index() if df.index.name is not None else df


def first_roots(start: int, m: int) -> np.ndarray:
    """Every document its own root; int64, shape (m,)."""
    return np.arange(start, start + m, dtype=np.int64)


def with_roots(root: np.ndarray, edges: pd.DataFrame, start: int) -> np.ndarray:
    """``root`` with each node of ``edges`` (u: a row of this partition, v: its
    component's smallest row) given that root."""
    edges = _plain(edges)
    out = root.copy()
    out[edges["u"].to_numpy(np.int64) - start] = edges["v"].to_numpy(np.int64)
    return out


def member_codes(root: np.ndarray, pending: np.ndarray | None, start: int, n: int):
    """Codes ``root · n + row`` of the members (``root ≠ row``) to measure: all of them,
    or those marked in ``pending``."""
    rows = np.arange(start, start + root.shape[0], dtype=np.int64)
    member = root != rows
    if pending is not None:
        member &= pending
    return pd.DataFrame({"code": root[member] * np.int64(n) + rows[member]})


def with_similarities(sim: np.ndarray, measured: tuple, start: int, column: str):
    """``sim`` with the measured pairs' values at their members (the pairs' ``b``)."""
    frame = measured[0]
    out = sim.copy()
    out[frame["b"].to_numpy(np.int64) - start] = frame[column].to_numpy(np.float64)
    return out


def leavers(root: np.ndarray, sim: np.ndarray, pending, start: int, t: float) -> np.ndarray:
    """Members (of those measured) whose similarity to their root is below ``t``."""
    rows = np.arange(start, start + root.shape[0], dtype=np.int64)
    out = (root != rows) & (sim < t)
    if pending is not None:
        out &= pending
    return out


def count(flags: np.ndarray) -> int:
    return int(np.count_nonzero(flags))


def either(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a | b


def keep_side(edges: pd.DataFrame, flags: np.ndarray, start: int, side: str) -> pd.DataFrame:
    """The pairs whose ``side`` document (a row of this partition) is flagged."""
    edges = _plain(edges)
    keep = flags[edges[side].to_numpy(np.int64) - start]
    return pd.DataFrame(
        {"a": edges["a"].to_numpy(np.int64)[keep], "b": edges["b"].to_numpy(np.int64)[keep]}
    )


def as_edges(pairs: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"u": pairs["a"].to_numpy(np.int64), "v": pairs["b"].to_numpy(np.int64)})


def rerooted(root, sim, leaving, edges: pd.DataFrame, start: int):
    """After a check round: leavers alone (their own root, similarity 1), then the nodes of
    the components among leavers given their new roots.

    Returns
    -------
    (root, sim, pending)
        ``pending`` marks the documents whose root changed to a new component's: the
        members to measure next.
    """
    rows = np.arange(start, start + root.shape[0], dtype=np.int64)
    root = np.where(leaving, rows, root)
    sim = np.where(leaving, 1.0, sim)
    edges = _plain(edges)
    local = edges["u"].to_numpy(np.int64) - start
    root[local] = edges["v"].to_numpy(np.int64)
    pending = np.zeros(root.shape[0], dtype=bool)
    pending[local] = True
    return root, sim, pending


def member_messages(root: np.ndarray, start: int) -> pd.DataFrame:
    """(root, row) of every member of this partition: sent to the root's partition."""
    rows = np.arange(start, start + root.shape[0], dtype=np.int64)
    member = root != rows
    return pd.DataFrame({"root": root[member], "row": rows[member]})


def sizes_at_roots(messages: pd.DataFrame, m: int, start: int):
    """At the roots' partition: each root's cluster size (1 + its members), and each
    member's answer (row, size).

    Returns
    -------
    (ndarray of int64, pandas.DataFrame)
        The size of each row of this partition as a root (1 for a row without members:
        its own size when it is a root; overwritten for members); the answers.
    """
    messages = _plain(messages)
    roots = messages["root"].to_numpy(np.int64) - start
    own = 1 + np.bincount(roots, minlength=m).astype(np.int64)
    answers = pd.DataFrame({"row": messages["row"].to_numpy(np.int64), "size": own[roots]})
    return own, answers


def final_sizes(own: np.ndarray, answers: pd.DataFrame, start: int) -> np.ndarray:
    answers = _plain(answers)
    out = own.copy()
    out[answers["row"].to_numpy(np.int64) - start] = answers["size"].to_numpy(np.int64)
    return out


def cluster_columns(part: Part, first_record: int, root, size, sim, start: int) -> dict:
    """This partition's rows of ``clusters``: row, id, cluster, cluster_size, keep,
    similarity_to_kept."""
    rows = np.arange(start, start + root.shape[0], dtype=np.int64)
    return {
        "row": rows,
        "id": part_ids(part, first_record).tolist(),
        "cluster": root,
        "cluster_size": size,
        "keep": root == rows,
        "similarity_to_kept": np.asarray(sim, dtype=np.float64),
    }


def cluster_counts(root: np.ndarray, size: np.ndarray, part: Part, start: int,
                   group: str | None = None) -> dict:  # fmt: skip
    """The partition's share of ``summary.json``: clusters of two or more (counted at
    their roots), removed documents (members), documents without a signature; with a
    group field, ``groups``: {value: [documents, removed]} of its documents."""
    rows = np.arange(start, start + root.shape[0], dtype=np.int64)
    kept = root == rows
    out = {
        "clusters": int(np.count_nonzero(kept & (size >= 2))),
        "removed": int(np.count_nonzero(~kept)),
        "without_signature": int(np.count_nonzero(~part.valid)),
    }
    if group is not None:
        codes = part.fields[group]
        at, size = codes.array(), len(codes.values)
        documents = np.bincount(at, minlength=size)
        removed = np.bincount(at[~kept], minlength=size)
        out["groups"] = {
            v: [int(d), int(r)] for v, d, r in zip(codes.values, documents, removed, strict=True)
        }
    return out


def merge_groups(counts: list[dict]) -> dict[str, dict[str, int]]:
    """The partitions' ``groups`` as ``removed_by_group``: {value: {documents, removed}},
    most documents first, then by value (as :func:`nearsim.run.fields.removed_by_group`)."""
    total: dict[str, list[int]] = {}
    for c in counts:
        for value, (d, r) in c["groups"].items():
            held = total.setdefault(value, [0, 0])
            held[0] += d
            held[1] += r
    order = sorted(total, key=lambda v: (-total[v][0], v))
    return {v: {"documents": total[v][0], "removed": total[v][1]} for v in order}


def pair_columns(pairs: pd.DataFrame, exact: bool) -> dict:
    """This partition's accepted pairs (their ``a`` in its rows), sorted by (a, b)."""
    pairs = _plain(pairs)
    a, b = pairs["a"].to_numpy(np.int64), pairs["b"].to_numpy(np.int64)
    order = np.lexsort((b, a))
    out = {"a": a[order], "b": b[order], "estimate": pairs["estimate"].to_numpy(np.float64)}
    out["estimate"] = out["estimate"][order]
    if exact:
        out["jaccard"] = pairs["jaccard"].to_numpy(np.float64)[order]
    return out


def write_part(columns: dict, folder: str, index: int, fmt: str) -> int:
    """Write one part, ``part-00000.<fmt>``, in ``folder``; its rows."""
    from nearsim.run.outputs import write_table

    path = Path(folder) / f"part-{index:05d}.{fmt}"
    write_table(columns, path, fmt)
    return len(next(iter(columns.values())))


def valid_of(part: Part) -> np.ndarray:
    return part.valid


# -- the client's side: futures per row partition -----------------------------------------
class Clusters:
    """The clusters stage of one run, driven from the client.

    Parameters
    ----------
    client : distributed.Client
    starts, sizes : list of int
        Each row partition's first row and its number of documents.
    n : int
        Documents.
    measure : callable
        ``measure(codes)`` with a Dask DataFrame of codes ``root · n + member`` indexed by
        code (divisions at the partitions' ``start · n``) returns futures of
        ``(frame, count)`` per row partition, the frame's ``b`` in that partition's rows
        (:meth:`nearsim.run.dask_engine._Run.measure`).
    column : str
        ``"estimate"`` or ``"jaccard"``: which similarity ``measure`` gives.
    say : callable
        One line of progress.
    """

    def __init__(self, client, starts, sizes, n, measure, column, say):
        self.client, self.starts, self.sizes, self.n = client, starts, sizes, n
        self.measure, self.column, self.say = measure, column, say
        self.divisions = [*starts, n]
        self.rounds = 0  # of large-star / small-star, summed over check rounds
        self.check_rounds = 0

    def _submit(self, fn, *args, **kwargs):
        return self.client.submit(fn, *args, pure=False, **kwargs)

    def _to_rows(self, frame, column: str) -> list:
        """A Dask DataFrame shuffled so that partition i holds the rows whose ``column``
        is in row partition i; its partitions as Delayed objects."""
        return frame.set_index(column, divisions=self.divisions).to_delayed()

    def _components(self, pairs) -> list:
        """Delayed (node, root) edges per row partition of the components of ``pairs``."""
        edges = pairs.map_partitions(as_edges, meta=EDGE_META)
        roots, rounds = star_roots(edges, len(self.starts), say=self.say)
        self.rounds += rounds
        return self._to_rows(roots, "u")

    def _measure(self, root, pending, sim):
        import dask
        import dask.dataframe as dd

        n = self.n
        codes = [
            dask.delayed(member_codes)(r, p, s, n)
            for r, p, s in zip(root, pending, self.starts, strict=True)
        ]
        frame = dd.from_delayed(codes, meta=CODE_META, verify_meta=False)
        divisions = [s * n for s in self.starts] + [n * n]
        measured = self.measure(frame.set_index("code", divisions=divisions))
        return [
            self._submit(with_similarities, x, m, s, self.column)
            for x, m, s in zip(sim, measured, self.starts, strict=True)
        ]

    def run(self, pairs, threshold: float | None):
        """Roots, similarities and how many left (futures per row partition, and an int).

        Parameters
        ----------
        pairs : dask.dataframe.DataFrame
            The accepted pairs (int64 columns ``a`` < ``b``), any partitioning.
        threshold : float or None
            The member check's threshold; None: no check.
        """
        import dask
        import dask.dataframe as dd

        starts, sizes = self.starts, self.sizes
        root = [self._submit(first_roots, s, m) for s, m in zip(starts, sizes, strict=True)]
        found = self._components(pairs[["a", "b"]])
        root = [
            self._submit(with_roots, r, e, s)
            for r, e, s in zip(root, self.client.compute(found), starts, strict=True)
        ]
        sim = [self._submit(np.ones, m, dtype=np.float64) for m in sizes]
        left = [self._submit(np.zeros, m, dtype=bool) for m in sizes]
        pending = [None] * len(starts)
        edges = pairs[["a", "b"]]
        while True:
            sim = self._measure(root, pending, sim)
            if threshold is None:
                break
            self.check_rounds += 1
            leaving = [
                self._submit(leavers, r, x, p, s, threshold)
                for r, x, p, s in zip(root, sim, pending, starts, strict=True)
            ]
            gone = sum(self.client.gather([self._submit(count, f) for f in leaving]))
            self.say(f"member check, round {self.check_rounds}: {gone:,} left their cluster")
            if gone == 0:
                break
            left = [self._submit(either, a, b) for a, b in zip(left, leaving, strict=True)]
            for side in ("a", "b"):
                kept = [
                    dask.delayed(keep_side)(e, f, s, side)
                    for e, f, s in zip(self._to_rows(edges, side), leaving, starts, strict=True)
                ]
                edges = dd.from_delayed(kept, meta=PAIR_EDGE_META, verify_meta=False)
            edges = edges.persist()
            found = self.client.compute(self._components(edges))
            moved = [
                self._submit(rerooted, r, x, g, e, s)
                for r, x, g, e, s in zip(root, sim, leaving, found, starts, strict=True)
            ]
            root = [self._submit(_item, f, 0) for f in moved]
            sim = [self._submit(_item, f, 1) for f in moved]
            pending = [self._submit(_item, f, 2) for f in moved]
        return root, sim, left

    def sizes_of(self, root: list) -> list:
        """Futures of each row partition's cluster sizes (int64 arrays)."""
        import dask
        import dask.dataframe as dd

        sent = [dask.delayed(member_messages)(r, s) for r, s in zip(root, self.starts, strict=True)]
        frame = dd.from_delayed(sent, meta=ROOT_META, verify_meta=False)
        at_roots = [
            dask.delayed(sizes_at_roots, nout=2)(msg, m, s)
            for msg, m, s in zip(self._to_rows(frame, "root"), self.sizes, self.starts,
                                 strict=True)
        ]
        answers = dd.from_delayed([a for _, a in at_roots], meta=SIZE_META, verify_meta=False)
        done = [
            dask.delayed(final_sizes)(own, ans, s)
            for (own, _), ans, s in zip(at_roots, self._to_rows(answers, "row"), self.starts,
                                        strict=True)
        ]
        return self.client.compute(done)


def _item(values: tuple, i: int):
    return values[i]
