"""The ``nearsim audit`` subcommand: its options and its handler (registered by
:mod:`nearsim.cli`). Imports nothing heavy until it runs."""

from __future__ import annotations

import argparse
import sys


def audit_parser(sub) -> None:
    """Add ``audit`` to the ``nearsim`` subcommands."""
    p = sub.add_parser(
        "audit",
        help="measure a finished deduplication (nearsim's or another tool's) on a sample",
        description="Measure a finished deduplication against exact Jaccard on a sample: "
        "precision and recall with 95% intervals, removal per group, cluster sizes, the "
        "largest clusters with their least similar member, and alarms. Writes audit.json and "
        "report.html to --out.",
    )
    p.add_argument("--corpus", nargs="+", required=True, metavar="INPUT",
                   help="the documents the run read, in the same order")  # fmt: skip
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--run", metavar="DIR", help="the --out folder of `nearsim dedup`")
    which.add_argument("--clusters", metavar="FILE",
                       help="another tool's table of document id and cluster")  # fmt: skip
    p.add_argument("--cluster-field", metavar="F", help="the cluster column of --clusters")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for audit.json and report")
    p.add_argument("--text-field", default="text", metavar="F", help="default text")
    p.add_argument("--id-field", default=None, metavar="F",
                   help="the documents' id (in the corpus and in --clusters)")  # fmt: skip
    p.add_argument("--group-field", metavar="F", help="removal per value of field F")
    p.add_argument("--keep-apart", metavar="F",
                   help="name clusters joining two documents with the same value of F")  # fmt: skip
    p.add_argument("--sample", default="2000", metavar="N",
                   help="removed documents checked for precision; recall compares about "
                   "sqrt(N x documents) documents with each other (default 2000)")  # fmt: skip
    p.add_argument("--seed", default="0", metavar="S", help="seed of the samples (default 0)")
    p.add_argument(
        "--threshold",
        default=None,
        metavar="T",
        help="a true duplicate pair has Jaccard ≥ T (default: the run's, else 0.8)",
    )
    p.add_argument("--settings", metavar="LINK",
                   help="the shingling of another tool's run, as a Share link or query "
                   "(default: the run's own, else the defaults)")  # fmt: skip
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")


def _number(text: str, option: str, kind):
    from nearsim.cli import UsageError

    try:
        return kind(text)
    except ValueError:
        accepted = "an integer" if kind is int else "a number"
        raise UsageError(f"{option} {text!r} is not accepted; accepted: {accepted}") from None


def cmd_audit(args: argparse.Namespace) -> int:
    """Run ``nearsim audit``; exit status 0."""
    from pathlib import Path

    from nearsim.cli import UsageError, settings_from_args

    for path in args.corpus:
        if not Path(path).exists():
            raise UsageError(f"--corpus {path!r} does not exist; accepted: files or folders")
    if args.clusters is not None and args.cluster_field is None:
        raise UsageError("--clusters needs --cluster-field F (the table's cluster column)")
    if args.run is not None and args.cluster_field is not None:
        raise UsageError("--cluster-field is for --clusters; accepted: --clusters FILE")
    sample = _number(args.sample, "--sample", int)
    seed = _number(args.seed, "--seed", int)
    threshold = None if args.threshold is None else _number(args.threshold, "--threshold", float)
    settings = settings_from_args(args, ()) if args.settings else None
    from nearsim.audit.run import audit, write_audit

    def progress(stage: str, rows: int) -> None:
        if not args.quiet and rows % 100_000 < 10_000:
            what = "ids read" if stage == "ids" else "documents audited"
            print(f"nearsim: {what}: {rows:,}", file=sys.stderr, flush=True)

    result = audit(
        args.corpus,
        run=args.run,
        clusters=args.clusters,
        cluster_field=args.cluster_field,
        text_field=args.text_field,
        id_field=args.id_field,
        group_field=args.group_field,
        keep_apart=args.keep_apart,
        sample=sample,
        seed=seed,
        threshold=threshold,
        settings=settings,
        progress=progress,
    )
    files = write_audit(result, args.out)
    if not args.quiet:
        p, r = result["precision"], result["recall"]

        def show(iv) -> str:
            if iv["estimate"] is None:
                return "not measured (nothing to sample)"
            return f"{iv['estimate']:.3f} (95% {iv['low']:.3f}–{iv['high']:.3f})"

        print(f"precision {show(p)}, recall {show(r)} at Jaccard ≥ {result['threshold']:g}; "
              f"{result['removed']['removed']:,} of {result['removed']['documents']:,} "
              "documents removed")  # fmt: skip
        for alarm in result["alarms"]:
            print("alarm: " + alarm)
        print("wrote " + ", ".join(str(f) for f in files))
    return 0
