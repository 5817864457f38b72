"""``nearsim index build | add | query | compact`` and ``nearsim dedup NEW --against DIR``.

The parsers are added to :mod:`nearsim.cli`'s by :func:`index_parser`; the handlers raise
:class:`nearsim.cli.UsageError` or ``ValueError`` for anything the user gave that cannot be
used (exit status 2 with one line). Only argparse and pathlib are imported at start: the
library is loaded when a command runs.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

TABLE_SUFFIXES = (".parquet", ".csv", ".jsonl")
COMPACT_HINT = 32
"""From this many segments on, ``nearsim index add`` suggests ``nearsim index compact``."""


def index_parser(sub, settings_options, run_fields) -> None:
    """Add ``nearsim index`` and its subcommands to the command line's subparsers."""
    p = sub.add_parser(
        "index",
        help="a persistent index that new documents are checked against",
        description="Build an index of a corpus, add new documents to it (each checked "
        "against everything stored), or query it. The settings are fixed when it is built.",
    )
    verbs = p.add_subparsers(dest="index_command", required=True, parser_class=type(p))

    build = verbs.add_parser("build", help="make a new index of a corpus")
    build.add_argument("inputs", nargs="+", metavar="INPUT", help="files or folders")
    build.add_argument("--index", required=True, metavar="DIR", help="a new or empty folder")
    build.add_argument("--settings", metavar="LINK", help="a Share link or its query string")
    build.add_argument(
        "--keep-texts",
        action="store_true",
        help="also store the texts, so matches can be explained shingle by shingle",
    )
    _reading(build)
    settings_options(build, run_fields)

    add = verbs.add_parser("add", help="add a corpus: each document checked, then stored")
    add.add_argument("index", metavar="DIR", help="the index folder")
    add.add_argument("inputs", nargs="+", metavar="INPUT", help="files or folders")
    add.add_argument(
        "--skip-duplicates",
        action="store_true",
        help="store only the documents with no match (of two copies, the second is not stored)",
    )
    add.add_argument("--out", metavar="FILE", help="write the matches (.parquet, .csv, .jsonl)")
    add.add_argument(
        "--group-field",
        metavar="F",
        help="print documents fetched against stored per value of field F (e.g. the source)",
    )
    add.add_argument(
        "--wait",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="wait this long for another process adding to the index (default: fail at once)",
    )
    _reading(add)

    compact = verbs.add_parser(
        "compact",
        help="merge the index's large segments into one (adds may go on meanwhile)",
    )
    compact.add_argument("index", metavar="DIR", help="the index folder")
    compact.add_argument(
        "--wait",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="wait this long for another compaction (default: fail at once)",
    )
    compact.add_argument("--quiet", action="store_true", help="no summary")

    query = verbs.add_parser("query", help="the matches of a corpus; nothing is stored")
    query.add_argument("index", metavar="DIR", help="the index folder")
    query.add_argument("inputs", nargs="+", metavar="INPUT", help="files or folders")
    query.add_argument("--out", required=True, metavar="FILE", help=".parquet, .csv or .jsonl")
    _reading(query)


def _reading(p: argparse.ArgumentParser) -> None:
    p.add_argument("--text-field", default="text", help="field holding the text (default text)")
    p.add_argument(
        "--id-field",
        default=None,
        help="field holding the id (default: the document's position in the index)",
    )
    p.add_argument(
        "--on-error",
        default="fail",
        choices=("fail", "skip"),
        help="a bad record stops the command (default), or is skipped and counted",
    )
    p.add_argument("--quiet", action="store_true", help="no progress and no summary")


def _check_inputs(paths) -> None:
    from nearsim.cli import UsageError

    for path in paths:
        if not Path(path).exists():
            raise UsageError(f"INPUT {path!r} does not exist; accepted: files or folders")


def _check_out(out: str | None) -> None:
    from nearsim.cli import UsageError

    if out is None:
        return
    if not out.endswith(TABLE_SUFFIXES):
        raise UsageError(
            f"--out {out!r}: accepted: a file name ending in " + ", ".join(TABLE_SUFFIXES)
        )
    if Path(out).is_dir():
        raise UsageError(f"--out {out!r} is a folder; accepted: a file name")


def write_table(frame, out: str) -> None:
    """Write a table by its suffix, under a temporary name renamed when complete."""
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.tmp-{os.getpid()}"
    try:
        if out.endswith(".parquet"):
            frame.to_parquet(tmp, index=False)
        elif out.endswith(".csv"):
            frame.to_csv(tmp, index=False)
        else:
            frame.to_json(tmp, orient="records", lines=True, force_ascii=False)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _say(quiet: bool, text: str) -> None:
    if not quiet:
        print(text, flush=True)


