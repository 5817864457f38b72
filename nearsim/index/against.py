"""``nearsim dedup NEW --against DIR``: new documents deduplicated against an index and
among themselves, written as ``nearsim dedup`` writes a run.

The pairs are the matches of :meth:`nearsim.Index.match_among`: exactly the pairs a
``nearsim dedup`` run over the indexed documents followed by the new ones would accept
between a new document and an earlier one (tested). Nothing is stored.

Clusters are the connected components of those pairs over the new documents and the
indexed documents they match; the document kept for a cluster is its earliest: an indexed
one when the cluster holds one (a new document that duplicates the index is removed),
else its smallest new row. Pairs among indexed documents are not looked up, so two new
documents matching two different indexed documents of one old cluster stay in two
clusters here.

``group_field`` counts the new documents and their removals per value of a field
(``summary.json``'s ``removed_by_group``, as ``nearsim dedup --group-field``), read in a
second pass over the new documents. ``--keep-apart`` is not offered here: the index keeps
signatures, ids and (optionally) texts, not the values of a field, so a pair of a new and
an indexed document could not be checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from nearsim.clustering import check_against_kept
from nearsim.index.build import read_signed
from nearsim.index.core import Index
from nearsim.io.corpora import iter_corpus
from nearsim.minhash import estimate_pairs
from nearsim.run.fields import FieldCodes, removed_by_group
from nearsim.run.progress import Clock
from nearsim.run.result import DedupResult, IdColumn


@dataclass
class AgainstResult(DedupResult):
    """A :class:`DedupResult` of the new documents, with what the index adds to it.

    ``clusters.<fmt>`` gets a column ``kept_id`` (the id of the document kept in each
    document's place: an indexed one, or a new one) and ``pairs.<fmt>`` the columns
    ``match_id`` and ``match_position`` (the indexed document of a pair; "" and −1 for a
    pair of two new documents, whose rows are ``a`` < ``b``; for a pair with an indexed
    document ``a`` is −1 and ``b`` the new row).
    """

    columns: dict = field(default_factory=dict)
    pair_extra: dict = field(default_factory=dict)
    against: dict = field(default_factory=dict)

    def cluster_columns(self) -> dict:
        return {"row": np.arange(self.n, dtype=np.int64), "id": self.ids, **self.columns}

    def pair_columns(self) -> dict:
        return {**super().pair_columns(), **self.pair_extra}

    def summary(self) -> dict:
        out = super().summary()
        keep = self.columns["keep"]
        sizes = self.columns["cluster_size"]
        out["removed"] = int((~keep).sum())
        out["clusters"] = int(np.unique(self.columns["cluster"][sizes >= 2]).shape[0])
        out["against"] = self.against
        return out


def dedup_against(
    paths,
    index_path,
    settings=None,
    *,
    text_field: str = "text",
    id_field: str | None = None,
    cluster_check: bool = False,
    on_error: str = "fail",
    group_field: str | None = None,
    progress: bool = False,
) -> AgainstResult:
    """Deduplicate a corpus against an index and among itself; nothing is stored.

    Parameters
    ----------
    paths : path or list of paths
        The new documents (as :func:`nearsim.iter_corpus` reads them).
    index_path : path
    settings : RunSettings, optional
        When given, it must equal the index's (else ``ValueError``).
    cluster_check : bool
        As ``nearsim dedup --cluster-check`` (on the MinHash estimate).
    group_field : str, optional
        Documents and removals of the new documents per value of this field
        (``summary()["removed_by_group"]``); a missing field or null is the value "".

    Returns
    -------
    AgainstResult
    """
    clock = Clock(progress)
    groups = FieldCodes.of(group_field, "group_field")
    index = Index.open(index_path, settings)
    run = index.settings.run_settings()
    signed, _, report = read_signed(
        paths, run, text_field=text_field, id_field=id_field, on_error=on_error, clock=clock
    )
    n = signed.n
    with clock.stage("match", f"matching {n:,} documents against {len(index):,} indexed"):
        found = index.match_among(signed)
    within = found.earlier >= 0
    positions = np.unique(found.position[~within])
    p = positions.shape[0]
    a = np.where(within, p + found.earlier, np.searchsorted(positions, found.position))
    b = p + found.row
    node_pairs = np.stack([a, b], axis=1)
    sig = np.concatenate([index.signatures(positions), signed.sig])

    def similarity(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return estimate_pairs(sig, np.stack([x, y], axis=1))

    with clock.stage("clusters", f"clustering: {node_pairs.shape[0]:,} pairs"):
        check = check_against_kept(
            p + n, node_pairs, similarity, run.threshold if cluster_check else None
        )
    labels = check.labels
    kept = _kept_nodes(labels)[p:]
    rows = np.arange(n, dtype=np.int64)
    new_labels = labels[p:]
    smallest = np.full(int(labels.max(initial=-1)) + 1, n, dtype=np.int64)
    np.minimum.at(smallest, new_labels, rows)
    index_ids = index.ids(positions) if p else []
    ids = signed.ids if signed.ids is not None else [str(i) for i in range(n)]
    columns = {
        "cluster": smallest[new_labels],
        "cluster_size": np.bincount(labels)[new_labels].astype(np.int64),
        "keep": kept == p + rows,
        "similarity_to_kept": check.similarity[p:],
        "kept_id": [index_ids[k] if k < p else ids[k - p] for k in kept.tolist()],
    }
    extra: dict = {}
    if groups is not None:
        _read_groups(groups, paths, text_field, id_field, on_error, n)
        extra["group_field"] = groups.field
        extra["removed_by_group"] = removed_by_group(groups, new_labels, ~columns["keep"])
    order = np.lexsort((found.position, found.row, np.where(within, found.earlier, -1)))
    pair_position = np.where(within, -1, found.position)[order]
    names = dict(zip(positions.tolist(), index_ids, strict=True))
    return AgainstResult(
        settings=run,
        ids=IdColumn.of(ids),
        valid=signed.valid,
        labels=new_labels,
        candidates=int(found.row.shape[0]),
        pairs=np.stack([np.where(within, found.earlier, -1)[order], found.row[order]], axis=1),
        estimates=found.count[order] / np.float64(run.num_perm),
        jaccard=None,
        verify="estimate",
        similarity=check.similarity[p:],
        exact_duplicates=int(found.copy.sum()),
        split_off=int(check.split_off[p:].sum()),
        cluster_check=cluster_check,
        seconds=clock.seconds,
        read_report=report,
        cpu_seconds=clock.cpu,
        extra=extra,
        columns=columns,
        pair_extra={
            "match_id": [names[x] if x >= 0 else "" for x in pair_position.tolist()],
            "match_position": pair_position,
        },
        against={
            "index": str(index_path),
            "index_documents": len(index),
            "matched_index": int((kept < p).sum()),
        },
    )


def _read_groups(groups: FieldCodes, paths, text_field, id_field, on_error, n: int) -> None:
    """The new documents' values of the group field, read again (the same records)."""
    reader = iter_corpus(paths, text_field=text_field, id_field=id_field, on_error=on_error,
                         fields=(groups.field,))  # fmt: skip
    for _ids, _texts, extra in reader.records():
        groups.extend(extra[groups.field])
    if groups.array().shape[0] != n:
        raise ValueError(
            f"the new documents changed while they were read ({n:,} records, then "
            f"{groups.array().shape[0]:,}); accepted: files that stay the same during the run"
        )


def _kept_nodes(labels: np.ndarray) -> np.ndarray:
    """Each node's cluster's smallest node."""
    nodes = np.arange(labels.shape[0], dtype=np.int64)
    first = np.full(int(labels.max(initial=-1)) + 1, labels.shape[0], dtype=np.int64)
    np.minimum.at(first, labels, nodes)
    return first[labels]
