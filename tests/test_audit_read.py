"""The audit's selective read (:func:`nearsim.io.wanted.read_rows`): the wanted rows' texts
and ids, every row counted, the fields needed on every row, against the corpus reader; and
the audit it feeds, identical to one that reads every document."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nearsim as ns
import nearsim.audit.run as audit_run
from nearsim.audit.run import audit
from nearsim.cli import main
from nearsim.io import jsonl_fast
from nearsim.io import wanted as wanted_module
from nearsim.io.wanted import Rows, read_rows


def _reference(paths, text_field="text", id_field=None, fields=()):
    """Every row's id, text and fields by the corpus reader (which parses every line)."""
    ids, texts, extra = [], [], {f: [] for f in fields}
    reader = ns.iter_corpus(paths, text_field=text_field, id_field=id_field, fields=fields)
    for batch_ids, batch_texts, values in reader.records():
        ids += batch_ids
        texts += batch_texts
        for f in fields:
            extra[f] += values[f]
    return ids, texts, extra


def _collect(parts: list[Rows]):
    rows = np.concatenate([p.rows for p in parts]) if parts else np.empty(0, np.int64)
    starts = [p.start for p in parts]
    counts = [p.count for p in parts]
    assert starts == list(np.cumsum([0, *counts])[:-1])  # consecutive stretches
    every: dict[str, list[str]] = {}
    for p in parts:
        for k, v in p.every.items():
            assert len(v) == p.count
            every.setdefault(k, []).extend(v)
    return (rows, sum(counts), [i for p in parts for i in p.ids],
            [t for p in parts for t in p.texts], every)  # fmt: skip


_LINE = st.one_of(
    st.fixed_dictionaries(
        {
            "text": st.text(max_size=30),
            "id": st.integers(0, 10**12),
            "src": st.one_of(st.none(), st.integers(-5, 5), st.text(max_size=4)),
        }
    ),
    st.fixed_dictionaries({"text": st.text(max_size=30), "id": st.text(min_size=1, max_size=6)}),
)


_ENDED = st.tuples(
    _LINE,
    st.sampled_from(["\n", "\r\n", "\n  \n", "\n\n", "\n\r\n"]),
    st.sampled_from(["", " ", "\t"]),
)


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(_ENDED, min_size=1, max_size=40),
    split=st.integers(0, 40),
    block=st.sampled_from([16, 64, 1 << 20]),
    parse=st.sampled_from([1, 100, 1 << 22]),
    every=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
    bom=st.booleans(),
)
def test_wanted_rows_equal_the_corpus_readers(tmp_path_factory, lines, split, block, parse,
                                              every, seed, bom):  # fmt: skip
    """Any mix of ids (integers, strings), a further field of any type or missing, CRLF,
    blank lines, lines that begin with white space, a byte-order mark, two files, blocks of
    a few bytes (a line longer than a block) or a megabyte, wanted lines parsed a line or
    many blocks at a time: the wanted rows, the counts and every row's fields equal the
    corpus reader's."""
    folder = tmp_path_factory.mktemp("c")
    text = "".join(space + json.dumps(obj) + end for obj, end, space in lines)
    cut = text.find("\n", int(len(text) * split / 40)) + 1 or len(text)
    first, second = folder / "a.jsonl", folder / "b.jsonl.gz"
    first.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text[:cut].encode())
    second.write_bytes(gzip.compress(text[cut:].encode()))
    paths = [first, second]
    fields = ("src",) if every else ()
    ids, texts, extra = _reference(paths, id_field="id", fields=fields)
    n = len(texts)
    wanted = np.random.default_rng(seed).random(n + 3) < 0.4  # rows past n: not wanted
    old = jsonl_fast.BLOCK_BYTES, wanted_module.PARSE_BYTES, wanted_module.PARSE_ROWS
    jsonl_fast.BLOCK_BYTES, wanted_module.PARSE_BYTES = block, parse
    wanted_module.PARSE_ROWS = 3 if parse == 100 else old[2]
    try:
        got = list(read_rows(paths, wanted, id_field="id", every_id=every, fields=fields))
    finally:
        jsonl_fast.BLOCK_BYTES, wanted_module.PARSE_BYTES, wanted_module.PARSE_ROWS = old
    rows, count, got_ids, got_texts, got_every = _collect(got)
    assert count == n
    assert rows.tolist() == np.flatnonzero(wanted[:n]).tolist()
    assert got_ids == [ids[r] for r in rows.tolist()]
    assert got_texts == [texts[r] for r in rows.tolist()]
    if every:
        assert got_every == {"src": extra["src"], "id": ids}
    else:
        assert got_every == {}