def cmd_index(args: argparse.Namespace) -> int:
    """Run ``nearsim index build | add | query | compact``."""
    if args.index_command == "compact":
        return _compact(args)
    _check_inputs(args.inputs)
    return {"build": _build, "add": _add, "query": _query}[args.index_command](args)


def _compact(args) -> int:
    from nearsim.index.core import Index

    if args.wait < 0:
        from nearsim.cli import UsageError

        raise UsageError(f"--wait {args.wait:g}: accepted: a number of seconds ≥ 0")
    index = Index.open(args.index)
    before = index.segment_count
    rewritten = index.compact(wait=args.wait)
    _say(
        args.quiet,
        f"{args.index}: {before} segments before, {index.segment_count} after; "
        f"{rewritten:,} documents rewritten; the index holds {len(index):,}.",
    )
    return 0


def _build(args) -> int:
    from nearsim.cli import settings_from_args
    from nearsim.index.build import build_index

    settings = settings_from_args(args)
    index, report = build_index(
        args.inputs, args.index, settings, text_field=args.text_field, id_field=args.id_field,
        keep_texts=args.keep_texts, on_error=args.on_error, progress=not args.quiet,
    )  # fmt: skip
    _say(
        args.quiet,
        f"built {args.index}: {len(index):,} documents, {index.disk_bytes() / 1e6:,.1f} MB "
        f"({index.disk_bytes() / max(len(index), 1):,.0f} bytes a document). {report}.",
    )
    return 0


def _open_and_read(args, group_field=None):
    from nearsim.index.build import read_signed
    from nearsim.index.core import Index
    from nearsim.run.progress import Clock

    index = Index.open(args.index)
    signed, groups, report = read_signed(
        args.inputs, index.settings.run_settings(), text_field=args.text_field,
        id_field=args.id_field, group_field=group_field, keep_texts=index.keep_texts,
        on_error=args.on_error, clock=Clock(not args.quiet),
    )  # fmt: skip
    return index, signed, groups, report


def _add(args) -> int:
    import numpy as np

    _check_out(args.out)
    if args.wait < 0:
        from nearsim.cli import UsageError

        raise UsageError(f"--wait {args.wait:g}: accepted: a number of seconds ≥ 0")
    index, signed, groups, report = _open_and_read(args, args.group_field)
    found, names = index.add_signed(signed, skip=args.skip_duplicates, wait=args.wait)
    matched = np.zeros(signed.n, dtype=bool)
    matched[found.row] = True
    stored = found.stored
    if args.out:
        write_table(index._frame(found, names, stored), args.out)
    _say(
        args.quiet,
        f"{signed.n:,} documents read, {int(matched.sum()):,} with a match, "
        f"{int(stored.sum()):,} stored; the index holds {len(index):,}. {report}.",
    )
    if groups is not None and not args.quiet:
        print(group_lines(groups, stored, matched), flush=True)
    if index.segment_count >= COMPACT_HINT:
        _say(
            args.quiet,
            f"the index has {index.segment_count} segments, each a little work for every add "
            f"and query: `nearsim index compact {args.index}` merges the large ones (adds may "
            "go on meanwhile).",
        )
    return 0


def group_lines(groups: list[str], stored, matched) -> str:
    """Fetched against stored per group, as a plain table (a job board's log line)."""
    import numpy as np

    values, inverse = np.unique(np.asarray(groups, dtype=object).astype(str), return_inverse=True)
    fetched = np.bincount(inverse, minlength=values.shape[0])
    kept = np.bincount(inverse, weights=stored, minlength=values.shape[0]).astype(np.int64)
    dup = np.bincount(inverse, weights=matched, minlength=values.shape[0]).astype(np.int64)
    width = max([5, *map(len, values.tolist())])
    lines = [f"{'group':<{width}} {'fetched':>9} {'stored':>9} {'matched':>9} {'stored %':>9}"]
    for v, f, s, d in zip(values.tolist(), fetched, kept, dup, strict=True):
        lines.append(f"{v:<{width}} {f:>9,} {s:>9,} {d:>9,} {100 * s / f:>8.1f}%")
    return "\n".join(lines)


