"""nearsim: choose and check near-duplicate detection settings.

Shingles, MinHash, LSH banding and its tuner, exact ground truth by a similarity join,
SimHash, clusters, document loading and one Settings object. The Streamlit app in
``app.py`` is a thin layer over this package; nothing here imports Streamlit.
"""

__version__ = "0.1.0"
