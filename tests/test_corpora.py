"""Corpus readers (issue 10 item 1, item 6): every format, good and bad files, both modes."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

import nearsim as ns
from nearsim.io.corpora import CorpusReport

TEXTS = [f"document number {i}, with a few words" for i in range(20)]


def jsonl(records: list, *, end: str = "\n") -> bytes:
    return "".join(json.dumps(r) + end for r in records).encode()


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def records(texts=TEXTS, **extra) -> list[dict]:
    return [{"id": f"doc-{i}", "text": t, **extra} for i, t in enumerate(texts)]


def parquet(path: Path, table: dict, row_group_size: int = 7) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table(table), path, row_group_size=row_group_size)
    return path


def expect(df: pd.DataFrame, ids: list[str], texts: list[str]) -> None:
    assert list(df.columns) == ["id", "text"]
    assert isinstance(df.index, pd.RangeIndex) and df.index.start == 0
    assert df["id"].tolist() == ids
    assert df["text"].tolist() == texts
    assert all(isinstance(v, str) for v in df["id"].tolist() + df["text"].tolist())


# --------------------------------------------------------------------------------------
# Good files, every format
# --------------------------------------------------------------------------------------


def _good_files(tmp: Path) -> dict[str, Path]:
    raw = jsonl(records())
    return {
        "jsonl": write(tmp / "a.jsonl", raw),
        "ndjson": write(tmp / "a.ndjson", raw),
        "json": write(tmp / "a.json", raw),
        "gzip": write(tmp / "a.jsonl.gz", gzip.compress(raw, mtime=0)),
        "zstd": write(tmp / "a.jsonl.zst", zstandard.ZstdCompressor().compress(raw)),
        "zstd json": write(tmp / "b.JSON.ZST", zstandard.ZstdCompressor().compress(raw)),
        "crlf": write(tmp / "crlf.jsonl", jsonl(records(), end="\r\n")),
        "bom and blank lines": write(
            tmp / "blank.jsonl", b"\xef\xbb\xbf\n" + raw.replace(b"\n", b"\n\n  \n") + b"\n\n"
        ),
        "parquet": parquet(
            tmp / "a.parquet",
            {"id": [f"doc-{i}" for i in range(20)], "text": TEXTS, "extra": list(range(20))},
        ),
        "csv": write(
            tmp / "a.csv",
            ("id,text\n" + "".join(f'doc-{i},"{t}"\n' for i, t in enumerate(TEXTS))).encode(),
        ),
        "tsv": write(
            tmp / "a.tsv",
            ("id\ttext\n" + "".join(f"doc-{i}\t{t}\n" for i, t in enumerate(TEXTS))).encode(),
        ),
    }


@pytest.mark.parametrize(
    "kind",
    ["jsonl", "ndjson", "json", "gzip", "zstd", "zstd json", "crlf", "bom and blank lines",
     "parquet", "csv", "tsv"],
)  # fmt: skip
def test_every_format_reads_the_same_corpus(tmp_path, kind):
    path = _good_files(tmp_path)[kind]
    expect(ns.read_corpus(path), [str(i) for i in range(20)], TEXTS)
    with_ids = ns.read_corpus(str(path), id_field="id")
    expect(with_ids, [f"doc-{i}" for i in range(20)], TEXTS)
    assert with_ids.attrs["skipped"] == 0


def test_folder_of_parquet_files_with_row_groups(tmp_path):
    folder = tmp_path / "dataset"
    for part in range(3):  # 3 files x 10 rows, row groups of 3: batches cross both
        rows = range(part * 10, part * 10 + 10)
        parquet(folder / f"part-{part}.parquet", {"text": [f"t{i}" for i in rows],
                                                 "n": list(rows)}, row_group_size=3)  # fmt: skip
    write(folder / "_SUCCESS", b"")
    write(folder / ".hidden.parquet", b"not parquet")
    assert pq.ParquetFile(folder / "part-0.parquet").num_row_groups == 4
    df = ns.read_corpus(folder, id_field="n", batch_size=4)
    expect(df, [str(i) for i in range(30)], [f"t{i}" for i in range(30)])
    reader = ns.iter_corpus(folder, batch_size=7)
    assert [len(b) for b in reader] == [7, 7, 7, 7, 2]
    assert reader.report.files == 3 and reader.report.records == 30


def test_parquet_reads_only_the_needed_columns(tmp_path, monkeypatch):
    path = parquet(tmp_path / "a.parquet", {"text": ["a", "b"], "big": ["x" * 10, "y"]})
    asked = []
    original = pq.ParquetFile.iter_batches

    def spy(self, *args, **kwargs):
        asked.append(kwargs.get("columns"))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", spy)
    assert ns.read_corpus(path)["text"].tolist() == ["a", "b"]
    assert asked == [["text"]]


def test_parquet_dictionary_and_integer_ids(tmp_path):
    table = pa.table({
        "text": pa.array(["a", "b", "a"]).dictionary_encode(),
        "id": pa.array([10, 20, 30], type=pa.int32()),
    })  # fmt: skip
    pq.write_table(table, tmp_path / "d.parquet")
    expect(ns.read_corpus(tmp_path / "d.parquet", id_field="id"), ["10", "20", "30"],
           ["a", "b", "a"])  # fmt: skip


def test_text_files_and_folders(tmp_path):
    write(tmp_path / "docs" / "b.md", b"# Title\n\nbody")
    write(tmp_path / "docs" / "a.txt", b"plain text\r\n")
    write(tmp_path / "docs" / "sub" / "c.html", b"<nav>menu</nav><p>visible</p>")
    write(tmp_path / "docs" / "notes.xlsx", b"PK\x03\x04")  # unsupported: left out
    df = ns.read_corpus(tmp_path / "docs")
    paths = [str(tmp_path / "docs" / p) for p in ("a.txt", "b.md", "sub/c.html")]
    expect(df, paths, ["plain text", "# Title\n\nbody", "visible"])


def test_several_inputs_number_records_across_them(tmp_path):
    files = _good_files(tmp_path)
    df = ns.read_corpus([files["jsonl"], files["parquet"], files["csv"]])
    expect(df, [str(i) for i in range(60)], TEXTS * 3)


def test_huge_line_and_empty_files(tmp_path):
    huge = "word " * 1_000_000  # a 5 MB line
    path = write(tmp_path / "huge.jsonl", jsonl([{"text": "short"}, {"text": huge}]))
    assert ns.read_corpus(path)["text"].tolist() == ["short", huge]
    for name in ("empty.jsonl", "empty.csv", "empty.parquet.jsonl.gz"):
        data = gzip.compress(b"", mtime=0) if name.endswith(".gz") else b""
        empty = ns.read_corpus(write(tmp_path / name, data))
        assert list(empty.columns) == ["id", "text"] and len(empty) == 0
    assert list(ns.iter_corpus(tmp_path / "empty.jsonl")) == []


# --------------------------------------------------------------------------------------
# Batches and ids
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("batch_size", [1, 2, 7, 10_000])
def test_batch_boundaries(tmp_path, batch_size):
    a = write(tmp_path / "a.jsonl", jsonl(records(TEXTS[:9])))
    b = parquet(tmp_path / "b.parquet", {"text": TEXTS[9:], "id": list(range(9, 20))}, 4)
    batches = list(ns.iter_corpus([a, b], batch_size=batch_size))
    sizes = [len(x) for x in batches]
    assert sizes == [batch_size] * (20 // batch_size) + (
        [20 % batch_size] if 20 % batch_size else []
    )
    for x in batches:
        assert isinstance(x.index, pd.RangeIndex) and x.index.start == 0
    expect(pd.concat(batches, ignore_index=True), [str(i) for i in range(20)], TEXTS)


# --------------------------------------------------------------------------------------
# Bad records: named in "fail" mode, counted in "skip" mode
# --------------------------------------------------------------------------------------

GOOD = json.dumps({"text": "good", "id": 1}).encode() + b"\n"

BAD_LINES = [
    (b'["an", "array"]', r"line 2: it is an array .*not an object; accepted: one JSON object"),
    (b'"just a string"', r"line 2: it is a string"),
    (b'{"body": "x", "id": 2}', r"line 2: the record has no field 'text' .*are: 'body', 'id'"),
    (b'{"text": 5, "id": 2}', r"line 2: field 'text' is a number, not a string"),
    (b'{"text": null, "id": 2}', r"line 2: field 'text' is null, not a string"),
    (b'{"text": "unterminated', r"line 2: it is not JSON \(Unterminated string starting at col"),
    (b"not json at all", r"line 2: it is not JSON \(Expecting value at column 1\)"),
    (b'{"text": "nul\x00byte"}', r"line 2: it holds NUL bytes"),
    (b'{"text": "caf\xe9"}', r"line 2: it is not valid UTF-8 \(byte 0xe9 at byte 14\)"),
    (b'{"text": "\\ud800"}', r"line 2: field 'text' holds an escaped lone surrogate"),
    (b"[" * 100_000, r"line 2: it is (JSON nested too deeply|not JSON)"),
]  # fmt: skip


@pytest.mark.parametrize(("line", "match"), BAD_LINES)
@pytest.mark.parametrize("compress", ["", ".gz", ".zst"])
def test_bad_json_lines(tmp_path, line, match, compress):
    raw = GOOD + line + b"\n" + GOOD
    if compress == ".gz":
        raw = gzip.compress(raw, mtime=0)
    elif compress == ".zst":
        raw = zstandard.ZstdCompressor().compress(raw)
    path = write(tmp_path / f"bad.jsonl{compress}", raw)
    with pytest.raises(ValueError, match=r"file '.*bad\.jsonl" + compress.replace(".", r"\.")
                       + "', " + match):  # fmt: skip
        ns.read_corpus(path)
    reader = ns.iter_corpus(path, on_error="skip")
    df = pd.concat(list(reader), ignore_index=True)
    expect(df, ["0", "2"], ["good", "good"])  # the bad record keeps its number
    assert reader.skipped == 1 and reader.report.skipped_by_file == {str(path): 1}
    assert "skipped 1 bad record (" in reader.report.summary()
    assert ns.read_corpus(path, on_error="skip").attrs["skipped"] == 1


@pytest.mark.parametrize(
    ("line", "match"),
    [
        (b'{"text": "x"}', r"line 2: the record has no field 'id' \(the id field\)"),
        (b'{"text": "x", "id": true}', r"line 2: field 'id' \(the id\) is a boolean; accepted"),
        (b'{"text": "x", "id": 1.5}', r"line 2: field 'id' \(the id\) is a number; accepted"),
        (b'{"text": "x", "id": [1]}', r"is an array; accepted: a string or an integer"),
    ],
)
def test_bad_ids(tmp_path, line, match):
    path = write(tmp_path / "ids.jsonl", GOOD + line + b"\n")
    with pytest.raises(ValueError, match=match):
        ns.read_corpus(path, id_field="id")
    assert ns.read_corpus(path, id_field="id", on_error="skip")["id"].tolist() == ["1"]


def test_a_json_document_is_not_json_lines(tmp_path):
    path = write(tmp_path / "array.json", b'[\n  {"text": "a"},\n  {"text": "b"}\n]\n')
    with pytest.raises(ValueError, match=r"array\.json', line 1: it is not JSON"):
        ns.read_corpus(path)


def test_parquet_without_the_column(tmp_path):
    path = parquet(tmp_path / "p.parquet", {"body": ["a", "b", "c"], "n": [1, 2, 3]})
    match = r"p\.parquet' has no column 'text' \(the text field\); its columns are: 'body', 'n'"
    with pytest.raises(ValueError, match=match):
        ns.read_corpus(path)
    other = write(tmp_path / "q.jsonl", GOOD)
    reader = ns.iter_corpus([path, other], on_error="skip")
    expect(pd.concat(list(reader), ignore_index=True), ["3"], ["good"])
    assert reader.report.skipped_by_file == {str(path): 3}
    with pytest.raises(ValueError, match=r"column 'n' \(the text field\) .* holds int64 values"):
        ns.read_corpus(path, text_field="n")
    with pytest.raises(ValueError, match=r"no column 'key' \(the id field\)"):
        ns.read_corpus(path, text_field="body", id_field="key")


def test_parquet_nulls_are_bad_records(tmp_path):
    path = parquet(tmp_path / "n.parquet", {"text": ["a", None, "c"], "id": ["x", "y", None]})
    with pytest.raises(ValueError, match=r"n\.parquet', row index 1: the text is null"):
        ns.read_corpus(path)
    ids = parquet(tmp_path / "m.parquet", {"text": ["a", "b", "c"], "id": ["x", "y", None]})
    with pytest.raises(ValueError, match=r"m\.parquet', row index 2: the id is null"):
        ns.read_corpus(ids, id_field="id")
    expect(ns.read_corpus(path, on_error="skip"), ["0", "2"], ["a", "c"])
    expect(ns.read_corpus(path, id_field="id", on_error="skip"), ["x"], ["a"])


def test_not_parquet_and_cut_gzip_fail_in_both_modes(tmp_path):
    fake = write(tmp_path / "fake.parquet", b"PAR1 not really")
    data = jsonl([{"text": f"text {i * 7919 % 10007}"} for i in range(5000)])
    packed = gzip.compress(data, mtime=0)
    cut = write(tmp_path / "cut.jsonl.gz", packed[: len(packed) // 2])
    packed = zstandard.ZstdCompressor().compress(data)
    cut_zst = write(tmp_path / "cut.jsonl.zst", packed[: len(packed) // 2])
    for on_error in ("fail", "skip"):
        with pytest.raises(ValueError, match=r"fake\.parquet' is not a readable Parquet file"):
            ns.read_corpus(fake, on_error=on_error)
        with pytest.raises(ValueError, match=r"cut\.jsonl\.gz' cannot be read after line \d+"):
            ns.read_corpus(cut, on_error=on_error)
        with pytest.raises(ValueError, match=r"cut\.jsonl\.zst' cannot be read"):
            ns.read_corpus(cut_zst, on_error=on_error)
        with pytest.raises(ValueError, match=r"plain\.jsonl\.gz' cannot be read at its start"):
            ns.read_corpus(write(tmp_path / "plain.jsonl.gz", GOOD), on_error=on_error)


def test_csv_bad_rows(tmp_path):
    path = write(tmp_path / "r.csv", b"id,text\n1,one\n2,two,extra\n3,three\n4,caf\xe9\n")
    with pytest.raises(ValueError, match=r"row 3 of file '.*r\.csv' has 3 fields but the header"):
        ns.read_corpus(path)
    reader = ns.iter_corpus(path, id_field="id", on_error="skip")
    df = pd.concat(list(reader), ignore_index=True)
    # the whole file is not UTF-8, so it is read as Windows-1252: 'café' is fine
    expect(df, ["1", "3", "4"], ["one", "three", "café"])
    assert reader.skipped == 1


def test_csv_undecodable_bytes_after_the_first_megabyte(tmp_path):
    head = "".join(f"{i},text {i}\n" for i in range(120_000)).encode()  # > 1 MB of UTF-8
    path = write(tmp_path / "late.csv", b"id,text\n" + head + b"x,caf\xe9\n")
    with pytest.raises(ValueError, match=r"row 120002 .* not utf-8 text"):
        ns.read_corpus(path)
    assert len(ns.read_corpus(path, on_error="skip")) == 120_000


def test_csv_malformed_quoting_fails_in_both_modes(tmp_path):
    rows = "".join(f"{i},doc {i}\n" for i in range(2, 1000))
    path = write(tmp_path / "q.csv", ('id,text\n1,"open\n' + rows).encode())
    for on_error in ("fail", "skip"):
        with pytest.raises(ValueError, match=r"row 2 of file '.*q\.csv' starts a quoted field"):
            ns.read_corpus(path, on_error=on_error)


def test_csv_without_the_column_says_why(tmp_path):
    path = write(tmp_path / "h.csv", b"1,the ferry left at dawn\n2,the ferry left at noon\n")
    with pytest.raises(ValueError, match=r"column 'text' is not in .*seems to have no header"):
        ns.read_corpus(path)
    assert ns.read_corpus(path, text_field="column 2")["text"].tolist()[0] == (
        "the ferry left at dawn"
    )


def test_text_file_without_text_is_a_bad_record(tmp_path):
    write(tmp_path / "d" / "a.txt", b"fine")
    write(tmp_path / "d" / "b.txt", b"   ")
    write(tmp_path / "d" / "c.txt", b"\x89PNG\r\n\x1a\n\x00")
    with pytest.raises(ValueError, match=r"file 'b\.txt' has no text"):
        ns.read_corpus(tmp_path / "d")
    reader = ns.iter_corpus(tmp_path / "d", on_error="skip")
    assert pd.concat(list(reader))["text"].tolist() == ["fine"]
    assert reader.skipped == 2 and "looks like a PNG image" in reader.report.problems[1]


def test_report_summary_and_problems_cap(tmp_path):
    path = write(tmp_path / "many.jsonl", GOOD + b"[1]\n" * 25)
    reader = ns.iter_corpus(path, on_error="skip")
    assert reader.report.summary() == "read 0 records from 0 files; no bad records"
    list(reader)
    report = reader.report
    assert (report.records, report.skipped, len(report.problems)) == (1, 25, 10)
    assert report.summary().startswith(
        f"read 1 record from 1 file; skipped 25 bad records (25 in '{path}'); first: file"
    )
    assert isinstance(report, CorpusReport)


# --------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"paths": []}, r"paths=\[\] is not accepted; accepted: a path"),
        ({"paths": 5}, r"paths=5 is not accepted"),
        ({"paths": [5]}, r"paths holds 5, which is not accepted"),
        ({"paths": "missing.jsonl"}, r"path 'missing\.jsonl' does not exist"),
        ({"on_error": "ignore"}, r"on_error='ignore' is not accepted; accepted: one of 'fail'"),
        ({"on_error": None}, r"on_error=None is not accepted"),
        ({"batch_size": 0}, r"batch_size=0 is not accepted; accepted: an integer from 1"),
        ({"batch_size": 2.0}, r"batch_size=2.0 is not accepted"),
        ({"batch_size": True}, r"batch_size=True is not accepted"),
        ({"text_field": 5}, r"text_field=5 is not accepted; accepted: a field name"),
        ({"text_field": ""}, r"text_field='' is not accepted"),
        ({"id_field": 0}, r"id_field=0 is not accepted"),
        ({"id_field": "\ud800"}, r"id_field=.* lone surrogate"),
    ],
)
def test_arguments_are_checked_at_once(tmp_path, monkeypatch, kwargs, match):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "ok.jsonl", GOOD)
    kwargs = {"paths": "ok.jsonl", **kwargs}
    with pytest.raises(ValueError, match=match):
        ns.iter_corpus(**kwargs)  # raised on the call, before any iteration


def test_unsupported_files_and_empty_folders(tmp_path):
    with pytest.raises(
        ValueError, match=r"x\.xlsx' is not of a supported type; accepted .*\.jsonl"
    ):
        ns.read_corpus(write(tmp_path / "x.xlsx", b"PK"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"folder '.*empty' holds no supported files"):
        ns.read_corpus(tmp_path / "empty")


def test_zstd_frames_one_after_another(tmp_path):
    raw = jsonl(records())
    packer = zstandard.ZstdCompressor()
    path = write(
        tmp_path / "two.jsonl.zst", packer.compress(raw[:300]) + packer.compress(raw[300:])
    )
    expect(ns.read_corpus(path), [str(i) for i in range(20)], TEXTS)


# --------------------------------------------------------------------------------------
# Sampling (issue 12 item 1)
# --------------------------------------------------------------------------------------


def _sequential_r(n: int, seed: int, total: int) -> np.ndarray:
    """Algorithm R one item at a time, with the same draws: the reference."""
    rng = np.random.default_rng(seed)
    where = np.full(n, -1, dtype=np.int64)
    for t in range(total):
        if t < n:
            where[t] = t
            continue
        j = int(np.floor(rng.random() * (t + 1)))
        if j < n:
            where[j] = t
    return where


@pytest.mark.parametrize("cuts", [[1] * 30, [30], [2, 5, 7, 16], [3, 0, 27]])
def test_reservoir_equals_one_at_a_time_whatever_the_batches(cuts):
    from nearsim.io.corpora import _Reservoir

    for seed in range(20):
        reservoir = _Reservoir(6, seed)
        for m in cuts:
            reservoir.offer(m)
        assert reservoir.seen == 30
        np.testing.assert_array_equal(reservoir.where, _sequential_r(6, seed, 30))


def test_reservoir_subsets_are_uniform():
    """Every 3-subset of 6 items should come out with probability 1/20.

    Over S = 8,000 seeds the 20 subset counts are multinomial(S, 1/20), so Pearson's
    statistic is χ² with 19 degrees of freedom; the test fails above its 1 − 10⁻⁴ quantile
    (a correct sampler fails one run in 10,000) or below its 10⁻⁴ quantile (too regular to
    be random). The draws are fixed by the seeds, so the test is deterministic.
    """
    from scipy import stats

    from nearsim.io.corpora import _Reservoir

    seeds = 8_000
    counts: dict[tuple[int, ...], int] = {}
    for seed in range(seeds):
        reservoir = _Reservoir(3, seed)
        reservoir.offer(6)  # one batch: slots drawn twice in it are resolved as R does
        key = tuple(sorted(reservoir.where.tolist()))
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == 20
    observed = np.array(list(counts.values()))
    expected = seeds / 20
    chi2 = float(((observed - expected) ** 2 / expected).sum())
    assert stats.chi2.ppf(1e-4, 19) < chi2 < stats.chi2.ppf(1 - 1e-4, 19), chi2


def test_sample_corpus_is_uniform_over_records(tmp_path):
    """Each of N = 40 records should be in a sample of n = 10 with probability p = 1/4.

    Over S = 600 seeds record i's count c_i is Binomial(S, p) (mean 150, sd 10.6). With
    X = Σ (c_i − Sp)² / (Sp(1 − p)), E[X] = N exactly, and because Σ c_i = S·n is fixed X
    is close to N/(N − 1) · χ²(N − 1); the test fails outside its [10⁻⁴, 1 − 10⁻⁴]
    quantiles. Each count must also be within 4.5 sd of its mean (P ≈ 7·10⁻⁶ each, 3·10⁻⁴
    for any of the 40). The records are split over two files so that the second file's
    records, read after the first's, are checked to be as likely.
    """
    from scipy import stats

    n_records, n, seeds, p = 40, 10, 600, 10 / 40
    a = write(tmp_path / "a.jsonl", jsonl([{"text": f"t{i}"} for i in range(25)]))
    b = parquet(tmp_path / "b.parquet", {"text": [f"t{i}" for i in range(25, 40)]}, 4)
    counts = np.zeros(n_records)
    for seed in range(seeds):
        sample, total = ns.sample_corpus([a, b], n, seed=seed)
        assert total == n_records and len(sample) == n
        rows = sample["id"].astype(int).to_numpy()
        assert np.all(np.diff(rows) > 0)  # in input order, no repeats
        counts[rows] += 1
    sd = np.sqrt(seeds * p * (1 - p))
    assert np.all(np.abs(counts - seeds * p) < 4.5 * sd), counts
    x = float(((counts - seeds * p) ** 2).sum() / (seeds * p * (1 - p)))
    scale = n_records / (n_records - 1)
    low, high = stats.chi2.ppf([1e-4, 1 - 1e-4], n_records - 1)
    assert low < x / scale < high, x


def test_sample_corpus_is_reproducible_and_consistent_with_read_corpus(tmp_path):
    rows = [{"text": f"text {i}", "key": f"k{i}"} for i in range(30_000)]
    raw = jsonl(rows[:12_000]) + b"[1]\n" + jsonl(rows[12_000:])
    path = write(tmp_path / "big.jsonl.gz", gzip.compress(raw, mtime=0))
    first, total = ns.sample_corpus(path, 1000, seed=5, on_error="skip")
    again, _ = ns.sample_corpus(path, 1000, seed=5, on_error="skip")
    other, _ = ns.sample_corpus(path, 1000, seed=6, on_error="skip")
    assert total == 30_000 and len(first) == 1000
    pd.testing.assert_frame_equal(first, again)
    assert not first["id"].equals(other["id"])
    assert first.attrs["skipped"] == 1
    whole = ns.read_corpus(path, on_error="skip").set_index("id")["text"]
    assert whole.loc[first["id"]].tolist() == first["text"].tolist()
    keyed, _ = ns.sample_corpus(path, 1000, seed=5, id_field="key", on_error="skip")
    assert keyed["text"].tolist() == first["text"].tolist()
    assert keyed["id"].str.startswith("k").all()


def test_sample_corpus_smaller_than_n_and_arguments(tmp_path):
    path = write(tmp_path / "s.jsonl", jsonl(records()))
    sample, total = ns.sample_corpus(path)  # n = 20,000 by default
    assert total == 20
    expect(sample, [str(i) for i in range(20)], TEXTS)
    empty, total = ns.sample_corpus(write(tmp_path / "e.jsonl", b""), 5)
    assert total == 0 and len(empty) == 0 and list(empty.columns) == ["id", "text"]
    bad = [({"n": 0}, r"n=0 is not accepted"), ({"seed": -1}, r"seed=-1"),
           ({"n": 2.5}, r"n=2.5"), ({"on_error": "x"}, r"on_error='x'")]  # fmt: skip
    for kwargs, match in bad:
        with pytest.raises(ValueError, match=match):
            ns.sample_corpus(path, **kwargs)


@pytest.mark.parametrize(
    ("line", "good"),
    [
        (b'  {"text": "a"} \t', True),
        (b'{"text": "a", "x": [1, {"y": null}]}', True),
        (b'{"text": "\\u00e9t\\u00e9 \\ud83d\\ude00"}', True),  # escapes, a surrogate pair
        (b'\x0c{"text": "a"}', False),  # form feed is not JSON white space
        (b'{"text": "a"} x', False),
        (b'{"text": "a"}{"text": "b"}', False),
        (b'{"text": "a",}', False),
        (b"{'text': 'a'}", False),
    ],
)
def test_json_lines_are_read_as_json_loads_reads_them(tmp_path, line, good):
    path = write(tmp_path / "x.jsonl", line + b"\n")
    df = ns.read_corpus(path, on_error="skip")
    assert len(df) == int(good)
    if good:
        assert df["text"].iloc[0] == json.loads(line)["text"]


@settings(max_examples=300)
@given(st.text(alphabet=' \t{}[]":,0123456789.eE+-truefalsnl\\abu', max_size=30))
def test_fast_json_parse_agrees_with_json_loads(text):
    """The scanner fast path accepts exactly what json.loads accepts, with the same value."""
    from nearsim.io.formats import _parse

    line = text.strip(" \t\r\n")
    try:
        expected, ok = json.loads(line), True
    except (json.JSONDecodeError, RecursionError):
        ok = False
    value, problem = _parse(line)
    assert (problem is None) == ok
    if ok:
        assert value == expected


# -- inspect_corpus: the field picker ---------------------------------------------------
def test_inspect_corpus_lists_fields_and_guesses_the_text(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [
        {"id": i, "url": f"https://example.org/{i}", "body": f"the ferry left at dawn {i} times"}
        for i in range(5)
    ]
    jsonl = tmp_path / "a.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    info = ns.inspect_corpus(jsonl)
    assert info.fields == ("id", "url", "body") and info.text_field == "body" and info.files == 1
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "a.parquet")
    info = ns.inspect_corpus(tmp_path / "a.parquet")
    assert info.fields == ("id", "url", "body") and info.text_field == "body"
    (tmp_path / "c.csv").write_text("id,body\n1,the ferry left at dawn\n2,rain over the hills\n")
    assert ns.inspect_corpus(tmp_path / "c.csv").text_field == "body"
    (tmp_path / "d.txt").write_text("one document")
    assert ns.inspect_corpus(tmp_path / "d.txt").fields == ("text",)


def test_inspect_corpus_refuses_what_it_cannot_read(tmp_path):
    empty = tmp_path / "e.jsonl"
    empty.write_text("")
    with pytest.raises(ValueError, match="no records to read fields from"):
        ns.inspect_corpus(empty)
    with pytest.raises(ValueError, match="records=0 is not accepted"):
        ns.inspect_corpus(tmp_path, records=0)


# -- escapes the garbage test (tests/test_garbage.py) found ------------------------------
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"files": None}, r"files=None is not accepted; accepted: a path"),  # was: TypeError
        ({"files": "abc"}, r"path 'abc' does not exist"),  # was: AttributeError
        ({"batch_size": 0}, r"batch_size=0 is not accepted; accepted: an integer from 1"),
        ({"text_field": None}, r"text_field=None is not accepted"),
        ({"on_error": "ignore"}, r"on_error='ignore' is not accepted"),
    ],
)
def test_corpus_reader_checks_its_arguments(tmp_path, kwargs, match):
    """The constructor took anything; batch_size=0 looped for ever on the first record."""
    path = tmp_path / "a.jsonl"
    path.write_text('{"text": "one"}\n')
    args = {"files": [path], "text_field": "text", "id_field": None, "batch_size": 1,
            "on_error": "fail"} | kwargs  # fmt: skip
    with pytest.raises(ValueError, match=match):
        list(ns.CorpusReader(**args))


def test_an_empty_path_is_not_the_working_folder(tmp_path, monkeypatch):
    """Was: "" read every supported file under the working folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.jsonl").write_text('{"text": "one"}\n')
    with pytest.raises(ValueError, match=r"paths holds '', which is not accepted"):
        ns.read_corpus("")


