"""The package's public names are loaded on first use, and what each command loads.

``import nearsim`` defines names without importing their modules (nearsim/__init__.py);
``nearsim --help``, a bad option and ``nearsim dedup`` load only what they use, which the
subprocess tests below check by listing ``sys.modules`` after the work.
"""

from __future__ import annotations

import gzip
import importlib
import json
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import nearsim as ns
from nearsim import _HOME

ROOT = Path(__file__).resolve().parents[1]

HEAVY = ("pandas", "scipy", "numba", "pyarrow", "streamlit", "altair")


def loaded_after(code: str) -> set[str]:
    """The HEAVY packages a fresh interpreter has imported after running ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, check=True
    )
    modules = json.loads(out.stdout.strip().splitlines()[-1])
    return {m for m in modules if m.split(".")[0] in HEAVY and "." not in m}


@pytest.mark.parametrize("name", sorted(_HOME))
def test_every_public_name_is_the_object_its_module_defines(name):
    module = importlib.import_module(f"nearsim.{_HOME[name]}")
    assert getattr(ns, name) is getattr(module, name)


def test_the_names_are_the_documented_ones_and_dir_lists_them():
    assert set(ns.__all__) == set(_HOME) | {"pipeline"}
    assert set(ns.__all__) <= set(dir(ns))
    assert isinstance(ns.pipeline, types.ModuleType) and hasattr(ns.pipeline, "Runner")
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        ns.not_a_name  # noqa: B018


def test_no_module_or_package_is_named_like_a_public_name():
    """A submodule bound on the package would shadow a public function of the same name
    (``nearsim.clusters`` the module against ``nearsim.clusters`` the function): the layout
    keeps the two sets of names apart, and every public name stays what it is after every
    submodule is imported."""
    import importlib
    import pkgutil

    import nearsim

    modules = {m.name for m in pkgutil.iter_modules(nearsim.__path__)}
    assert not modules & set(ns.__all__) - {"pipeline"}
    for m in pkgutil.walk_packages(nearsim.__path__, "nearsim."):
        if m.name != "nearsim.__main__":
            importlib.import_module(m.name)
    for name in ns.__all__:
        assert getattr(nearsim, name) is getattr(importlib.import_module(
            "nearsim." + nearsim._HOME[name]), name) if name in nearsim._HOME else True


def test_import_nearsim_loads_none_of_the_heavy_packages():
    assert loaded_after("import nearsim") == set()


def test_the_command_line_answers_help_and_bad_options_without_them():
    code = (
        "from nearsim.cli import main\n"
        "for argv in (['--help'], ['dedup', '--help'], ['dedup', 'x', '--bands', 'y']):\n"
        "    try:\n        main(argv)\n    except SystemExit:\n        pass"
    )
    assert loaded_after(code) == set()


def _write(path, rows):
    """The four records in the format ``path``'s name says."""
    if path.suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.table({k: [r[k] for r in rows] for k in ("id", "text")}), path)
    elif path.suffix == ".csv":
        lines = ["id,text", *(f"{r['id']},{r['text']}" for r in rows)]
        path.write_text("\n".join(lines) + "\n")
    else:
        lines = "".join(json.dumps(r) + "\n" for r in rows).encode()
        path.write_bytes(gzip.compress(lines) if path.suffix == ".gz" else lines)


@pytest.mark.parametrize(
    ("name", "verify"),
    [("c.jsonl", "estimate"), ("c.jsonl.gz", "estimate"), ("c.parquet", "estimate"),
     ("c.csv", "estimate"), ("c.jsonl", "exact"), ("c.parquet", "none")],
)  # fmt: skip
def test_nearsim_dedup_never_loads_pandas(tmp_path, name, verify):
    """The whole run — records in, signatures, bands, the filter (estimate, exact or
    none), clusters, Parquet out — without pandas: its import alone was a tenth of a
    100,000-document run (``--verify exact`` loaded it through ``nearsim.exact``)."""
    texts = ["the quick brown fox jumps over the lazy dog"] * 3 + ["an unrelated text"]
    corpus = tmp_path / name
    _write(corpus, [{"id": f"d{i}", "text": t} for i, t in enumerate(texts)])
    out = tmp_path / "out"
    code = (
        "from nearsim.cli import main\n"
        f"assert main(['dedup', {str(corpus)!r}, '--out', {str(out)!r}, '--id-field', 'id', "
        f"'--quiet', '--verify', {verify!r}]) == 0"
    )
    assert "pandas" not in loaded_after(code)
    summary = json.loads((out / "summary.json").read_text())
    # three copies: each later one linked to the first (two pairs), one cluster
    assert summary["documents"] == 4 and summary["pairs"] == 2 and summary["clusters"] == 1
    assert summary["exact_duplicates"] == 2


