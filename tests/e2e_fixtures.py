"""Browser-test fixtures, shared by every ``tests/test_e2e*.py`` module (imported into
``conftest.py``): one Streamlit server per test session (per xdist worker), one Debian
chromium, a shared browser context, fresh contexts on demand, and the server's log attached
to every failed browser test."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from e2e_server import CHROMIUM, VIEWPORT, AppServer, launch_chromium
from playwright.sync_api import sync_playwright

TIMEOUT = 60_000  # ms, for anything that waits on the app (a cold server compiles kernels)
LOG_TAIL = 6_000


def need_chromium() -> None:
    """The one decision on a missing browser, for every browser test (tests/conftest.py
    calls it before the setup of any test whose fixtures include ``chromium``, the way
    every browser test reaches the browser): without Debian's chromium a browser test is
    skipped on a developer's machine, and fails where ``CI`` is ``true`` (or 1): a CI
    image without the browser must not pass with none of the browser tests run."""
    if Path(CHROMIUM).exists():
        return
    missing = f"browser tests need Debian's chromium at {CHROMIUM} (apt-get install chromium)"
    if os.environ.get("CI", "").lower() in ("true", "1"):
        pytest.fail(f"{missing}; CI={os.environ['CI']}: a missing browser fails", pytrace=False)
    pytest.skip(missing)


class _LogOnFailure:
    """A pytest plugin: attach the end of the server log to every failed e2e test."""

    def __init__(self, server: AppServer):
        self.server = server

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if report.failed and "app_server" in getattr(item, "fixturenames", ()):
            report.sections.append(
                (f"streamlit server log ({self.server.log_path})", self.server.log(LOG_TAIL))
            )


@pytest.fixture(scope="session")
def app_server(request):
    server = AppServer().start()
    plugin = _LogOnFailure(server)
    request.config.pluginmanager.register(plugin, "nearsim-e2e-server-log")
    try:
        yield server
    finally:
        request.config.pluginmanager.unregister(plugin)
        server.stop()
        server.log_path.unlink(missing_ok=True)


@pytest.fixture(scope="session")
def chromium():
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            yield browser
        finally:
            browser.close()


def _context(browser):
    ctx = browser.new_context(viewport=VIEWPORT)
    ctx.set_default_timeout(TIMEOUT)
    return ctx


@pytest.fixture(scope="session")
def shared_context(chromium):
    """One context for the tests that only need their link: its local storage is emptied
    before every page load, so what one test kept never reaches the next."""
    ctx = _context(chromium)
    ctx.add_init_script("try { window.localStorage.clear(); } catch (e) {}")
    yield ctx
    ctx.close()


@pytest.fixture
def page(app_server, shared_context):
    """A new tab in the shared context."""
    tab = shared_context.new_page()
    yield tab
    tab.close()


@pytest.fixture
def new_context(app_server, chromium):
    """Make fresh browser contexts (nothing stored, nothing cached); closed afterwards."""
    made = []

    def make():
        made.append(_context(chromium))
        return made[-1]

    yield make
    for ctx in made:
        ctx.close()
