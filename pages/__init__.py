"""nearsim's explorer, a Streamlit app: installed as the ``nearsim_app`` package.

In the repository this folder is ``pages/``: ``views/`` holds the page scripts (one per
view: they read settings, ask :mod:`nearsim_app.explorer.state` for stages, and draw), and
:mod:`nearsim_app.explorer` the main script (:mod:`nearsim_app.explorer.main`, which
``app.py`` at the top calls) and the glue (settings widgets, document sources, cached
stages, charts, the server's warm-up). Nothing here is imported by the ``nearsim`` library.
"""
