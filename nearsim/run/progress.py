"""What a corpus run says while it works: stage lines, progress, wall and CPU time per stage.

On a terminal, progress is a tqdm bar redrawn in place. Anywhere else (a Slurm log, a
pipe, a file) a redrawn bar is noise — ``0docs [00:00, ?docs/s]`` and one line per update,
joined by carriage returns — so progress there is plain lines: one when a stage starts,
and at most one every :data:`LOG_EVERY` seconds while it goes.
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager

from tqdm import tqdm

LOG_EVERY = 10.0
"""Seconds between two progress lines when stderr is not a terminal."""


class PlainProgress:
    """A progress counter that writes a plain line at most every ``every`` seconds.

    Used like a tqdm bar (``update``, a context manager): writes ``nearsim: WHAT…`` when it
    starts, ``nearsim: WHAT: N UNIT (R UNIT/s)`` lines while it counts, and a last one when
    it closes if anything was counted since the last line.
    """

    def __init__(self, what: str, unit: str, stream, every: float = LOG_EVERY):
        self.what, self.unit, self.stream, self.every = what, unit, stream, every
        self.count = 0
        self.started = self.last = time.perf_counter()
        self.shown = 0
        print(f"nearsim: {what}…", file=stream, flush=True)

    def update(self, count: int) -> None:
        self.count += count
        now = time.perf_counter()
        if now - self.last >= self.every:
            self._line(now)

    def _line(self, now: float) -> None:
        rate = self.count / max(now - self.started, 1e-9)
        print(
            f"nearsim: {self.what}: {self.count:,} {self.unit} ({rate:,.0f} {self.unit}/s)",
            file=self.stream,
            flush=True,
        )
        self.last, self.shown = now, self.count

    def close(self) -> None:
        if self.count != self.shown:
            self._line(time.perf_counter())

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Silent:
    def update(self, count: int) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass


class Clock:
    """Wall and CPU time per stage, and progress on stderr (nothing when not shown).

    Parameters
    ----------
    show : bool
        Say what each stage does and show progress.
    stream : file, optional
        Where to write (default: ``sys.stderr`` at the time of writing).
    """

    def __init__(self, show: bool, stream=None):
        self.show = show
        self._stream = stream
        self.seconds: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    @property
    def stream(self):
        return sys.stderr if self._stream is None else self._stream

    def say(self, text: str) -> None:
        """``nearsim: text`` on stderr, when progress is shown."""
        if self.show:
            print(f"nearsim: {text}", file=self.stream, flush=True)

    @contextmanager
    def stage(self, name: str, what: str | None = None):
        """Time a stage (its time adds up over several calls); say ``what`` first."""
        started, cpu = time.perf_counter(), time.process_time()
        if what:
            self.say(f"{what}…")
        yield
        self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - started
        self.cpu[name] = self.cpu.get(name, 0.0) + time.process_time() - cpu

    def bar(self, what: str, unit: str):
        """A progress counter: a tqdm bar on a terminal, plain lines elsewhere."""
        if not self.show:
            return _Silent()
        stream = self.stream
        if getattr(stream, "isatty", lambda: False)():
            return tqdm(desc=f"nearsim: {what}", unit=unit, file=stream)
        return PlainProgress(what, unit, stream)
