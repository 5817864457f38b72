"""Helpers every layer uses: argument validation (scalars in
:mod:`~nearsim.utils.validation`, arrays in :mod:`~nearsim.utils.validation_arrays`), pair
codes and growing arrays (:mod:`~nearsim.utils.arrays`), and the thread pool of the
compiled kernels (:mod:`~nearsim.utils.threads`)."""