@pytest.mark.parametrize("name", ["c.jsonl", "c.parquet"])
def test_nearsim_audit_of_a_run_never_loads_pandas(tmp_path, name):
    """Auditing nearsim's own output folder reads its Parquet table with pyarrow alone and
    the corpus's wanted rows: pandas' import would be a tenth of the audit of 10⁶ documents
    (pyarrow imports it when pa.array() is handed a NumPy array, to ask if it is a Series)."""
    texts = ["the quick brown fox jumps over the lazy dog"] * 3 + ["an unrelated text"] * 2
    corpus = tmp_path / name
    _write(corpus, [{"id": f"d{i}", "text": t} for i, t in enumerate(texts)])
    run, out = tmp_path / "run", tmp_path / "audit"
    code = (
        "from nearsim.cli import main\n"
        f"assert main(['dedup', {str(corpus)!r}, '--out', {str(run)!r}, '--id-field', 'id', "
        "'--quiet']) == 0\n"
        f"assert main(['audit', '--corpus', {str(corpus)!r}, '--run', {str(run)!r}, '--out', "
        f"{str(out)!r}, '--id-field', 'id', '--quiet']) == 0"
    )
    assert "pandas" not in loaded_after(code)
    result = json.loads((out / "audit.json").read_text())
    assert result["precision"]["estimate"] == 1.0 and result["removed"]["removed"] == 3


def test_the_console_script_settles_the_process_before_numpy_loads():
    """``nearsim`` turns the collector off, quiets the thread pools it never uses and keeps
    NumPy's arrays off huge pages, and must do so before NumPy loads (OpenBLAS and NumPy
    read their variables then); a value the user set is kept."""
    code = (
        "import gc, json, os, sys\n"
        "os.environ['OMP_WAIT_POLICY'] = 'ACTIVE'\n"
        "os.environ.pop('OPENBLAS_NUM_THREADS', None)\n"
        "os.environ.pop('NUMPY_MADVISE_HUGEPAGE', None)\n"
        "from nearsim import _console\n"
        "assert 'numpy' not in sys.modules\n"
        "_console.prepare()\n"
        "import numpy\n"
        "print(json.dumps([gc.isenabled(), os.environ['OPENBLAS_NUM_THREADS'], "
        "os.environ['OMP_WAIT_POLICY'], os.environ['NUMPY_MADVISE_HUGEPAGE']]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    assert json.loads(out.stdout) == [False, "1", "ACTIVE", "0"]


def test_both_ways_in_go_through_the_console_settings():
    """The installed ``nearsim`` and ``python -m nearsim`` start at ``_console``, whose
    settings must come before anything loads NumPy."""
    from importlib.metadata import entry_points

    (script,) = entry_points(group="console_scripts", name="nearsim")
    assert script.value == "nearsim._console:entry_point"
    code = (
        "import runpy, sys\nsys.argv = ['nearsim', '--help']\n"
        "runpy.run_module('nearsim', run_name='__main__')"
    )
    probe = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
    )
    loaded = [line.rsplit("|", 1)[-1].strip() for line in probe.stderr.splitlines()]
    assert loaded.index("nearsim._console") < loaded.index("numpy")