def test_without_an_id_field_ids_are_positions_across_files(tmp_path):
    a = tmp_path / "a.jsonl"
    b = tmp_path / "b.jsonl"
    a.write_text("".join(json.dumps({"text": f"a{i}"}) + "\n" for i in range(5)))
    b.write_text("".join(json.dumps({"text": f"b{i}"}) + "\n" for i in range(4)))
    wanted = np.zeros(9, dtype=bool)
    wanted[[1, 5, 8]] = True
    rows, count, ids, texts, _ = _collect(list(read_rows([a, b], wanted)))
    assert (rows.tolist(), count, ids, texts) == ([1, 5, 8], 9, ["1", "5", "8"],
                                                  ["a1", "b0", "b3"])  # fmt: skip


def test_a_bad_wanted_line_is_named_and_a_bad_unwanted_line_only_counted(tmp_path):
    """A wanted line is checked as the corpus reader checks it (same message, same line
    number); a line that is neither wanted nor needed for a field is only counted (the
    documented limit)."""
    path = tmp_path / "c.jsonl"
    good = [json.dumps({"text": f"t{i}", "id": f"d{i}"}) for i in range(6)]
    path.write_text("\n".join([*good[:3], "not json", *good[3:]]) + "\n")
    with pytest.raises(ValueError) as expected:
        list(ns.iter_corpus(path, id_field="id"))
    wanted = np.zeros(7, dtype=bool)
    wanted[3] = True
    with pytest.raises(ValueError) as got:
        list(read_rows(path, wanted, id_field="id"))
    assert str(got.value) == str(expected.value) and "line 4" in str(got.value)
    wanted[:] = False
    wanted[[0, 6]] = True
    rows, count, ids, _texts, _ = _collect(list(read_rows(path, wanted, id_field="id")))
    assert (rows.tolist(), count, ids) == ([0, 6], 7, ["d0", "d5"])
    # a field needed on every row: the bad line is parsed, and named
    with pytest.raises(ValueError, match="line 4"):
        list(read_rows(path, wanted, id_field="id", fields=("src",)))


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_other_formats_pick_the_wanted_rows_of_the_corpus_reader(tmp_path, kind):
    frame = ns.example_corpus(300, seed=2).head(50).assign(id=[f"x{i}" for i in range(50)],
                                                 src=["a", "b"] * 25)  # fmt: skip
    path = tmp_path / f"c.{kind}"
    frame.to_parquet(path) if kind == "parquet" else frame.to_csv(path, index=False)
    wanted = np.zeros(50, dtype=bool)
    wanted[[0, 7, 49]] = True
    rows, count, ids, texts, every = _collect(
        list(read_rows(path, wanted, id_field="id", every_id=True, fields=("src",)))
    )
    assert (rows.tolist(), count, ids) == ([0, 7, 49], 50, ["x0", "x7", "x49"])
    assert texts == frame["text"].iloc[[0, 7, 49]].tolist()
    assert every == {"src": frame["src"].tolist(), "id": frame["id"].tolist()}


def test_arguments_are_checked(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "a"}\n')
    with pytest.raises(TypeError, match="wanted"):
        list(read_rows(path, np.zeros(3, dtype=np.int64)))
    with pytest.raises(ValueError, match="every_id=True needs an id_field"):
        list(read_rows(path, np.zeros(1, dtype=bool), every_id=True))
    with pytest.raises(TypeError, match="every_id"):
        list(read_rows(path, np.zeros(1, dtype=bool), id_field="id", every_id=1))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """400 Example documents with a group field, deduplicated at t = 0.7."""
    folder = tmp_path_factory.mktemp("run")
    texts = ns.example_corpus(400, seed=5)["text"].tolist()
    path = folder / "news.jsonl"
    path.write_text("".join(json.dumps({"id": f"d{i}", "text": t, "src": "ab"[i % 3 == 0]})
                            + "\n" for i, t in enumerate(texts)))  # fmt: skip
    assert main(["dedup", str(path), "--id-field", "id", "--out", str(folder / "out"),
                 "--threshold", "0.7", "--quiet"]) == 0  # fmt: skip
    return path, folder / "out"