# --------------------------------------------------------------------------------------
# The block reader (pyarrow, nearsim.io.jsonl_fast) against the line-by-line reader
# --------------------------------------------------------------------------------------

_GOOD_RECORD = st.fixed_dictionaries(
    {
        "id": st.one_of(st.text(max_size=4), st.integers(-(10**20), 10**20)),
        "text": st.text(max_size=12),
    },
    optional={"meta": st.lists(st.integers(), max_size=2)},
).flatmap(lambda r: st.sampled_from([json.dumps(r).encode(), json.dumps(r, ensure_ascii=False)
                                     .encode("utf-8", "surrogatepass")]))  # fmt: skip
_ODD_LINE = st.sampled_from(
    [b"", b"  \t", b"\x0c", b'["a"]', b'"s"', b"not json", b'{"text": 5, "id": "a"}',
     b'{"id": "x"}', b'{"text": "x"}', b'{"text": null, "id": 1}', b'{"text": "x", "id": 1.5}',
     b'{"text": "x", "id": true}', b'{"text": "a", "id": 1} {"text": "b", "id": 2}',
     b'{"text": "a", "text": "b", "id": 3}', b'{"text": "\\ud800", "id": 4}',
     b'{"text": "caf\xe9", "id": 5}', b'{"text": "a\x00", "id": 6}', b'{"text": "a\tb", "id": 7}',
     b'{"text": "\\ud83d\\ude00", "id": 8}', b'\xef\xbb\xbf{"text": "bom", "id": 9}']
)  # fmt: skip


