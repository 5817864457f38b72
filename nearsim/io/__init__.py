"""Documents in and tables out.

- :mod:`~nearsim.io.documents`: one document source each — pasted text, CSV columns, text,
  Markdown and HTML files — with decoding of bytes in any encoding.
- :mod:`~nearsim.io.corpora` (formats in :mod:`~nearsim.io.formats`, fast JSON lines in
  :mod:`~nearsim.io.jsonl_fast`): whole corpora read as a stream of batches.
- :mod:`~nearsim.io.example`: the generated Example corpus.
- :mod:`~nearsim.io.outputs`: the files a corpus run writes, each whole or not at all.
"""