def test_the_wheel_installs_two_import_packages_and_no_generic_name(tmp_path):
    """The wheel's top-level names are nearsim and nearsim_app: no app, pages or explorer
    in site-packages, where another project's module of that name would collide. The
    explorer's page scripts and main script travel inside nearsim_app."""
    import zipfile

    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
         "-w", str(tmp_path), str(ROOT)],
        check=True, timeout=600, capture_output=True,
    )  # fmt: skip
    (wheel,) = tmp_path.glob("nearsim-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"nearsim", "nearsim_app"}
    assert "nearsim_app/explorer/main.py" in names
    assert {f"nearsim_app/views/{v}.py" for v in ("documents", "banding", "export")} <= set(names)
    assert "nearsim/data/example_words.json" in names
    # every module of the source tree is installed (a sub-package missing from
    # pyproject's list would import here and fail after pip install)
    sources = {f"nearsim/{q.relative_to(ROOT / 'nearsim').as_posix()}"
               for q in (ROOT / "nearsim").rglob("*.py")}
    sources |= {f"nearsim_app/{q.relative_to(ROOT / 'pages').as_posix()}"
                for q in (ROOT / "pages").rglob("*.py")}
    assert sources - set(names) == set()


@pytest.mark.parametrize("command", [["pytest"], [sys.executable, "-m", "pytest"]])
def test_plain_pytest_and_python_m_pytest_collect_every_test(command):
    """Both ways of starting pytest from the repository root collect the same tests with no
    error (the helper modules and the benchmark corpora are importable either way)."""
    exe = [str(Path(sys.executable).with_name("pytest"))] if command == ["pytest"] else command
    out = subprocess.run(
        [*exe, "--collect-only", "-q", "-p", "no:cacheprovider"], cwd=ROOT,
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-2000:]
    last = out.stdout.strip().splitlines()[-1]
    assert "error" not in last and "tests collected" in last, last


_REFERENCE = re.compile(r":(?:mod|func|class|data|meth|attr):`~?(nearsim[A-Za-z0-9_.]*)`")


def _resolves(ref: str) -> bool:
    """Whether ``nearsim.a.b.c`` is a module or an attribute chain below one."""
    parts = ref.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return False
        return True
    return False


def test_every_cross_reference_in_a_docstring_names_something_that_exists():
    """A module moved or renamed leaves ``:mod:`nearsim.old``` in the text that help() and
    the module map point readers to; fifteen such references once survived a re-layout."""
    refs = {
        (path.relative_to(ROOT).as_posix(), ref)
        for folder in (ROOT / "nearsim", ROOT / "pages")
        for path in folder.rglob("*.py")
        for ref in _REFERENCE.findall(path.read_text(encoding="utf-8"))
    }
    assert len(refs) > 100  # the pattern finds the references the code has
    assert [(p, r) for p, r in sorted(refs) if not _resolves(r)] == []


def test_the_readme_module_map_names_every_module():
    """The README's map has one line per module: a top-level module by its file name, a
    sub-package's module by name in its package's row, the app's glue in the paragraph
    after the table (``charts*.py`` stands for the chart modules)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Where things live") : text.index("## Dependencies")]
    rows = dict(re.findall(r"^\| `([a-z_]+)/` \|(.*)$", section, flags=re.MULTILINE))
    assert {"join", "io", "run", "index", "audit", "explore", "utils"} <= set(rows)
    missing = []
    for path in sorted((ROOT / "nearsim").rglob("*.py")):
        rel = path.relative_to(ROOT / "nearsim")
        if len(rel.parts) == 1:
            missing += [] if f"`{rel.name}`" in section else [rel.as_posix()]
        elif path.stem != "__init__" and f"`{path.stem}`" not in rows.get(rel.parts[0], ""):
            missing.append(rel.as_posix())
    for path in sorted((ROOT / "pages" / "explorer").glob("*.py")):
        named = f"`{path.name}`" in section or path.name.startswith("charts")
        if path.stem != "__init__" and not named:
            missing.append(path.relative_to(ROOT).as_posix())
    assert missing == []


def test_no_module_is_much_longer_than_600_lines():
    """One module per idea, about 600 lines at most: a module past 650 holds two ideas and
    is due for a split (the limit leaves room for a docstring grown by a paragraph)."""
    lengths = {
        path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for folder in (ROOT / "nearsim", ROOT / "pages")
        for path in folder.rglob("*.py")
    }
    assert len(lengths) > 100
    assert {name: n for name, n in lengths.items() if n > 650} == {}
