"""A persistent, incremental index: new documents checked against everything stored.

``core`` (:class:`Index`), ``storage`` (segment files, the manifest, the writer lock),
``segments`` (what a segment holds, merging), ``matching`` (the match rule, as ``nearsim
dedup`` decides), ``explain`` (why a match), ``build`` and ``commands`` (``nearsim index``
and ``nearsim dedup --against``).
"""