def _whole(monkeypatch):
    """Make the audit read every document through the corpus reader (the earlier path):
    :func:`read_rows` picks the wanted rows from the reader's batches for a corpus whose
    files it does not read itself."""
    from nearsim.io import wanted as module

    monkeypatch.setattr(module, "file_format", lambda p: "other")


def _public(result: dict) -> dict:
    return {k: v for k, v in result.items() if k != "cpu_seconds"}


def test_the_audit_is_the_same_as_one_that_reads_every_document(run, monkeypatch):
    """audit.json's figures (all but the CPU seconds) are equal, with a group field, with
    keep-apart, for nearsim's folder and for another tool's table with rows shuffled; and
    the selective read parsed only the wanted rows (``hashed`` counts them, not n)."""
    path, out = run
    table = out.parent / "theirs.csv"
    import pandas as pd

    clusters = pd.read_parquet(out / "clusters.parquet")[["id", "cluster"]]
    clusters.sample(frac=1.0, random_state=3).to_csv(table, index=False)
    jobs = [
        dict(run=out, group_field="src", keep_apart="src", sample=40, seed=2),
        dict(clusters=table, cluster_field="cluster", group_field="src", sample=30, seed=1),
    ]
    parquet = out.parent / "news.parquet"
    pd.read_json(path, lines=True, dtype=False).to_parquet(parquet, row_group_size=150)
    corpora = [path, path, parquet]
    jobs.append(jobs[0])
    fast = [audit(c, id_field="id", **job) for c, job in zip(corpora, jobs, strict=True)]
    with monkeypatch.context() as m:
        _whole(m)
        slow = [audit(c, id_field="id", **job) for c, job in zip(corpora, jobs, strict=True)]
    for f, s in zip(fast, slow, strict=True):
        assert _public(f) == _public(s)
        assert f["sample"]["hashed"] < 400
    assert _public(fast[2]) | {"source": ""} == _public(fast[0]) | {"source": ""}
    assert fast[0]["removed"]["by_group"]


def test_a_corpus_of_another_length_or_order_is_refused(run, tmp_path):
    path, out = run
    lines = path.read_text().splitlines(keepends=True)
    longer = tmp_path / "longer.jsonl"
    longer.write_text("".join(lines) + lines[0])
    with pytest.raises(ValueError, match="more than the run's 400"):
        audit(longer, run=out, id_field="id", sample=20)
    shorter = tmp_path / "shorter.jsonl"
    shorter.write_text("".join(lines[:-1]))
    with pytest.raises(ValueError, match="has 399 documents and the run 400"):
        audit(shorter, run=out, id_field="id", sample=20)
    # two rows swapped: every row is wanted at sample=400 (the whole corpus is the recall
    # sample), so their ids are read and differ from the run's
    swapped = tmp_path / "swapped.jsonl"
    swapped.write_text("".join([lines[1], lines[0], *lines[2:]]))
    with pytest.raises(ValueError, match="row 0 of the corpus has id 'd1' and the run 'd0'"):
        audit(swapped, run=out, id_field="id", sample=400)


def test_the_audit_reads_only_the_wanted_rows(run, monkeypatch):
    """The texts handed to the audit are those of the wanted rows only."""
    path, out = run
    seen = []
    original = audit_run.read_rows

    def spy(*args, **kwargs):
        for part in original(*args, **kwargs):
            seen.append(len(part.texts))
            yield part

    monkeypatch.setattr(audit_run, "read_rows", spy)
    res = audit(path, run=out, id_field="id", sample=10, seed=0)
    assert sum(seen) == res["sample"]["hashed"] < 400


