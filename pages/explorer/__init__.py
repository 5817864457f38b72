"""Streamlit glue for the nearsim explorer: settings widgets, document sources, cached
pipeline stages and charts. The science lives in the ``nearsim`` package; the page
scripts (the other modules of :mod:`nearsim_app`) read settings, call the library
through :mod:`nearsim_app.explorer.state` and draw.
"""
