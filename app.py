"""nearsim explorer: choose and check near-duplicate detection settings.

The explorer itself is the ``nearsim_app`` package (``pages/`` here), whose
:func:`~nearsim_app.explorer.main.main` this calls. ``scripts/app`` starts the package's own
main script, ``pages/explorer/main.py``, which runs the same function: Streamlit looks for
page scripts in a ``pages/`` folder beside the main script until its first
``st.navigation``, so a fresh server on this file shows a "Page not found" notice on a first
visit to a page by its address. ``streamlit run app.py`` works otherwise alike.
"""

from nearsim_app.explorer.main import main

main()
