"""Audit a finished deduplication — nearsim's or another tool's — against exact Jaccard on
a sample: ``nearsim audit`` (:mod:`~nearsim.audit.command`), :func:`nearsim.audit.run.audit`.

- :mod:`~nearsim.audit.clusters`: the run's labels (nearsim's folder or another tool's table)
- :mod:`~nearsim.audit.tokens`: documents as sets of 64-bit shingle hashes
- :mod:`~nearsim.audit.pairs`: the recall sample's pairs (exact join above the floor, a
  uniform draw below)
- :mod:`~nearsim.audit.measure`: the samples and the one pass over the corpus
- :mod:`~nearsim.audit.estimates`: the intervals
- :mod:`~nearsim.audit.run`: the audit's figures and alarms, ``audit.json``
- :mod:`~nearsim.audit.report`: the self-contained HTML report
"""
