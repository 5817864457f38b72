"""``python -m nearsim``: the same as the ``nearsim`` command."""

from nearsim._console import entry_point

entry_point()
