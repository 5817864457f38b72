"""The ``nearsim`` command: ``nearsim dedup``, ``nearsim app``, ``nearsim tune``, ``nearsim
index`` (its handlers in :mod:`nearsim.index.commands`).

Built on the standard library's :mod:`argparse` (no dependency to install): every
Settings field is an option made from its :data:`nearsim.settings.FIELD_SPECS` entry
(name, help text, accepted values, default), so the command line, the explorer's widgets
and the Share link cannot drift apart. ``--settings`` takes a whole Share link (or its
query string); options given beside it override it.

A bad option, value or input exits with status 2 and one line on stderr saying what was
wrong and what is accepted; ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from nearsim.run.options import FORMATS, MAX_CANDIDATES, VERIFY
from nearsim.settings import FIELD_SPECS, RUN_FIELDS, RunSettings

PROG = "nearsim"
_ENGINES = ("local", "dask")


class UsageError(Exception):
    """Something the user gave cannot be used: exit status 2 with this one line."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (argparse prints its usage block first)."""

    def error(self, message: str):
        raise UsageError(f"{message} (see {self.prog} --help)")


def _settings_options(parser: argparse.ArgumentParser, names: Sequence[str]) -> None:
    group = parser.add_argument_group(
        "settings", "each is also a key of the Share link; the defaults are the explorer's"
    )
    for name in names:
        spec = FIELD_SPECS[name]
        metavar = {"bool": "true|false", "choice": "|".join(spec.choices)}.get(spec.kind)
        group.add_argument(
            spec.option,
            dest=f"setting_{name}",
            metavar=metavar or spec.kind.upper(),
            default=None,
            help=f"{spec.help} Accepted: {spec.accepted()}. Default: {spec.format(spec.default)}.",
        )


def _link_query(link: str) -> dict[str, list[str]]:
    """The query of a Share link, of a bare query string, or ``{}``."""
    text = link.strip()
    if "?" in text:
        text = urlsplit(text).query if "://" in text else text.split("?", 1)[1]
    return parse_qs(text, keep_blank_values=True)


def settings_from_args(args: argparse.Namespace, names: Sequence[str] = RUN_FIELDS):
    """The run settings of ``--settings LINK`` overridden by the options given beside it.

    A link's explorer-only values (the document source, the Example's size and seed, the
    SimHash distance) are ignored: they do not change a run.

    Raises
    ------
    UsageError
        A value that cannot be used (all problems in one line).
    """
    settings, problems = RunSettings.parse_query(given_query(args, names))
    if problems:
        raise UsageError("; ".join(_plain(p) for p in problems))
    return settings


def given_query(args: argparse.Namespace, names: Sequence[str] = RUN_FIELDS) -> dict:
    """The settings the user gave: ``--settings LINK``'s query, overridden by the options."""
    query = _link_query(args.settings) if getattr(args, "settings", None) else {}
    for name in names:
        value = getattr(args, f"setting_{name}", None)
        if value is not None:
            query[name] = [value]
    return query


def _plain(problem: str) -> str:
    """A problem from ``parse_query`` in command-line words: options, not query keys, and
    nothing about the default a link would fall back to (the command stops instead)."""
    for name, spec in FIELD_SPECS.items():
        if problem.startswith(name):
            problem = spec.option + problem[len(name) :]
            break
    problem = re.sub(r"; using (the default \S+|bands = \d+ and rows = \d+)$", "", problem)
    return problem.replace("add auto_tune=false", "add --auto-tune false")


