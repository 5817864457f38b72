"""Runs over whole corpora: ``nearsim dedup`` on one machine or on a Dask cluster.

- :mod:`~nearsim.run.options`: what a run accepts (verification, formats, its limits) and
  the checks both engines apply to their arguments — light enough for ``nearsim --help``.
- :mod:`~nearsim.run.signing`: the row stages of a batch of documents (validity,
  signatures, copy keys), which both engines run.
- :mod:`~nearsim.run.result`: :class:`~nearsim.run.result.DedupResult`, what a run found;
  :mod:`~nearsim.run.outputs` writes it (``clusters``, ``pairs``, ``summary.json``, each
  whole or not at all).
- :mod:`~nearsim.run.progress`: stage timing and progress lines.
- :mod:`~nearsim.run.local`: the local engine; :mod:`~nearsim.run.dask_engine` (with
  :mod:`~nearsim.run.dask_connect`, :mod:`~nearsim.run.dask_read`,
  :mod:`~nearsim.run.dask_pairs`, :mod:`~nearsim.run.dask_clusters`,
  :mod:`~nearsim.run.dask_components` and :mod:`~nearsim.run.dask_resume`) the Dask engine. Each
  depends on the shared modules above, never on the other.
"""
