"""The ``nearsim`` console script's first lines: process settings made before NumPy loads.

Measured on two cores, ``nearsim dedup`` of 100,000 documents, interleaved runs:

* **Python's cyclic garbage collector is off.** Loading numba, SciPy and pyarrow and
  numba's registries makes about 120,000 objects, and the collector's passes over them
  as they grew (two full, two dozen partial) were 0.28 s of a 3.2 s run; the run went
  from 3.24 to 2.97 s without them (median of eight). The run itself makes almost no
  cyclic garbage, the only kind the collector frees: 43 objects at 100,000 documents. The
  command leaves with ``os._exit`` (:func:`nearsim.cli.entry_point`), so nothing is
  collected at the end either. A Dask run turns the collector back on
  (:func:`nearsim.cli.cmd_dedup`): its client runs an event loop for as long as the
  cluster works.
* **Threads the command never gives work to do not spin.** OpenBLAS starts a pool of
  threads when NumPy loads it, and another for SciPy's copy, which spin before they
  sleep; nothing the command does calls BLAS (the tuner's few vector products are too
  small for threads). numba's parallel kernels run on GNU OpenMP, whose threads spin
  after each kernel, waiting for the next, while the main thread parses the next batch.
  ``OPENBLAS_NUM_THREADS=1`` and ``OMP_WAIT_POLICY=PASSIVE`` cut the run's CPU time from
  3.83 to 3.40 s, and its wall time from 3.99 to 3.77 s with another process busy on one
  core (no difference on an idle machine). A value the user set is kept; both are read
  when the libraries load, hence here, before :mod:`nearsim.cli` imports NumPy; a Dask
  run's worker processes inherit them.
"""

from __future__ import annotations

import gc
import os


def prepare() -> None:
    """The process settings above: the collector off, the idle thread pools quiet."""
    gc.disable()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def entry_point() -> None:  # pragma: no cover - the console script
    """:func:`prepare`, then :func:`nearsim.cli.entry_point`."""
    prepare()
    from nearsim.cli import entry_point as run

    run()
