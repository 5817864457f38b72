"""``nearsim audit``: how good was a finished deduplication, nearsim's or another tool's.

:func:`audit` reads the run's clusters (:mod:`nearsim.audit.clusters`), measures them on
the corpus (:mod:`nearsim.audit.measure`), and returns what ``audit.json`` holds (API.md's
"Audit of a finished run"); :func:`write_audit` writes ``audit.json`` and ``report.html``,
each whole or not at all.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np

from nearsim.audit.clusters import labels_from_table, read_run, read_table
from nearsim.audit.measure import audit_labels
from nearsim.io.wanted import read_rows
from nearsim.run.fields import FieldCodes
from nearsim.settings import RunSettings
from nearsim.utils.validation import check_int, check_threshold

__all__ = ["audit", "write_audit"]

CHAIN_MARGIN = 0.2
"""A cluster whose least similar member is more than this below t is called a chain."""
GROUP_ALARM = 0.5
"""A group that lost more than this share of its documents gets an alarm."""
GIANT_SHARE = 0.01
"""A cluster holding more than this share of the corpus (and 100 documents) gets an alarm."""
CHAIN_SENTENCES = 3
"""Chains named one by one in the alarms; the others among the largest clusters in one."""


def audit(
    corpus,
    *,
    run=None,
    clusters=None,
    cluster_field: str | None = None,
    text_field: str = "text",
    id_field: str | None = None,
    group_field: str | None = None,
    keep_apart: str | None = None,
    sample: int = 2000,
    seed: int = 0,
    threshold: float | None = None,
    settings: RunSettings | None = None,
    progress=None,
) -> dict:
    """Audit a finished deduplication against exact Jaccard on a sample.

    Parameters
    ----------
    corpus : path or list of paths
        The documents the run read, in the same order (any reader format).
    run : path, optional
        nearsim's output folder (``nearsim dedup --out``). Exactly one of ``run`` and
        ``clusters``.
    clusters : path, optional
        Another tool's table (Parquet, CSV, JSON lines) with a column ``id_field`` (the
        corpus's ids) and a column ``cluster_field``; rows in any order; a document it
        leaves out is alone.
    cluster_field : str
        The cluster column of ``clusters``.
    text_field, id_field : str
        As for :func:`nearsim.iter_corpus` (``id_field`` is required with ``clusters``).
    group_field : str, optional
        Removal per value of this field.
    keep_apart : str, optional
        Clusters that join two documents sharing a non-empty value of this field are named.
    sample : int
        N, 10 … 10⁶: removed documents checked (precision); recall compares the smallest
        s with s(s − 1) ≥ N(n − 1) documents (about √(N·n)) with each other.
    seed : int
        Seed of the samples.
    threshold : float, optional
        t (default: the run's, else 0.8).
    settings : RunSettings, optional
        The shingling (default: the run's, else the defaults).
    progress : callable, optional
        Called with (stage, rows read).

    Returns
    -------
    dict
        ``audit.json``'s keys (threshold, precision, recall, removed, clusters,
        giant_clusters, alarms, sample) and the report's material (``by_similarity``,
        ``missed``, ``worst_removed``, ``keep_apart``, ``source``, ``settings``).

    Raises
    ------
    ValueError
        Bad arguments, unreadable inputs, a corpus that is not the run's.
    """
    if (run is None) == (clusters is None):
        raise ValueError("give exactly one of --run DIR and --clusters FILE")
    sample = check_int(sample, "sample", low=10, high=1_000_000)
    seed = check_int(seed, "seed", low=0, high=2**32 - 1)
    groups = FieldCodes.of(group_field, "group_field")
    apart = FieldCodes.of(keep_apart, "keep_apart")
    fields = tuple(dict.fromkeys(f.field for f in (groups, apart) if f is not None))
    if run is not None:
        found = read_run(run)
    else:
        if cluster_field is None or id_field is None:
            raise ValueError(
                "--clusters needs --id-field (the documents' id in the corpus and the table) "
                "and --cluster-field (the table's cluster column)"
            )
        found = read_table(clusters, id_field, cluster_field)
    if settings is None:
        settings, _problems = RunSettings.parse_query(
            {k: [v] for k, v in _query(found.settings).items()}
        )
    if threshold is None:
        threshold = found.threshold if found.threshold is not None else settings.threshold
    threshold = check_threshold(threshold, "threshold")
    read = dict(text_field=text_field, id_field=id_field)
    unknown = 0
    if found.labels is None:  # another tool's table: the corpus's ids first (no text)
        ids: list[str] = []
        nothing = np.zeros(0, dtype=bool)
        for part in read_rows(corpus, nothing, **read, every_id=True):
            ids += part.every["id"]
            if progress:
                progress("ids", len(ids))
        found.labels, unknown = labels_from_table(found.table, np.array(ids, dtype=object))
        if unknown == len(found.table[0]):
            raise ValueError(
                f"none of the {unknown:,} ids of {found.source} is an id of the corpus; "
                f"accepted: the corpus's --id-field values"
            )
    labels = found.labels

    def rows(wanted):
        return _checked(read_rows(corpus, wanted, **read, fields=fields), found.ids, wanted)

    measured = audit_labels(
        rows,
        labels,
        settings.shingle_options(),
        threshold,
        sample=sample,
        seed=seed,
        progress=(lambda r: progress("scan", r)) if progress else None,
    )
    return _assemble(found, labels, measured, threshold, settings, groups, apart, unknown)


def _query(text: str) -> dict[str, str]:
    from urllib.parse import parse_qsl

    return dict(parse_qsl(text, keep_blank_values=True))


def _checked(parts, run_ids, wanted):
    """The corpus's stretches, the ids of their wanted rows checked against the run's ids
    (nearsim's folder; the ids of rows the audit does not read are not checked)."""
    rows = np.flatnonzero(wanted)
    wanted_ids = run_ids[rows].tolist() if run_ids is not None else None  # one gather
    for part in parts:
        if wanted_ids is not None and part.rows.shape[0]:  # wanted rows are rows of the run
            at = int(np.searchsorted(rows, part.rows[0]))
            theirs = wanted_ids[at : at + part.rows.shape[0]]
            if theirs != part.ids:  # a list compare is fast
                at = next(i for i, (a, b) in enumerate(zip(theirs, part.ids, strict=True))
                          if a != b)  # fmt: skip
                raise ValueError(
                    f"row {int(part.rows[at]):,} of the corpus has id {part.ids[at]!r} and the "
                    f"run {theirs[at]!r}; accepted: the corpus the run read, in the same "
                    "order, with the same --id-field"
                )
        yield part


def _interval(values) -> dict:
    est, low, high = (None if math.isnan(v) else float(v) for v in values)
    return {"estimate": est, "low": low, "high": high}


def _assemble(found, labels, measured, threshold, settings, groups, apart, unknown) -> dict:
    n = labels.shape[0]
    rows = np.arange(n, dtype=np.int64)
    removed_mask = labels != rows
    sizes = np.bincount(labels, minlength=n)
    cluster_sizes = sizes[sizes >= 2]
    values, counts = np.unique(cluster_sizes, return_counts=True)
    removed = {
        "documents": int(n),
        "removed": int(removed_mask.sum()),
        "share": round(float(removed_mask.mean()) if n else 0.0, 6),
    }
    alarms: list[str] = []
    if groups is not None:
        groups.extend(measured["fields"].get(groups.field, []))
        codes = groups.array()
        docs = np.bincount(codes, minlength=len(groups.values))
        gone = np.bincount(codes[removed_mask], minlength=len(groups.values))
        order = sorted(range(len(groups.values)), key=lambda g: (-int(docs[g]), groups.values[g]))
        removed["group_field"] = groups.field
        removed["by_group"] = {
            groups.values[g]: {
                "documents": int(docs[g]),
                "removed": int(gone[g]),
                "share": round(int(gone[g]) / int(docs[g]), 6),
            }
            for g in order
        }
        for value, g in removed["by_group"].items():
            if g["share"] > GROUP_ALARM and g["documents"] >= 10:
                alarms.append(
                    f"{groups.field} {value or '(empty)'!r} lost {g['share']:.1%} of its "
                    f"documents ({g['removed']:,} of {g['documents']:,}) — check that these "
                    "are copies and not pages that only share a template."
                )
    giant = []
    chains = []  # the largest clusters that are chains, largest first
    for g in measured["giant"]:
        entry = {
            "cluster": g["cluster"],
            "size": g["size"],
            "min_similarity_to_kept": round(g["min_similarity_to_kept"], 6),
            "least_similar_row": g["least_similar_row"],
        }
        giant.append(entry)
        big = g["size"] >= 100 and g["size"] > GIANT_SHARE * n
        share = f"{g['size'] / n:.1%} of the corpus"
        if g["min_similarity_to_kept"] < threshold - CHAIN_MARGIN:
            chains.append(entry)
            if len(chains) <= CHAIN_SENTENCES:
                size = f"{g['size']:,} documents" + (f", {share}" if big else "")
                alarms.append(
                    f"Cluster {g['cluster']} ({size}) is a chain: its "
                    f"least similar member (row {g['least_similar_row']}) has Jaccard "
                    f"{g['min_similarity_to_kept']:.2f} with the kept document, far below the "
                    f"threshold {threshold:g}; similar neighbours linked documents that are "
                    "not alike. nearsim dedup --cluster-check true splits such chains."
                )
        elif big:
            alarms.append(
                f"Cluster {g['cluster']} holds {g['size']:,} documents ({share}); it looks "
                "like copies of one text or template."
            )
    if len(chains) > CHAIN_SENTENCES:
        rest = chains[CHAIN_SENTENCES:]
        low = min(c["min_similarity_to_kept"] for c in rest)
        high = max(c["min_similarity_to_kept"] for c in rest)
        alarms.append(
            f"{len(rest):,} more of the {len(giant):,} largest clusters are chains too "
            f"(clusters {', '.join(str(c['cluster']) for c in rest)}; their least similar "
            f"members have Jaccard {low:.2f}–{high:.2f} with the kept document), each listed "
            "with the largest clusters."
        )
    precision, recall = _interval(measured["precision"]), _interval(measured["recall"])
    for name, iv in (("Precision", precision), ("Recall", recall)):
        if iv["high"] is not None and iv["high"] < 0.9:
            alarms.append(
                f"{name} is below 0.9 (95% interval {iv['low']:.3f}–{iv['high']:.3f}) at the "
                f"threshold {threshold:g}."
            )
    apart_report = None
    if apart is not None:
        apart.extend(measured["fields"].get(apart.field, []))
        apart_report = _apart_clusters(apart, labels, sizes)
        if apart_report["clusters"]:
            alarms.append(
                f"{apart_report['clusters']:,} clusters join documents that share a "
                f"{apart.field!r} value (through a third document similar to both)."
            )
    if unknown:
        alarms.append(f"{unknown:,} ids of {found.source} are not in the corpus; left out.")
    ok, checked, _removed = measured["precision_counts"]
    found_pairs, true_pairs, anchors = measured["recall_counts"]
    return {
        "threshold": threshold,
        "precision": precision | {"checked": checked, "within_threshold": ok},
        "recall": recall | {"true_pairs": true_pairs, "found": found_pairs, "anchors": anchors},
        "removed": removed,
        "clusters": {
            "count": int(cluster_sizes.shape[0]),
            "largest": int(cluster_sizes.max(initial=1)),
            "size_histogram": [[int(v), int(c)] for v, c in zip(values, counts, strict=True)],
        },
        "giant_clusters": giant,
        "alarms": alarms,
        "sample": measured["sample"],
        "cpu_seconds": measured["cpu_seconds"],
        "by_similarity": measured["by_similarity"],
        "missed": measured["missed"],
        "worst_removed": [
            {k: w[k] for k in ("row", "kept", "jaccard")} for w in measured["worst_removed"]
        ],
        "_worst": [w for w in measured["worst_removed"] if w["text"] is not None],
        "keep_apart": apart_report,
        "source": found.source,
        "settings": settings.to_query() if hasattr(settings, "to_query") else {},
        "_texts": {
            g["cluster"]: (g["kept_text"], g["least_similar_text"]) for g in measured["giant"]
        },
    }


def _apart_clusters(apart: FieldCodes, labels: np.ndarray, sizes: np.ndarray) -> dict:
    """Clusters holding two documents with the same non-empty keep-apart value."""
    codes = apart.array()
    has = np.flatnonzero((codes >= 0) & (sizes[labels] >= 2))
    key = labels[has] * np.int64(len(apart.values) + 1) + codes[has]
    uniq, first, count = np.unique(key, return_index=True, return_counts=True)
    twice = count >= 2
    clusters = np.unique(labels[has[first[twice]]])
    examples = []
    for k in uniq[twice][:20].tolist():
        rows = has[key == k][:5]
        examples.append(
            {
                "cluster": int(labels[rows[0]]),
                "value": apart.values[int(codes[rows[0]])],
                "rows": [int(r) for r in rows],
            }
        )
    return {"field": apart.field, "clusters": int(clusters.shape[0]), "examples": examples}


def write_audit(result: dict, out) -> list[Path]:
    """Write ``audit.json`` and ``report.html`` in folder ``out`` (made if missing), each
    under a temporary name first. Returns the paths."""
    from nearsim.audit.report import html_report

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {str(out)!r} is a file; accepted: a folder (made if missing)")
    out.mkdir(parents=True, exist_ok=True)
    public = {k: v for k, v in result.items() if not k.startswith("_")}
    written = []
    for name, text in (
        ("report.html", html_report(result)),
        ("audit.json", json.dumps(public, indent=2, ensure_ascii=False) + "\n"),
    ):
        path = out / name
        tmp = out / f".{name}.tmp-{os.getpid()}"
        try:
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        written.append(path)
    return written
