"""Shared test fixtures and hypothesis settings."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default",
    deadline=None,  # the first call of a numba kernel compiles it
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

from e2e_fixtures import (  # noqa: E402 - the browser tests' fixtures, for every e2e module
    app_server,
    chromium,
    need_chromium,
    new_context,
    page,
    shared_context,
)

import nearsim.explore  # noqa: E402, F401 - the explorer's stages join the stage graph, as in the app

__all__ = ["app_server", "chromium", "new_context", "page", "shared_context"]


def pytest_runtest_setup(item):
    """A browser test (one whose fixtures include ``chromium``) without the browser: a skip,
    or a failure in CI (:func:`e2e_fixtures.need_chromium`); decided before its fixtures
    start a server."""
    if "chromium" in item.fixturenames:
        need_chromium()
