"""Write one benchmark's section into benchmarks/RESULTS.md, replacing its previous run."""

from __future__ import annotations

import compileall
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


def byte_compile(*packages: str) -> str:
    """Byte-compile this checkout's packages, as ``pip install`` does for a regular install,
    and say so in one sentence.

    The checkout is an editable install, and where ``PYTHONDONTWRITEBYTECODE`` is set (it is
    on the benchmark machine) Python never caches what it compiles: every timed process
    would compile every module of nearsim from source (0.1 s of ``nearsim dedup``'s
    start-up), which no installed copy does and no peer (installed by pip) pays.
    """
    root = Path(__file__).resolve().parent.parent
    ok = all(compileall.compile_dir(root / p, quiet=1) for p in packages)
    if not ok:
        raise SystemExit(f"byte-compiling {', '.join(packages)} failed")
    names = ", ".join(f"`{p}`" for p in packages)
    return f"{names} byte-compiled first, as `pip install` does for an installed copy."


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
