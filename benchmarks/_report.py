"""Write one benchmark's section into benchmarks/RESULTS.md, replacing its previous run."""

from __future__ import annotations

import datetime as _dt
import os
import platform
import re
from pathlib import Path

RESULTS = Path(__file__).with_name("RESULTS.md")
HEADER = (
    "# Benchmark results\n\n"
    "Written by the scripts in `benchmarks/`; each section is replaced when its script runs.\n"
)


def machine() -> str:
    """One line describing where a benchmark ran."""
    return (
        f"{_dt.date.today().isoformat()}, Python {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} cores"
    )


def markdown_table(rows: list[dict], columns: list[str]) -> str:
    """Render rows (dicts) as a GitHub markdown table with the given column order."""
    out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        out.append("| " + " | ".join(str(row.get(c, "")) for c in columns) + " |")
    return "\n".join(out)


def write_section(name: str, body: str) -> None:
    """Replace (or append) the section called ``name`` in RESULTS.md."""
    text = RESULTS.read_text() if RESULTS.exists() else HEADER
    begin, end = f"<!-- begin {name} -->", f"<!-- end {name} -->"
    block = f"{begin}\n{body.strip()}\n{end}"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _m: block, text)
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    RESULTS.write_text(text)
    print(body)
