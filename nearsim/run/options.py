"""What a corpus run accepts: ``--verify`` and ``--format`` values, its limits, and the
checks both engines apply to their paths and settings.

Apart from :mod:`nearsim.run.local` so that the command line can list them (``nearsim
--help``, a one-line error for a bad value) without loading the engine, and so that
:mod:`nearsim.explore.export`, which writes ``nearsim dedup`` commands, names the same ones.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from nearsim.settings import RunSettings
from nearsim.utils.validation import check_instance

VERIFY = ("estimate", "exact", "none")
"""Which candidates are kept: MinHash estimate ≥ t, exact Jaccard ≥ t, or all."""
FORMATS = ("parquet", "csv", "jsonl")
"""The output tables' file format."""
MAX_CANDIDATES = 20_000_000
"""A run's memory guard (``--max-candidates``): banding that would give more distinct
candidate pairs stops before allocating them (about 40 bytes a candidate: 0.8 GB)."""
BUCKET_LIMIT = 100
"""A band bucket of more distinct documents gives only 2m − 3 pairs: its first member with
every other, and each member with the next (:func:`nearsim.candidate_pairs`'s
``bucket_limit``). The README measures what this changes against all pairs of the bucket."""


def check_paths(paths) -> list:
    """One path or an iterable of paths, as a list (``ValueError`` for anything else)."""
    if isinstance(paths, str | os.PathLike):
        return [paths]
    if not isinstance(paths, Iterable):
        raise ValueError(f"paths={paths!r} is not accepted; accepted: a path or a list of paths")
    return list(paths)


def run_settings(settings) -> RunSettings:
    """The run settings of ``settings`` (default ``RunSettings()``); a ``Settings``
    (the explorer's) gives its run part."""
    if settings is None:
        return RunSettings()
    settings = check_instance(settings, "settings", RunSettings, "a nearsim RunSettings")
    return settings if type(settings) is RunSettings else settings.run_settings()


def too_many_candidates(max_candidates: int) -> str:
    """The advice when banding would pass the candidate limit."""
    return (
        f"banding would give more than {max_candidates:,} candidate pairs, the memory guard "
        "of a run (about 40 bytes a candidate); raise it with --max-candidates N "
        "(max_candidates=N in the library), or use more rows per band"
    )
