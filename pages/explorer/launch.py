"""What the explorer was started with, and where uploaded corpus files are kept.

``nearsim app corpus.jsonl --text-field body`` runs ``streamlit run app.py -- --corpus
corpus.jsonl --text-field body``; Streamlit hands the arguments after ``--`` to the script
as ``sys.argv``. An uploaded JSON lines or Parquet file is saved, under its own name, in a
folder of this computer's temporary directory that the server removes when it stops, so
the corpus readers can stream it like any other file.
"""

from __future__ import annotations

import argparse
import atexit
import functools
import hashlib
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CorpusArguments:
    """The corpus given on the command line (empty paths: none)."""

    paths: tuple[str, ...] = ()
    text_field: str = "text"
    id_field: str | None = None


@functools.cache
def corpus_arguments() -> CorpusArguments:
    """``--corpus PATH... --text-field F --id-field I`` from the script's arguments."""
    parser = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    parser.add_argument("--corpus", nargs="*", default=[])
    parser.add_argument("--text-field", default="text")
    parser.add_argument("--id-field", default=None)
    try:
        args, _ = parser.parse_known_args(sys.argv[1:])
    except argparse.ArgumentError:
        return CorpusArguments()
    return CorpusArguments(tuple(args.corpus), args.text_field, args.id_field)


@functools.cache
def index_argument() -> str | None:
    """``--index DIR`` from the script's arguments (``nearsim app --index DIR``): an index the
    Query page can look up, or None."""
    parser = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    parser.add_argument("--index", default=None)
    try:
        args, _ = parser.parse_known_args(sys.argv[1:])
    except argparse.ArgumentError:
        return None
    return args.index


@functools.cache
def _upload_dir() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="nearsim-uploads-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def save_upload(name: str, data: bytes) -> str:
    """Keep an uploaded file on disk under its own name; return its path.

    The same bytes always land at the same path, so the reading caches stay warm.
    """
    safe = Path(name).name or "upload"
    folder = _upload_dir() / hashlib.sha256(data).hexdigest()[:16]
    folder.mkdir(exist_ok=True)
    path = folder / safe
    if not path.exists():
        path.write_bytes(data)
    return str(path)