def test_a_field_read_on_every_row_is_checked_on_every_row(tmp_path):
    """Invalid UTF-8 in an id read for every row (another tool's table) is named as the
    corpus reader names it, though pyarrow reads it without complaint; invalid UTF-8 in
    the text of a line that is not wanted is not looked at."""
    path = tmp_path / "c.jsonl"
    good = [json.dumps({"text": f"t{i}", "id": f"d{i}"}).encode() for i in range(4)]
    path.write_bytes(b"\n".join([*good[:2], b'{"text": "x", "id": "a\xffb"}', *good[2:]]) + b"\n")
    with pytest.raises(ValueError) as expected:
        list(ns.iter_corpus(path, id_field="id"))
    with pytest.raises(ValueError) as got:
        list(read_rows(path, np.zeros(0, dtype=bool), id_field="id", every_id=True))
    assert str(got.value) == str(expected.value) and "line 3" in str(got.value)
    path.write_bytes(b"\n".join([*good[:2], b'{"text": "x\xff", "id": "d9"}', *good[2:]]) + b"\n")
    parts = list(read_rows(path, np.zeros(0, dtype=bool), id_field="id", every_id=True))
    assert _collect(parts)[4]["id"] == ["d0", "d1", "d9", "d2", "d3"]


def test_parquet_rows_and_nulls_as_the_corpus_reader(tmp_path):
    """Parquet: integer ids, a further field missing from the file (every value ""),
    batches of 16,384 rows across row groups; a null text or id is named at the same row
    index as the corpus reader names it, even on a row that is not wanted."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = 40_000
    path = tmp_path / "c.parquet"
    table = pa.table({"text": [f"t{i}" for i in range(n)], "id": list(range(n))})
    pq.write_table(table, path, row_group_size=7_000)
    wanted = np.zeros(n, dtype=bool)
    wanted[[0, 16_383, 16_384, 39_999]] = True
    parts = list(read_rows(path, wanted, id_field="id", every_id=True, fields=("src",)))
    rows, count, ids, texts, every = _collect(parts)
    assert (rows.tolist(), count) == ([0, 16_383, 16_384, 39_999], n)
    assert ids == ["0", "16383", "16384", "39999"] and texts == ["t0", "t16383", "t16384",
                                                                  "t39999"]  # fmt: skip
    assert every["id"] == [str(i) for i in range(n)] and every["src"] == [""] * n
    for column, row in (("id", 20_001), ("text", 20_005)):
        values = table.column(column).to_pylist()
        values[row] = None
        pq.write_table(table.set_column(table.schema.get_field_index(column), column,
                                        pa.array(values)), path)  # fmt: skip
        with pytest.raises(ValueError) as expected:
            list(ns.iter_corpus(path, id_field="id"))
        with pytest.raises(ValueError) as got:
            list(read_rows(path, np.zeros(n, dtype=bool), id_field="id"))
        assert str(got.value) == str(expected.value) and f"row index {row}" in str(got.value)


def test_a_run_of_parquet_parts_in_any_order_is_read_as_the_run(run, tmp_path):
    """The Dask engine writes clusters.parquet as a folder of parts, rows in any order: the
    audit of such a folder equals the audit of the single file, and the run's ids are still
    checked against the corpus's (each wanted row's id taken from the reordered parts)."""
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    path, out = run
    table = pq.read_table(out / "clusters.parquet")
    order = np.random.default_rng(4).permutation(table.num_rows)
    parts = tmp_path / "parts"
    (parts / "clusters.parquet").mkdir(parents=True)
    shutil.copy(out / "summary.json", parts / "summary.json")
    shuffled = table.take(pa.array(order))
    for k, (lo, hi) in enumerate([(0, 150), (150, table.num_rows)]):
        piece = parts / "clusters.parquet" / f"part.{k}.parquet"
        pq.write_table(shuffled.slice(lo, hi - lo), piece)
    whole = audit(path, run=out, id_field="id", sample=60, seed=3)
    split = audit(path, run=parts, id_field="id", sample=60, seed=3)
    assert _public(split) | {"source": ""} == _public(whole) | {"source": ""}
    # the ids in the parts are checked: one id changed in a part is found
    ids = shuffled.column("id").to_pylist()
    at = ids.index("d0")
    ids[at] = "changed"
    bad = shuffled.set_column(shuffled.schema.get_field_index("id"), "id", pa.array(ids))
    shutil.rmtree(parts / "clusters.parquet")
    (parts / "clusters.parquet").mkdir()
    pq.write_table(bad, parts / "clusters.parquet" / "part.0.parquet")
    with pytest.raises(ValueError, match="row 0 of the corpus has id 'd0' and the run 'changed'"):
        audit(path, run=parts, id_field="id", sample=400)
