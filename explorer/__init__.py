"""Streamlit glue for the nearsim explorer: settings widgets, document sources, cached
pipeline stages and charts. The science lives in the ``nearsim`` package; the page
scripts in ``app_pages/`` read settings, call the library through ``explorer.state`` and draw.
"""
