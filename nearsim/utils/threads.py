"""Running compiled kernels on a few threads.

The kernels of the exact join and of interning are compiled with ``nogil=True``, so plain
Python threads run them in parallel; this keeps the work split explicit (contiguous or
interleaved chunks) and the results in a known order, which ``prange`` does not.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba


def threads() -> int:
    """How many threads to use: numba's setting, at most the machine's cores."""
    return max(1, min(numba.get_num_threads(), os.cpu_count() or 1))


def pool_map(fn: Callable[[Any], Any], items: Sequence[Any], workers: int) -> list:
    """``[fn(x) for x in items]``, on ``workers`` threads when there is more than one."""
    if workers <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(fn, items))