def _few_records(args):
    """The input's (ids, texts, report) when it holds at most ``QUICK_MAX`` records (a
    few documents checked from a script: answered without numba or pandas), else None."""
    from nearsim.index.quick import QUICK_MAX
    from nearsim.io.corpora import iter_corpus

    reader = iter_corpus(
        list(args.inputs), text_field=args.text_field, id_field=args.id_field,
        on_error=args.on_error, batch_size=QUICK_MAX + 1,
    )  # fmt: skip
    batches = reader.lists()
    ids, texts = next(batches, ([], []))
    if len(texts) > QUICK_MAX or next(batches, None) is not None:
        return None  # (longer texts than QUICK_CHARS go the compiled way in Index._found)
    return (ids if args.id_field is not None else None), texts, reader.report.summary()


def write_rows(columns: dict, out: str) -> None:
    """:func:`write_table` for columns of plain values: CSV and JSON lines with the standard
    library (the values pandas writes: NaN empty in CSV, null in JSON, floats to 10 digits
    in JSON; CSV byte for byte), Parquet through pandas."""
    if out.endswith(".parquet"):
        import pandas as pd

        write_table(pd.DataFrame(columns), out)
        return
    import csv
    import json
    import math

    names = list(columns)
    lines = zip(*(columns[c].tolist() if hasattr(columns[c], "tolist") else columns[c]
                  for c in names), strict=True)  # fmt: skip
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.tmp-{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            if out.endswith(".csv"):
                w = csv.writer(f, lineterminator="\n")
                w.writerow(names)
                for line in lines:
                    w.writerow(["" if isinstance(v, float) and math.isnan(v) else v
                                for v in line])  # fmt: skip
            else:
                for line in lines:
                    record = {
                        c: (None if math.isnan(v) else round(v, 10)) if isinstance(v, float) else v
                        for c, v in zip(names, line, strict=True)
                    }
                    f.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _query_few(args, ids, texts, report) -> int:
    from nearsim.index.core import Index

    index = Index.open(args.index)
    found = index._found(texts)
    names = ids if ids is not None else [str(i) for i in range(len(texts))]
    columns = index._columns(found, names, stored=None)
    write_rows(columns, args.out)
    matched = len(set(found.row.tolist()))
    _say(
        args.quiet,
        f"{len(texts):,} documents read, {matched:,} with a match among the index's "
        f"{len(index):,}; wrote {args.out}. {report}.",
    )
    return 0


def _query(args) -> int:
    _check_out(args.out)
    few = _few_records(args)
    if few is not None:
        return _query_few(args, *few)
    index, signed, _, report = _open_and_read(args)
    found = index.query_signed(signed)
    names = signed.ids if signed.ids is not None else [str(i) for i in range(signed.n)]
    frame = index._frame(found, names, stored=None)
    write_table(frame, args.out)
    matched = frame.loc[frame["match_id"] != "", "row"].nunique()
    _say(
        args.quiet,
        f"{signed.n:,} documents read, {matched:,} with a match among the index's "
        f"{len(index):,}; wrote {args.out}. {report}.",
    )
    return 0


def cmd_dedup_against(args: argparse.Namespace, given: dict) -> int:
    """``nearsim dedup NEW --against DIR``: the usual files, against the index.

    ``given``: the run settings the user gave (link and options), checked against the
    index's own.
    """
    from nearsim.cli import UsageError
    from nearsim.index.against import dedup_against
    from nearsim.index.core import Index
    from nearsim.run.outputs import prepare_output, write_outputs
    from nearsim.settings import RunSettings

    if args.engine != "local":
        raise UsageError("--against runs on the local engine; accepted: --engine local")
    if args.verify != "estimate":
        raise UsageError(
            f"--verify {args.verify} with --against: accepted: estimate (the index keeps "
            "signatures, not shingles)"
        )
    index = Index.open(args.against)
    query = {k: [v] for k, v in index.settings.run_settings().to_query().items()}
    query.update(given)
    settings, problems = RunSettings.parse_query(query)
    if problems:
        raise UsageError("; ".join(problems))
    prepare_output(args.out)
    result = dedup_against(
        args.inputs, args.against, settings, text_field=args.text_field, id_field=args.id_field,
        cluster_check=args.cluster_check, on_error=args.on_error,
        group_field=args.group_field, progress=not args.quiet,
    )  # fmt: skip
    files = write_outputs(result, args.out, args.format, progress=not args.quiet)
    s = result.summary()
    _say(
        args.quiet,
        f"{s['documents']:,} documents against {s['against']['index_documents']:,} indexed: "
        f"{s['against']['matched_index']:,} duplicate the index, {s['pairs']:,} pairs, "
        f"{s['removed']:,} documents would be removed. {result.read_report}.",
    )
    if args.group_field:
        from nearsim.cli import _groups_line

        _say(args.quiet, _groups_line(args.group_field, s["removed_by_group"]))
    _say(args.quiet, "wrote " + ", ".join(str(f) for f in files))
    return 0