def _dedup_parser(sub) -> None:
    p = sub.add_parser(
        "dedup",
        help="find the near duplicates of a whole corpus and write clusters and pairs",
        description="Apply the settings to a whole corpus: read it in batches, sign, band, "
        "verify, cluster, and write clusters.<fmt>, pairs.<fmt> and summary.json to --out.",
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="files or folders of the corpus")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for the output files")
    p.add_argument("--settings", metavar="LINK", help="a Share link or its query string")
    p.add_argument("--text-field", default="text", help="field holding the text (default text)")
    p.add_argument("--id-field", default=None, help="field holding the id (default: row number)")
    p.add_argument(
        "--verify",
        default="estimate",
        choices=VERIFY,
        help="accept a candidate when its MinHash estimate, or its exact Jaccard, reaches the "
        "threshold; or always (default estimate)",
    )
    p.add_argument(
        "--cluster-check",
        default=False,
        type=_flag("--cluster-check"),
        metavar="true|false",
        help="compare every member of a cluster with the document kept in its place (the "
        "estimate, or the exact Jaccard with --verify exact); members below the threshold "
        "leave and are clustered again among themselves (default false)",
    )
    p.add_argument(
        "--max-candidates",
        type=_count("--max-candidates"),
        default=MAX_CANDIDATES,
        metavar="N",
        help="memory guard: stop before banding makes more candidate pairs than this, "
        f"about 40 bytes each (default {MAX_CANDIDATES:,})",
    )
    p.add_argument(
        "--group-field",
        metavar="F",
        help="count documents and removals per value of field F (summary.json: "
        "removed_by_group)",
    )
    p.add_argument(
        "--keep-apart",
        metavar="F",
        help="never accept a pair whose two documents have the same non-empty value of field F",
    )
    p.add_argument("--format", default="parquet", choices=FORMATS, help="default parquet")
    p.add_argument(
        "--on-error",
        default="fail",
        choices=("fail", "skip"),
        help="a bad record stops the run (default), or is skipped and counted",
    )
    p.add_argument("--engine", default="local", choices=_ENGINES)
    p.add_argument("--scheduler", metavar="ADDRESS", help="a running Dask scheduler (dask)")
    p.add_argument(
        "--workers",
        type=int,
        default=2,
        metavar="N",
        help="worker processes of a local Dask cluster (dask, default 2)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress and no summary")
    p.add_argument(
        "--against",
        metavar="DIR",
        help="an index (nearsim index build): the input is deduplicated against it and among "
        "itself; nothing is stored, and the settings are the index's",
    )
    _settings_options(p, RUN_FIELDS)


def _flag(option: str):
    """An argparse type reading true/false (also yes/no, on/off, 1/0)."""

    def parse(text: str) -> bool:
        lowered = text.strip().lower()
        if lowered in ("true", "yes", "on", "1"):
            return True
        if lowered in ("false", "no", "off", "0"):
            return False
        raise argparse.ArgumentTypeError(f"{option} {text!r}: accepted: true or false")

    return parse


def _count(option: str):
    """An argparse type reading a positive integer (digits, with optional _ or ,)."""

    def parse(text: str) -> int:
        digits = text.strip().replace("_", "").replace(",", "")
        if not digits.isdigit() or int(digits) < 1:
            raise argparse.ArgumentTypeError(f"{option} {text!r}: accepted: an integer ≥ 1")
        return int(digits)

    return parse


def _app_parser(sub) -> None:
    p = sub.add_parser("app", help="start the explorer (needs the app extra)")
    p.add_argument("inputs", nargs="*", metavar="INPUT", help="a corpus to open (sampled)")
    p.add_argument("--text-field", default="text")
    p.add_argument("--id-field", default=None)
    p.add_argument("--port", type=int, default=8501)
    p.add_argument("--headless", action="store_true", help="do not open a browser")
    p.add_argument("--index", metavar="DIR", help="an index to query on the Query page")


def _tune_parser(sub) -> None:
    p = sub.add_parser("tune", help="the tuner's best eight bands × rows for a threshold")
    _settings_options(p, ("threshold", "num_perm", "fp_weight", "sketch"))


