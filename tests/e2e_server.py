"""A local Streamlit server and a Debian chromium for the browser tests and screenshots.

Used by ``tests/test_e2e.py`` (pytest fixtures) and ``benchmarks/bench_app.py
--screenshots`` (README pictures). Nothing here is a test; it only starts, waits for and
stops things, and every process it starts it also stops (by its own process group).
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAIN_SCRIPT = "pages/explorer/main.py"
"""The explorer's main script as the servers start it (its folder has no ``pages/``: see
``nearsim_app.explorer.main``)."""
CHROMIUM = "/usr/bin/chromium"
# Debian's chromium: playwright cannot download its own browser here. These flags keep
# the browser itself from calling Google (updates, sync, field trials), so every request
# a test records was made by the page.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
VIEWPORT = {"width": 1400, "height": 1000}

# (url path, page title shown as the page's h1, navigation label)
PAGES = [
    ("/", "Documents", "Documents"),
    ("/minhash", "Shingles & MinHash", "MinHash"),
    ("/banding", "Banding", "Banding"),
    ("/results", "Results", "Results"),
    ("/threshold", "Threshold", "Threshold"),
    ("/clusters", "Clusters", "Clusters"),
    ("/compare", "Compare: SimHash", "Compare"),
    ("/export", "Presets & export", "Export"),
    ("/query", "Query", "Query"),
    ("/audit", "Audit", "Audit"),
]


PORT_BLOCK = 1_000  # ports per pytest-xdist worker, below Linux's ephemeral range


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now.

    Each pytest-xdist worker draws from its own block of ports (20000 + 1000 · worker),
    below the ephemeral range that ``bind(0)`` and outgoing connections use: two workers
    starting servers at the same moment could otherwise be handed the same free port, and
    the second server would fail while its test talked to the first (CI saw a page of the
    shared Example server where ``nearsim app corpus.jsonl`` should have been).
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    index = int(worker[2:]) + 1 if worker.startswith("gw") and worker[2:].isdigit() else 0
    low = 20_000 + PORT_BLOCK * (index % 12)
    draw = random.Random(os.getpid() ^ time.monotonic_ns())
    for _ in range(200):
        port = draw.randrange(low, low + PORT_BLOCK)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {low}..{low + PORT_BLOCK - 1}")


@contextlib.contextmanager
def nearsim_app(*args: str, timeout: float = 90):
    """``python -m nearsim app ARGS`` on a free port, as a user starts it; yields the port
    once Streamlit answers its health check, and stops the whole process group after."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "nearsim", "app", *args, "--port", str(port), "--headless"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                    break
            except OSError:
                assert proc.poll() is None, f"nearsim app exited with status {proc.returncode}"
                assert time.monotonic() < deadline, f"nearsim app did not answer in {timeout} s"
                time.sleep(0.3)
        assert proc.poll() is None, f"nearsim app exited with status {proc.returncode}"
        yield port
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)


class AppServer:
    """``python -m nearsim_app.explorer.serve pages/explorer/main.py`` (``streamlit run`` with
    the warm-up, the main script as scripts/app and ``nearsim app`` start it) on a free port,
    its output in a log file.

    Use as a context manager, or call :meth:`start` and :meth:`stop`.
    """

    def __init__(
        self, *, app: str = MAIN_SCRIPT, cwd: Path = ROOT, startup_timeout: float = 90
    ):
        self.app = app
        self.cwd = cwd
        self.startup_timeout = startup_timeout
        self.port = 0
        self.proc: subprocess.Popen | None = None
        fd, name = tempfile.mkstemp(prefix="nearsim-e2e-server-", suffix=".log")
        os.close(fd)
        self.log_path = Path(name)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def log(self, tail: int | None = None) -> str:
        """The server's output so far (the last ``tail`` characters)."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return text if tail is None else text[-tail:]

    def start(self) -> AppServer:
        self.port = free_port()
        cmd = [
            sys.executable,
            "-m",
            "nearsim_app.explorer.serve",  # ``streamlit run`` with the warm-up, as scripts/app
            self.app,
            "--server.port",
            str(self.port),
            "--server.headless",
            "true",
            "--browser.gatherUsageStats",
            "false",
        ]
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                cmd,
                cwd=self.cwd,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # its own process group: stop() ends it and its children
            )
        deadline = time.monotonic() + self.startup_timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"streamlit exited with {self.proc.returncode} before answering:\n{self.log()}"
                )
            try:
                with urllib.request.urlopen(self.base + "/_stcore/health", timeout=2) as r:
                    if r.read().decode().strip() == "ok":
                        return self
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(
                    f"streamlit did not answer /_stcore/health within {self.startup_timeout} s:\n"
                    + self.log()
                )
            time.sleep(0.2)

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)

    def __enter__(self) -> AppServer:
        return self.start()

    def __exit__(self, exc_type, exc, tb) -> None:
        self.stop()
        if exc_type is None:
            self.log_path.unlink(missing_ok=True)
        else:
            print(f"streamlit server log kept at {self.log_path}", file=sys.stderr)


def launch_chromium(playwright):
    """Debian's chromium through playwright's sync API."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


# A run is over when the app says it is not running, every element has been drawn (the
# frontend shows a skeleton while an element's code loads, which can take seconds on a
# busy machine), and that lasts ``quiet`` ms. The app reruns itself once the browser
# storage component (pages/explorer/storage.py) has read local storage; until its page-wide flag
# says so, wait ``handshake`` ms instead, so a rerun that starts late is not missed (and a
# renamed flag only makes the wait longer, never endless).
_IDLE_JS = """
([quiet, handshake]) => {
    const app = document.querySelector('[data-testid="stApp"]');
    const idle = app !== null
        && app.getAttribute('data-test-script-state') === 'notRunning'
        && app.getAttribute('data-test-connection-state') === 'CONNECTED'
        && document.querySelector('[data-testid="stStatusWidget"]') === null
        && document.querySelector('[data-testid="stSkeleton"]') === null;
    const now = performance.now();
    if (!idle) { window.__e2eIdleSince = null; return false; }
    if (window.__e2eIdleSince == null) { window.__e2eIdleSince = now; }
    const storage = document.querySelector('[data-testid^="stBidiComponent"]') !== null;
    const answered = window.__nearsimStorageRead === true;
    return now - window.__e2eIdleSince >= (storage && !answered ? handshake : quiet);
}
"""


def wait_idle(page, *, quiet: int = 400, handshake: int = 2_000, timeout: float = 90_000) -> None:
    """Wait until Streamlit has finished running the script (and its own reruns)."""
    page.evaluate("window.__e2eIdleSince = null")
    page.wait_for_function(_IDLE_JS, arg=[quiet, handshake], polling=100, timeout=timeout)


def click_nav(page, label: str) -> None:
    """Click the top navigation's ``label`` as a user does: in the bar, or, when the window
    is too narrow for every page, in the bar's "N more" menu (Streamlit makes the links that
    do not fit inert and lists them there)."""
    link = page.get_by_test_id("stTopNav").get_by_test_id("stTopNavLink").filter(has_text=label)
    if link.first.evaluate("e => e.closest('[inert]') === null"):
        link.first.click()
        return
    page.get_by_test_id("stTopNavSection").first.click()
    page.get_by_test_id("stTopNavDropdownLink").filter(has_text=label).first.click()


def open_app(page, url: str, *, timeout: float = 90_000) -> None:
    """Go to ``url``, wait for the page title (h1) and for the app to be idle."""
    page.goto(url)
    page.locator("h1").first.wait_for(timeout=timeout)
    wait_idle(page, timeout=timeout)
