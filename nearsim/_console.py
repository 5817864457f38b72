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
* **NumPy does not ask for transparent huge pages** (``NUMPY_MADVISE_HUGEPAGE=0``, a
  setting NumPy documents and reads when it loads). NumPy advises the kernel to back every
  array of 4 MB or more with 2-MB pages. On the virtual machine measured here a fresh
  66-MB array took 0.20 s to touch the first time and 0.008 s the next: a free 2-MB block
  seems to be given back to the host and fetched anew when a huge page is made of it
  (free page reporting works in such blocks), where small pages come from memory the
  process has just freed. The commands allocate many large short-lived arrays (hash sets,
  postings, a group's shingles). On two cores, medians of five interleaved runs:
  ``nearsim audit`` of a 10⁶-document run 2.3–2.6 → 1.8–1.9 s (its system time 0.8–1.3 →
  0.4 s), ``nearsim dedup`` of 10⁶ news items 7.44 → 7.30 s, of a 10⁵-document crawl
  1.45 → 1.35 s, of 12,000 installed documents 2.74 → 2.38 s. A value the user set is
  kept.
"""

from __future__ import annotations

import gc
import os


def prepare() -> None:
    """The process settings above: the collector off, the idle thread pools quiet, NumPy's
    arrays on ordinary pages."""
    gc.disable()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")


def entry_point() -> None:  # pragma: no cover - the console script
    """:func:`prepare`, then :func:`nearsim.cli.entry_point`."""
    prepare()
    from nearsim.cli import entry_point as run

    run()