def build_parser() -> argparse.ArgumentParser:
    """The ``nearsim`` argument parser (subcommands dedup, app, tune, index, audit)."""
    parser = _Parser(prog=PROG, description="Choose, check and apply near-duplicate settings.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _dedup_parser(sub)
    _app_parser(sub)
    _tune_parser(sub)
    from nearsim.index.commands import index_parser  # argparse only: no library loaded

    index_parser(sub, _settings_options, RUN_FIELDS)
    from nearsim.audit.command import audit_parser

    audit_parser(sub)
    return parser


# -- the commands ------------------------------------------------------------------------
def _say(quiet: bool, text: str) -> None:
    if not quiet:
        print(text, flush=True)


def cmd_dedup(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    for path in args.inputs:
        if not Path(path).exists():
            raise UsageError(f"INPUT {path!r} does not exist; accepted: files or folders")
    if args.against is not None:
        if args.keep_apart:
            raise UsageError(
                "--keep-apart with --against: the index keeps no field values, so a new "
                "document's pair with an indexed one cannot be checked; accepted: the stored "
                "and the new files in one run (nearsim dedup OLD NEW --keep-apart F), or "
                "--against without --keep-apart"
            )
        from nearsim.index.commands import cmd_dedup_against

        return cmd_dedup_against(args, given_query(args))
    if args.engine == "local" and args.scheduler is not None:
        raise UsageError("--scheduler is for --engine dask; accepted: --engine dask")
    fields = {"group_field": args.group_field, "keep_apart": args.keep_apart}
    common = {
        "text_field": args.text_field,
        "id_field": args.id_field,
        "verify": args.verify,
        "cluster_check": args.cluster_check,
        "on_error": args.on_error,
        "max_candidates": args.max_candidates,
        "progress": not args.quiet,
    }
    from nearsim.run.outputs import prepare_output, write_outputs

    prepare_output(args.out)
    if args.engine == "dask":
        from nearsim.run.dask_engine import dedup_dask

        gc.enable()  # off in the console script (nearsim._console); a client runs an event loop
        # the workers write the tables (folders of parts): the client holds no per-document data
        result = dedup_dask(
            args.inputs, settings, scheduler=args.scheduler, workers=args.workers,
            out=args.out, fmt=args.format, **common, **fields,
        )  # fmt: skip
        files, s = result.files, result.summary
    else:
        from nearsim.run.local import dedup

        result = dedup(args.inputs, settings, **common, **fields)
        files = write_outputs(result, args.out, args.format, progress=not args.quiet)
        s = result.summary()
    checked = f", {s['split_off']:,} split off by the member check" if args.cluster_check else ""
    if args.keep_apart:
        checked += f", {s['kept_apart']:,} pairs kept apart by {args.keep_apart!r}"
    _say(
        args.quiet,
        f"{s['documents']:,} documents ({s['without_signature']:,} without a signature, "
        f"{s['exact_duplicates']:,} exact copies), {s['candidates']:,} candidate pairs, "
        f"{s['pairs']:,} accepted ({args.verify}), {s['clusters']:,} clusters{checked}; "
        f"{s['removed']:,} documents would be removed. {result.read_report}.",
    )
    if args.group_field:
        _say(args.quiet, _groups_line(args.group_field, s["removed_by_group"]))
    _say(args.quiet, "wrote " + ", ".join(str(f) for f in files))
    return 0


def _groups_line(field: str, groups: dict, shown: int = 10) -> str:
    """Removals per group in one line: the groups with the most documents first."""
    parts = [
        f"{value or '(empty)'} {g['removed']:,}/{g['documents']:,}"
        for value, g in list(groups.items())[:shown]
    ]
    more = f", and {len(groups) - shown:,} more" if len(groups) > shown else ""
    return f"removed/documents per {field}: " + ", ".join(parts) + more


def cmd_tune(args: argparse.Namespace) -> int:
    from nearsim.lsh import candidate_probability, tune

    settings = settings_from_args(args, ("threshold", "num_perm", "fp_weight", "sketch"))
    t, k, w, sk = settings.threshold, settings.num_perm, settings.fp_weight, settings.sketch
    choices = tune(t, k, w, 1.0 - w, sketch=sk)[:8]
    curve = "" if sk == "minhash" else ", under SuperMinHash's own curve"
    print(f"The best eight of b bands × r rows (b·r ≤ {k}) for t = {t:g}, fp weight {w:g}{curve}:")
    print(f"{'rank':>4} {'bands':>5} {'rows':>4} {'FP area':>10} {'FN area':>10} {'P(t)':>7}")
    for rank, c in enumerate(choices, start=1):
        p = candidate_probability(t, c.b, c.r, sketch=sk, num_perm=k)
        print(f"{rank:>4} {c.b:>5} {c.r:>4} {c.fp:>10.5f} {c.fn:>10.5f} {p:>7.3f}")
    return 0


def app_script() -> Path:
    """The explorer's main script, ``nearsim_app/explorer/main.py`` (the app extra ships
    it)."""
    spec = importlib.util.find_spec("nearsim_app")
    if spec is None or spec.origin is None:
        raise UsageError("the explorer is not installed; accepted: pip install 'nearsim[app]'")
    return Path(spec.origin).resolve().parent / "explorer" / "main.py"


def cmd_app(args: argparse.Namespace) -> int:
    # looked up, not imported: the library never imports Streamlit (the app runs apart)
    if importlib.util.find_spec("streamlit") is None:
        raise UsageError("the explorer needs Streamlit; accepted: pip install 'nearsim[app]'")
    for path in args.inputs:
        if not Path(path).exists():
            raise UsageError(f"INPUT {path!r} does not exist; accepted: files or folders")
    script = app_script()
    # ``streamlit run`` with the library warming up beside the server (pages/explorer/serve.py)
    cmd = [sys.executable, "-m", "nearsim_app.explorer.serve", str(script)]
    cmd += ["--server.port", str(args.port)]
    # what .streamlit/config.toml says, also when nearsim is installed without the repository:
    # this computer only, no usage statistics
    cmd += ["--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
    # and why: no file watcher, no full garbage collection after every run
    cmd += ["--server.fileWatcherType", "none", "--runner.postScriptGC", "false"]
    if args.headless:
        cmd += ["--server.headless", "true"]
    extra = []
    if args.inputs:
        extra += ["--corpus", *map(os.path.abspath, args.inputs), "--text-field", args.text_field]
        if args.id_field:
            extra += ["--id-field", args.id_field]
    if args.index is not None:
        from nearsim.index.core import Index

        Index.open(args.index)  # a missing or foreign folder: exit 2 before the server starts
        extra += ["--index", os.path.abspath(args.index)]
    if extra:
        cmd += ["--", *extra]
    return subprocess.call(cmd, cwd=script.parent)


def cmd_index(args: argparse.Namespace) -> int:
    from nearsim.index.commands import cmd_index as run

    return run(args)


def cmd_audit(args: argparse.Namespace) -> int:
    from nearsim.audit.command import cmd_audit as run

    return run(args)


COMMANDS = {
    "dedup": cmd_dedup, "tune": cmd_tune, "app": cmd_app, "index": cmd_index, "audit": cmd_audit,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0, 2 for bad input, 130 interrupted)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    try:
        args = build_parser().parse_args(argv)
        return COMMANDS[args.command](args)
    except UsageError as exc:
        if debug:
            raise
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:  # the library refused the input: it says what and why
        if debug:
            raise
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader of our output went away (nearsim tune | head -1)
        return 1
    except OSError as exc:  # a file that cannot be read or written
        if debug:
            raise
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except MemoryError:
        print(
            f"{PROG}: error: out of memory; use fewer documents per run, more rows per band "
            "or a Dask cluster (--engine dask)",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; no output file was completed", file=sys.stderr)
        return 130


def entry_point() -> None:  # pragma: no cover - the console script
    """The ``nearsim`` console script: :func:`main`, then exit without the teardown.

    By the time :func:`main` returns, every output file is written, closed and renamed
    into place. What is left for the interpreter's normal exit is to free numba's compiled
    kernels and pandas' and SciPy's modules one by one, about 0.3 s of a 3 s ``dedup`` of
    100,000 documents. So the console script flushes its two streams and leaves with
    ``os._exit``. A run that started Dask exits normally, so that distributed's own exit
    handlers still see to anything it started. If the output cannot be flushed because
    its reader went away, the status is 1 (Python's advice for a broken pipe) and there
    is no "Exception ignored" message.
    """
    status = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # the reader went away (nearsim tune | head -1): the output is lost
        status = status or 1
    if "distributed" in sys.modules:
        sys.exit(status)
    os._exit(status)
