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
    new_context,
    page,
    shared_context,
)

__all__ = ["app_server", "chromium", "new_context", "page", "shared_context"]
