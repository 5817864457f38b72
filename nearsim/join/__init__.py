"""Exact ground truth: the similarity join and the pair questions around it.

- :mod:`~nearsim.join.exact`: the exact threshold rule, ``exact_pairs`` (all pairs, or a
  PPJoin-style join with prefix, length and positional filters), ``pair_jaccard``,
  ``join_funnel``; its compiled kernels in ``_kernels``.
- :mod:`~nearsim.join.tokens`: ``TokenSets``, shingles interned once as integer ids ranked
  by document frequency (kernels in ``_intern``).
- :mod:`~nearsim.join.overlap`: exact overlaps of chosen pairs straight from the shingles'
  bytes, without interning (``nearsim dedup --verify exact``).
- :mod:`~nearsim.join.sample`: ``similarity_sample``, pairs over the whole similarity range,
  each with the corpus pairs it stands for.
"""
