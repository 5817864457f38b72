"""The values ``nearsim dedup``'s ``--verify`` and ``--format`` accept, and a run's limits.

Apart from :mod:`nearsim.dedup` so that the command line can list them (``nearsim
--help``, a one-line error for a bad value) without loading the engine, and so that
:mod:`nearsim.export`, which writes ``nearsim dedup`` commands, names the same ones.
"""

from __future__ import annotations

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