def _read_all(path: Path, id_field: str | None) -> tuple[list, list, list]:
    reader = ns.iter_corpus(path, id_field=id_field, on_error="skip", batch_size=7)
    batches = list(reader)
    rows = [(i, t) for b in batches for i, t in zip(b["id"], b["text"], strict=True)]
    return rows, list(reader.report.problems), list(reader.report.skipped_by_file.items())


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.one_of(_GOOD_RECORD, _GOOD_RECORD, _ODD_LINE), max_size=25),
    st.booleans(),
    st.sampled_from([None, "id"]),
    st.sampled_from([64, 1 << 20]),
)
def test_block_reader_equals_the_line_reader(tmp_path_factory, lines, newline, id_field, size):
    """Whatever a file holds, reading it in blocks parsed by pyarrow gives the records,
    ids, problems and counts that reading it a line at a time gives (blocks of 64 bytes:
    lines cut across blocks, many blocks to a file)."""
    from unittest import mock

    path = tmp_path_factory.mktemp("blocks") / "c.jsonl"
    path.write_bytes(b"\n".join(lines) + (b"\n" if newline else b""))
    with mock.patch("nearsim.io.jsonl_fast.BLOCK_BYTES", size):
        fast = _read_all(path, id_field)
        with mock.patch("nearsim.io.formats.parse_block", return_value=None):
            slow = _read_all(path, id_field)
    assert fast == slow


