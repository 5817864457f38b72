"""Documents in: pasted text, files, CSV, whole corpora, the generated Example.

- :mod:`~nearsim.io.documents`: one document source each — pasted text, CSV columns, text,
  Markdown and HTML files — with decoding of bytes in any encoding.
- :mod:`~nearsim.io.corpora` (formats in :mod:`~nearsim.io.formats`, fast JSON lines in
  :mod:`~nearsim.io.jsonl_fast`): whole corpora read as a stream of batches.
- :mod:`~nearsim.io.example`: the generated Example corpus.

The files a corpus run writes are the run layer's (:mod:`nearsim.run.outputs`).
"""
