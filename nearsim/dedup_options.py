"""The values ``nearsim dedup``'s ``--verify`` and ``--format`` accept.

Apart from :mod:`nearsim.dedup` so that the command line can list them (``nearsim
--help``, a one-line error for a bad value) without loading the engine, and so that
:mod:`nearsim.export`, which writes ``nearsim dedup`` commands, names the same ones.
"""

from __future__ import annotations

VERIFY = ("estimate", "exact", "none")
"""Which candidates are kept: MinHash estimate ≥ t, exact Jaccard ≥ t, or all."""
FORMATS = ("parquet", "csv", "jsonl")
"""The output tables' file format."""