def test_plain_blocks_are_parsed_by_pyarrow(tmp_path):
    """The block reader is not the line reader in disguise: a clean file never reaches
    the line-by-line parse."""
    from unittest import mock

    strings = write(tmp_path / "s.jsonl", jsonl(records()))
    negative = [{"id": -i, "text": t} for i, t in enumerate(TEXTS)]
    numbers = write(tmp_path / "n.jsonl", jsonl(negative))
    with mock.patch("nearsim.io.formats._json_record", side_effect=AssertionError):
        expect(ns.read_corpus(strings, id_field="id"), [f"doc-{i}" for i in range(20)], TEXTS)
        expect(ns.read_corpus(numbers, id_field="id"), [str(-i) for i in range(20)], TEXTS)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")), max_size=20),
    st.booleans(),
    st.lists(st.integers(0, 10_000), max_size=4),
    st.sampled_from([1, 7, 64, 1 << 20]),
)
def test_blocks_of_spans_hold_every_line_once(lines, newline, cuts, size):
    """``_jsonl_fast.blocks`` over the spans the Dask engine cuts (at line starts) gives
    back the file, each line whole and once; a stop inside a line takes that line whole."""
    import io
    import itertools
    from unittest import mock

    from nearsim.io import jsonl_fast as _jsonl_fast

    data = b"\n".join(lines) + (b"\n" if newline and lines else b"")
    starts = sorted({0, *(i + 1 for i, c in enumerate(data) if c == 10 and i + 1 < len(data))})
    edges = sorted({0, len(data), *(starts[c % len(starts)] for c in cuts)})
    with mock.patch.object(_jsonl_fast, "BLOCK_BYTES", size):
        got = b"".join(
            block
            for a, b in itertools.pairwise(edges)
            for block in _jsonl_fast.blocks(io.BytesIO(data), a, b)
        )
        assert got == data
        whole = b"".join(_jsonl_fast.blocks(io.BytesIO(data)))
        assert whole == data
        if len(lines) > 1 and lines[0]:  # a stop one byte into the first line
            first = b"".join(_jsonl_fast.blocks(io.BytesIO(data), 0, 1))
            assert first == data[: data.index(b"\n") + 1]
