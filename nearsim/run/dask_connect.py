"""The Dask engine's cluster: a LocalCluster of worker processes, or a running scheduler
checked before a ``distributed.Client`` is made for it (reachable, with workers that can
import nearsim). Public ``distributed`` APIs only: ``LocalCluster``, ``Client``,
``distributed.comm.connect``.
"""

from __future__ import annotations

import contextlib
import logging
import os

from nearsim.run.progress import Clock
from nearsim.utils.validation import check_int


def _nearsim_here() -> str:
    """Run in each worker: proves it can import nearsim (this function lives there)."""
    import nearsim

    return os.path.dirname(nearsim.__file__)


DASK_LOST_WORKER_DEFAULT = "15s"
LOST_WORKER_TIMEOUT = "300s"
"""How long a LocalCluster waits for a dead worker's replacement before closing its nanny."""


def local_cluster(workers: int = 2, memory_limit: str | int = "auto"):
    """The ``distributed.LocalCluster`` the engine starts without a scheduler.

    Parameters
    ----------
    workers : int
        Worker processes (≥ 1), one task thread each; the compiled kernels' own threads
        share the cores among the workers (``NUMBA_NUM_THREADS``).
    memory_limit : str or int
        Each worker's memory limit, as ``LocalCluster`` takes it ("auto": the machine's
        memory over the workers; "6GiB"; bytes). Past 70% of it a worker spills held
        results (the signatures' partitions among them) to its local disk, past 80% it
        pauses new tasks (``distributed.worker.memory``).

    Returns
    -------
    distributed.LocalCluster
        Its dashboard on a free port; only errors logged.

    Notes
    -----
    A worker that dies (killed for its memory, say) is started again by its nanny, but a
    LocalCluster closes that nanny for good if no worker of the same name has come back
    within ``distributed.deploy.lost-worker-timeout`` (15 s by default). A fresh worker
    imports NumPy, numba's kernels and nearsim, which took over 15 s on two busy cores: the
    run went on with one worker fewer. Unless set otherwise, that timeout is raised to
    LOST_WORKER_TIMEOUT for this process.
    """
    import dask
    from distributed import LocalCluster

    workers = check_int(workers, "workers", low=1)
    key = "distributed.deploy.lost-worker-timeout"
    if dask.config.get(key) == DASK_LOST_WORKER_DEFAULT:
        dask.config.set({key: LOST_WORKER_TIMEOUT})
    threads = max(1, (os.cpu_count() or 1) // workers)
    return LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        silence_logs=logging.ERROR,
        env={"NUMBA_NUM_THREADS": str(threads)},
        memory_limit=memory_limit,
    )


@contextlib.contextmanager
def connect(scheduler: str | None, workers: int, timeout: float, clock: Clock):
    """A ``distributed.Client``: to ``scheduler``, or to a new LocalCluster closed after."""
    from distributed import Client

    if scheduler is None:
        with clock.stage("connect", f"starting a local Dask cluster of {workers} workers"):
            cluster = local_cluster(workers)
            client = Client(cluster)
        try:
            yield client
        finally:
            client.close()
            cluster.close()
        return
    with clock.stage("connect", f"connecting to the Dask scheduler at {scheduler}"):
        reason = _unreachable(scheduler, timeout)
        client = None
        if reason is None:
            try:
                client = Client(scheduler, timeout=timeout)
            except (OSError, ValueError, TypeError) as exc:  # it went away in between
                reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if client is None:
            raise ValueError(
                f"the Dask scheduler at {scheduler!r} cannot be reached ({reason}); "
                "accepted: the address of a running scheduler, like tcp://127.0.0.1:8786"
            )
    try:
        _check_workers(client, scheduler, timeout)
        yield client
    finally:
        client.close()


def _unreachable(address: str, timeout: float) -> str | None:
    """Why the scheduler at ``address`` cannot be reached, or None when it answers.

    Asked with ``distributed.comm.connect`` on an event loop of our own, closed after:
    a ``Client`` whose constructor fails keeps its event-loop thread running (distributed
    2026.8), and its late clean-up could break the next Client, so a Client is only made
    for an address that answered.
    """
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from distributed.comm import connect

    async def probe() -> None:
        comm = await connect(address, timeout=timeout)
        await comm.close()

    try:  # in a thread of its own: the caller may already run an event loop (a notebook)
        with ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, probe()).result()
    except Exception as exc:  # any failure to connect is the user's address or network
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return text
    return None


def _check_workers(client, scheduler: str, timeout: float) -> None:
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise ValueError(
            f"the Dask scheduler at {scheduler!r} has no workers after {timeout:g} s; "
            f"accepted: a scheduler with workers (dask worker {scheduler})"
        ) from None
    try:
        client.run(_nearsim_here)
    except Exception as exc:
        raise ValueError(
            f"the workers of the Dask scheduler at {scheduler!r} cannot import nearsim "
            f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}); "
            "accepted: workers started where nearsim is installed"
        ) from None
