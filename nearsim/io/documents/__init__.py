"""Documents in: pasted text, a CSV column, and text/HTML files (and the generated example).

Every loader takes what a person hands the app (a string or the bytes of an upload) and
returns plain text, or raises :class:`ValueError` with a message that says what was found
and what is accepted. Nothing here touches the network or the file system.

Modules: :mod:`.decoding` (size limits, byte-order marks, binary sniffing, decoding),
:mod:`.paste`, :mod:`.csv_reader` (the streaming CSV rules), :mod:`.csv_header` (is the
first row a header?), :mod:`.csv_upload` (an uploaded CSV file), :mod:`.html_text` (HTML to
the visible text), :mod:`.files` (one file, one document). The example generator lives in
:mod:`nearsim.io.example`; ``example_corpus`` is re-exported here.
"""

from nearsim.io.documents.csv_reader import CSV_DELIMITERS
from nearsim.io.documents.csv_upload import (
    CsvInfo,
    csv_columns,
    guess_text_column,
    inspect_csv,
    read_csv_column,
    read_csv_column_rows,
)
from nearsim.io.documents.decoding import MAX_CSV_BYTES, MAX_FILE_BYTES
from nearsim.io.documents.files import DOCUMENT_EXTENSIONS, read_document_file
from nearsim.io.documents.html_text import html_to_text
from nearsim.io.documents.paste import parse_paste
from nearsim.io.example import EXAMPLE_MAX_DOCS, EXAMPLE_MIN_DOCS, example_corpus

__all__ = [
    "CSV_DELIMITERS",
    "DOCUMENT_EXTENSIONS",
    "EXAMPLE_MAX_DOCS",
    "EXAMPLE_MIN_DOCS",
    "MAX_CSV_BYTES",
    "MAX_FILE_BYTES",
    "CsvInfo",
    "csv_columns",
    "example_corpus",
    "guess_text_column",
    "html_to_text",
    "inspect_csv",
    "parse_paste",
    "read_csv_column",
    "read_csv_column_rows",
    "read_document_file",
]
