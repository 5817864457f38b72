"""Garbage thrown at every public name: a correct result, or a clear ValueError / TypeError.

:data:`TABLE` lists every public name of ``nearsim.__all__`` — each function, and the
constructors and public methods of each class — with a good call (valid arguments, every
parameter given). The property test replaces one argument at a time with garbage
(``garbage_support.garbage``: None, NaN, ±inf, huge integers, bools, strings that look
like numbers or flags, lone surrogates, bytes, containers, arrays of the wrong dtype or
shape, pair arrays with reversed or negative rows, DataFrames of junk, generators, a list
of a million ints, and near misses of the good value) and accepts only:

* a normal return that passes the name's check — the documented type and shape, and for
  the names whose answer is cheap to know (``shingles``, the signatures,
  ``estimate_jaccard``, ``standard_error``, ``candidate_probability``, the areas,
  ``candidate_pairs``, ``exact_pairs``, ``pair_jaccard``, ``clusters``, the Hamming
  functions, ``evaluate``'s counts, …) the answer of a brute-force oracle computed from
  the arguments actually passed (``garbage_checks``);
* a ``ValueError`` or ``TypeError`` of Python or nearsim whose message names the argument
  and says what is accepted, or for a problem of the data itself (a CSV file of one row,
  a record without the text field) the file and what is wrong with it, in the words the
  explorer shows (``garbage_support.problem_with``);

within ``garbage_support.DEADLINE`` seconds (numba compiling a kernel not counted), with
the address space capped so that a runaway allocation fails as ``MemoryError`` instead of
taking the machine down. Profile ``ci`` (tests/conftest.py) makes the draws derandomized.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest
from garbage_checks import (
    array_of,
    brute_bucket_candidates,
    check_area,
    check_clusters,
    check_copy_keys,
    check_copy_pairs,
    check_estimate_jaccard,
    check_estimate_pairs,
    check_evaluation,
    check_exact,
    check_fingerprints,
    check_hamming_distance,
    check_hamming_pairs,
    check_kept,
    check_minhasher,
    check_pair_jaccard,
    check_parse_query,
    check_probability,
    check_query,
    check_reader,
    check_settings,
    check_shingles,
    check_signature,
    check_signatures,
    check_standard_error,
    check_text_signatures,
    check_tune,
    frame_of,
    fx,
    instance_of,
    jaccard_of,
    list_of_str,
    nothing,
    pairs_like,
    satisfies,
)
from garbage_support import DEADLINE, call_with_deadline, garbage, limited_memory, problem_with
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import nearsim as ns
from nearsim.utils.validation import MAX_DOCS, is_int


@dataclass(frozen=True)
class Case:
    """One public callable: how to get it, its good arguments, and the check of a return.

    ``also``: other arguments an error may rightly name when this one changes (a garbage
    ``num_perm`` can make a good ``b`` too large). ``content``: messages of problems of
    the data (``garbage_support.problem_with``). ``too_big``: integer ranges of an
    argument that are accepted but whose correct answer takes more memory than the cap
    (``clusters(10**9, [])`` is 8 GB of labels); they are not thrown. ``finish``: applied
    under the deadline (an iterator is consumed). ``examples``: garbage calls per name
    (0 for a method without arguments: its good call is all there is).
    """

    name: str
    target: Callable[[SimpleNamespace], Callable]
    good: Callable[[SimpleNamespace], dict[str, Any]]
    check: Callable[[Any, dict], None]
    also: dict[str, tuple[str, ...]] = field(default_factory=dict)
    content: tuple[str, ...] = ()
    too_big: dict[str, tuple[int, int]] = field(default_factory=dict)
    finish: Callable[[Any], Any] | None = None
    examples: int = 60

    def affordable(self, param: str, value: Any) -> bool:
        if param not in self.too_big or not is_int(value):
            return True
        low, high = self.too_big[param]
        return not low <= value <= high


def fn(name: str) -> Callable[[SimpleNamespace], Callable]:
    """The public function ``nearsim.<name>``."""
    return lambda f: getattr(ns, name)


def is_a(cls) -> Callable[[Any, dict], None]:
    return satisfies(lambda out, kw: isinstance(out, cls))


SHINGLING = {"kind": "char", "k": 5, "lowercase": True, "remove_punctuation": False,
             "collapse_whitespace": True}  # fmt: skip
CSV = {"header": None, "max_bytes": 10_000}
CORPUS = {"text_field": "text", "id_field": None, "on_error": "fail"}
REMOVAL = {"threshold": "f", "pairs": "i", "clusters": "i", "removed": "i", "removed_share": "f",
           "largest": "i"}  # fmt: skip
LABEL_TABLE = {"i": "i", "j": "i", "jaccard": "f", "label": "OT"}
CSV_CONTENT = (
    r"^the CSV file ",  # one row, binary, ragged, quoting, size: what the upload page shows
    r"^column .* is not in the CSV file; its columns are",
    r"^column position .* is out of range; the CSV file has",
)
FILE_CONTENT = (r"^file '.*' (has no extension|is not a supported|is \S+ bytes, more than)",
                r"^file '.*' has '\.[^']*'; accepted file types: ",
                r"^file '.*' (holds|has) no (visible )?text")  # fmt: skip
CORPUS_CONTENT = (
    r"^file '.*', line \d+: ",  # a bad record, named by its file and line
    r"^file '.*' (has no column|holds no|is not of a supported type)",
    r"^path '.*' does not exist; accepted: an existing file or folder",
    r"^folder '.*' holds no supported files",
)
INDEX_CONTENT = (r"^'.*' (does not exist|is not a folder|is not a nearsim index|has an "
                 r"index\.json that)",)
BR = {"b": ("r", "num_perm"), "r": ("b", "num_perm"), "num_perm": ("b", "r")}
PAIRED = {"sets": ("valid", "pairs", "labels"), "valid": ("sets", "fingerprints"),
          "fingerprints": ("valid", "exact", "lsh_pairs"), "similarity": ("weight",),
          "weight": ("similarity",), "n": ("pairs",), "pairs": ("n", "candidates"),
          "candidates": ("estimates", "pairs"), "estimates": ("candidates",),
          "labels": ("sets",), "sig1": ("sig2",), "sig2": ("sig1",),
          "signatures": ("pairs", "b", "r", "valid")}  # fmt: skip
"""Arguments whose garbage may make a good partner wrong (lengths, rows that must agree)."""
FIELDS = {"paths": ("path", "text_field", "id_field"), "files": ("path", "text_field", "id_field"),
          "text_field": ("paths", "files"), "id_field": ("paths", "files")}  # fmt: skip
SEEDS = ("example_seed", "hash_seed")


def _record_of(f) -> ns.CorpusReport:
    reader = ns.iter_corpus(f.corpus)
    list(reader)
    return reader.report


# fmt: off
TABLE: list[Case] = [
    # -- shingles, MinHash ------------------------------------------------------------------
    Case("shingles", fn("shingles"), lambda f: {"text": f.texts[0], **SHINGLING}, check_shingles),
    Case("MinHasher", lambda f: ns.MinHasher, lambda f: {"num_perm": 16, "seed": 1,
         "sketch": "minhash"}, check_minhasher),
    Case("MinHasher.base_hash", lambda f: f.mh.base_hash, lambda f: {"shingles": f.sets[0]},
         array_of(np.uint32, lambda kw: (len(list(kw["shingles"])),))),
    Case("MinHasher.signature", lambda f: f.mh.signature, lambda f: {"shingles": f.sets[0]},
         check_signature),
    Case("MinHasher.signatures", lambda f: f.mh.signatures,
         lambda f: {"shingle_lists": f.sets, "one_byte": False}, check_signatures),
    Case("MinHasher.text_signatures", lambda f: f.mh.text_signatures,
         lambda f: {"texts": f.texts, **SHINGLING, "one_byte": False}, check_text_signatures),
    Case("MinHasher.parameters", lambda f: f.mh.parameters, lambda f: {"count": 4},
         frame_of({"i": "i", "a": "u", "b": "u"}, lambda kw: min(kw["count"], 16))),
    Case("MinHasher.winners", lambda f: f.mh.winners, lambda f: {"shingles": f.sets[0],
         "positions": 4}, frame_of({"position": "i", "shingle": "OT", "index": "i", "hash": "u",
                                    "value": "u"})),
    Case("estimate_jaccard", fn("estimate_jaccard"), lambda f: {"sig1": f.sig[0],
         "sig2": f.sig[1]}, check_estimate_jaccard, also=PAIRED),
    Case("estimate_pairs", fn("estimate_pairs"), lambda f: {"signatures": f.sig,
         "pairs": f.cands}, check_estimate_pairs, also=PAIRED),
    Case("standard_error", fn("standard_error"), lambda f: {"j": np.array([0.2, 0.5]),
         "num_perm": 128, "one_byte": False}, check_standard_error),
    # -- LSH banding and tuning -------------------------------------------------------------
    Case("candidate_probability", fn("candidate_probability"),
         lambda f: {"s": np.array([0.1, 0.5, 0.9]), "b": 4, "r": 4, "sketch": "minhash",
                    "num_perm": None, "union_size": None, "with_error": False},
         check_probability, also=BR),
    Case("false_positive_area", fn("false_positive_area"), lambda f: {"t": 0.5, "b": 4, "r": 4},
         check_area("fp"), also=BR),
    Case("false_negative_area", fn("false_negative_area"), lambda f: {"t": 0.5, "b": 4, "r": 4},
         check_area("fn"), also=BR),
    Case("effective_threshold", fn("effective_threshold"), lambda f: {"b": 4, "r": 4},
         satisfies(lambda out, kw: type(out) is float
                   and out == pytest.approx((1 / kw["b"]) ** (1 / kw["r"]))), also=BR),
    Case("steepest_point", fn("steepest_point"), lambda f: {"b": 4, "r": 4},
         satisfies(lambda out, kw: type(out) is float and 0 <= out <= 1), also=BR),
    Case("tune", fn("tune"), lambda f: {"threshold": 0.5, "num_perm": 32, "fp_weight": 0.5,
         "fn_weight": 0.5, "sketch": "minhash", "union_size": None}, check_tune,
         also={"fp_weight": ("fn_weight",), "fn_weight": ("fp_weight",)}),
    Case("candidate_pairs", fn("candidate_pairs"), lambda f: {"signatures": f.sig, "b": 4,
         "r": 4, "valid": None, "max_pairs": 10**6, "bucket_limit": 2},
         pairs_like(lambda kw: brute_bucket_candidates(kw["signatures"], kw["b"], kw["r"],
                                                       kw["valid"], kw["bucket_limit"])),
         also={**PAIRED, "b": ("r", "signatures"), "r": ("b", "signatures")}),
    Case("copy_keys", fn("copy_keys"), lambda f: {"texts": f.texts, **SHINGLING},
         check_copy_keys),
    Case("copy_pairs", fn("copy_pairs"), lambda f: {"keys": f.keys, "valid": None},
         check_copy_pairs, also={"keys": ("valid",), "valid": ("keys",)}),
    # -- exact ground truth -----------------------------------------------------------------
    Case("exact_pairs", fn("exact_pairs"), lambda f: {"sets": f.sets, "threshold": 0.3,
         "method": "auto", "valid": None}, check_exact, also=PAIRED),
    Case("pair_jaccard", fn("pair_jaccard"), lambda f: {"sets": f.sets, "pairs": f.cands},
         check_pair_jaccard, also=PAIRED),
    Case("join_funnel", fn("join_funnel"), lambda f: {"sets": f.sets, "threshold": 0.5,
         "valid": None}, is_a(ns.JoinFunnel), also=PAIRED),
    Case("JoinFunnel.frame", lambda f: f.funnel.frame, lambda f: {},
         frame_of({"step": "OT", "pairs": "i", "removed": "i"}), examples=0),
    Case("TokenSets.from_shingles", lambda f: ns.TokenSets.from_shingles,
         lambda f: {"sets": f.sets},
         satisfies(lambda out, kw: isinstance(out, ns.TokenSets) and out.n == len(kw["sets"]))),
    Case("TokenSets.document", lambda f: f.tokens.document, lambda f: {"d": 1},
         satisfies(lambda out, kw: out.shape == (len(set(fx().sets[kw["d"]])),))),
    Case("TokenSets.verification", lambda f: f.tokens.verification,
         lambda f: {"fbits": None, "hbits": None}, nothing),
    Case("similarity_sample", fn("similarity_sample"), lambda f: {"sets": f.sets, "seed": 0,
         "floor": 0.5, "all_pairs_limit": 2500, "sample_size": 1000, "valid": None,
         "max_listed": None},
         frame_of({"i": "i", "j": "i", "jaccard": "f", "sampled": "b", "weight": "f"}),
         also=PAIRED),
    # -- SimHash ----------------------------------------------------------------------------
    Case("SimHasher", lambda f: ns.SimHasher, lambda f: {"seed": 1}, is_a(ns.SimHasher)),
    Case("SimHasher.shingle_hashes", lambda f: f.sh.shingle_hashes,
         lambda f: {"shingles": f.sets[0]},
         array_of(np.uint64, lambda kw: (len(list(kw["shingles"])),))),
    Case("SimHasher.fingerprint", lambda f: f.sh.fingerprint, lambda f: {"shingles": f.sets[0]},
         satisfies(lambda out, kw: type(out) is int and 0 <= out < 2**64)),
    Case("SimHasher.fingerprints", lambda f: f.sh.fingerprints,
         lambda f: {"shingle_lists": f.sets}, check_fingerprints),
    Case("SimHasher.text_fingerprints", lambda f: f.sh.text_fingerprints,
         lambda f: {"texts": f.texts, **SHINGLING},
         array_of(np.uint64, lambda kw: (len(list(kw["texts"])),))),
    Case("hamming_distance", fn("hamming_distance"), lambda f: {"a": f.fps[:3], "b": f.fps[1:4]},
         check_hamming_distance, also={"a": ("b",), "b": ("a",)}),
    Case("hamming_pairs", fn("hamming_pairs"), lambda f: {"fingerprints": f.fps,
         "max_distance": 3, "method": "tables", "valid": None, "max_pairs": 10**6},
         check_hamming_pairs, also={**PAIRED, "max_distance": ("method",),
                                    "method": ("max_distance",)}),
    Case("replay", fn("replay"), lambda f: {"fingerprints": f.fps, "max_distance": 3},
         satisfies(lambda out, kw: out.dtype == np.int64 and out.ndim == 1)),
    Case("hash_health", fn("hash_health"), lambda f: {"fingerprints": f.fps, "sample": 5,
         "seed": 0, "valid": None}, instance_of("HashHealth"), also=PAIRED),
    Case("broken_simhash", fn("broken_simhash"), lambda f: {"texts": f.texts},
         array_of(np.uint64, lambda kw: (len(list(kw["texts"])),))),
    # -- clusters, scoring ------------------------------------------------------------------
    Case("clusters", fn("clusters"), lambda f: {"n": f.n, "pairs": f.cands}, check_clusters,
         also=PAIRED, too_big={"n": (10**8, MAX_DOCS)}),
    Case("check_against_kept", fn("check_against_kept"), lambda f: {"n": f.n,
         "pairs": f.cands, "similarity": jaccard_of(f.sets), "threshold": 0.6, "labels": None},
         check_kept, also={**PAIRED, "n": ("pairs", "labels"), "labels": ("n", "pairs")}),
    Case("cluster_table", fn("cluster_table"), lambda f: {"labels": f.labels},
         frame_of({"cluster": "i", "size": "i", "first": "i", "members": "O"})),
    Case("check_clusters", fn("check_clusters"), lambda f: {"labels": f.labels, "sets": f.sets,
         "threshold": 0.5}, instance_of("ClusterCheck"), also=PAIRED),
    Case("evaluate", fn("evaluate"), lambda f: {"exact": f.exact, "candidates": f.cands,
         "estimates": f.est, "threshold": 0.5}, check_evaluation, also=PAIRED),
    Case("Evaluation.summary", lambda f: f.evaluation.summary, lambda f: {}, is_a(dict),
         examples=0),
    Case("rate_by_band", fn("rate_by_band"), lambda f: {"pairs": f.sample, "candidates": f.cands,
         "b": 4, "r": 4, "sketch": "minhash", "num_perm": None},
         frame_of({"lo": "f", "hi": "f", "pairs": "i", "candidates": "i",
                                    "rate": "f", "sampled": "b", "expected": "f",
                                    "expected_se": "f"}, lambda kw: 20),
         also={**PAIRED, "b": ("r",), "r": ("b",)}),
    Case("compare_simhash", fn("compare_simhash"), lambda f: {"fingerprints": f.fps,
         "exact": f.exact, "threshold": 0.5, "lsh_pairs": f.cands, "max_distance": 24,
         "valid": None}, instance_of("SimHashComparison"),
         also={**PAIRED, "exact": ("fingerprints",), "lsh_pairs": ("fingerprints",)}),
    # -- corpus-aware prediction and sizing -------------------------------------------------
    Case("predict", fn("predict"), lambda f: {"similarity": f.sample.jaccard.to_numpy(),
         "weight": f.sample.weight, "threshold": 0.5, "b": 4, "r": 4, "num_perm": 16,
         "sketch": "minhash", "union_size": None},
         is_a(ns.Prediction), also={**BR, **PAIRED}),
    Case("tune_for", fn("tune_for"), lambda f: {"similarity": f.sample.jaccard, "weight": None,
         "threshold": 0.5, "num_perm": 16, "min_recall": 0.95, "sketch": "minhash",
         "union_size": None},
         satisfies(lambda out, kw: all(isinstance(p, ns.Prediction) for p in out)
                   and len(out) == sum(kw["num_perm"] // b for b in range(1, kw["num_perm"] + 1))),
         also=PAIRED),
    Case("compare_tuners", fn("compare_tuners"), lambda f: {"similarity": [0.9, 0.85, 0.5, 0.1],
         "weight": [1, 1, 10, 1000], "threshold": 0.8, "num_perm": 16, "fp_weight": 0.5,
         "min_recall": 0.95, "low": 0.3, "sketch": "minhash", "union_size": None},
         is_a(ns.TunerComparison),
         also={**PAIRED, "threshold": ("low",), "low": ("threshold",)}),
    Case("prediction_table", fn("prediction_table"), lambda f: {"predictions": f.predictions[:3]},
         satisfies(lambda out, kw: out.columns[:2].tolist() == ["b", "r"])),
    Case("similarity_weights", fn("similarity_weights"), lambda f: {"pairs": f.sample},
         satisfies(lambda out, kw: out[0].shape == out[1].shape
                   and out[0].dtype == out[1].dtype == np.float64)),
    Case("sizing", fn("sizing"), lambda f: {"documents": [10**4, 10**6],
         "similarity": f.sample.jaccard, "weight": f.sample.weight, "corpus_docs": f.n,
         "num_perm": 16, "b": 4, "r": 4, "threshold": 0.5, "floor": 0.5,
         "throughput": f.throughput},
         satisfies(lambda out, kw: out["documents"].tolist()
                   == np.atleast_1d(np.asarray(kw["documents"], dtype=object)).tolist()),
         also={**BR, **PAIRED, "threshold": ("floor",), "floor": ("threshold",)}),
    Case("measure_throughput", fn("measure_throughput"), lambda f: {"n_docs": 300,
         "num_perm": 16, "b": 4, "r": 4, "seed": 0, "repeats": 1}, is_a(ns.Throughput),
         also=BR, examples=12),
    # -- removal and labels -----------------------------------------------------------------
    Case("removal_curve", fn("removal_curve"), lambda f: {"n": f.n, "pairs": f.exact,
         "thresholds": [0.5, 0.9], "join_threshold": 0.3}, frame_of(REMOVAL),
         also={**PAIRED, "thresholds": ("join_threshold",), "join_threshold": ("thresholds",)}),
    Case("removal_rates", fn("removal_rates"), lambda f: {"sets": f.sets,
         "thresholds": [0.5, 0.9], "method": "auto"}, frame_of(REMOVAL)),
    Case("check_labels", fn("check_labels"), lambda f: {"labels": f.label_table,
         "name": "labels", "n": 1000}, frame_of(LABEL_TABLE),
         also={"labels": ("name", "n"), "n": ("labels",)}),
    Case("labels_to_csv", fn("labels_to_csv"), lambda f: {"labels": f.label_table}, is_a(bytes)),
    Case("read_labels_csv", fn("read_labels_csv"), lambda f: {"data": f.label_csv,
         "n": 1000}, frame_of(LABEL_TABLE),
         content=(r"^the labels CSV ", r"^labels CSV row \d+ \(line \d+\): ")),
    Case("label_curve", fn("label_curve"), lambda f: {"labels": f.label_table,
         "thresholds": [0.5, 0.8], "level": 0.95}, is_a(pd.DataFrame)),
    Case("best_threshold", fn("best_threshold"), lambda f: {"labels": f.label_table,
         "criterion": "youden", "thresholds": None, "resamples": 50, "level": 0.9, "seed": 0},
         is_a(ns.ThresholdChoice)),
    Case("draw_label_pairs", fn("draw_label_pairs"), lambda f: {"pairs": f.exact,
         "threshold": 0.5, "per_band": 6, "bands_each_side": 3, "seed": 0, "exclude": None},
         frame_of({"i": "i", "j": "i", "jaccard": "f", "band": "i"})),
    # -- documents --------------------------------------------------------------------------
    Case("example_corpus", fn("example_corpus"), lambda f: {"n": 300, "seed": 0},
         frame_of({"text": "OT", "parent": "i"}, lambda kw: kw["n"]), examples=25),
    Case("parse_paste", fn("parse_paste"), lambda f: {"text": "one\ntwo\n\nthree"}, list_of_str),
    Case("html_to_text", fn("html_to_text"), lambda f: {"markup": f.html}, is_a(str)),
    Case("csv_columns", fn("csv_columns"), lambda f: {"data": f.csv, **CSV}, list_of_str,
         content=CSV_CONTENT),
    Case("guess_text_column", fn("guess_text_column"), lambda f: {"data": f.csv, **CSV},
         is_a(str), content=CSV_CONTENT),
    Case("inspect_csv", fn("inspect_csv"), lambda f: {"data": f.csv, **CSV}, is_a(ns.CsvInfo),
         content=CSV_CONTENT),
    Case("read_csv_column", fn("read_csv_column"), lambda f: {"data": f.csv, "column": "text",
         **CSV}, list_of_str, content=CSV_CONTENT),
    Case("read_csv_column_rows", fn("read_csv_column_rows"), lambda f: {"data": f.csv,
         "column": "text", **CSV}, frame_of({"row": "i", "text": "OT"}), content=CSV_CONTENT),
    Case("read_document_file", fn("read_document_file"), lambda f: {"name": "a.html",
         "data": f.html.encode(), "max_bytes": 10_000},
         satisfies(lambda out, kw: isinstance(out, str) and out), content=FILE_CONTENT),
    # -- corpora ----------------------------------------------------------------------------
    Case("iter_corpus", fn("iter_corpus"), lambda f: {"paths": f.corpus, **CORPUS,
         "batch_size": 1, "fields": None}, check_reader, finish=list, also=FIELDS,
         content=CORPUS_CONTENT),
    Case("read_corpus", fn("read_corpus"), lambda f: {"paths": f.corpus, **CORPUS,
         "batch_size": 1, "fields": None}, frame_of({"id": "OT", "text": "OT"}), also=FIELDS,
         content=CORPUS_CONTENT),
    Case("sample_corpus", fn("sample_corpus"), lambda f: {"paths": f.corpus, "n": 1, "seed": 0,
         **CORPUS}, satisfies(lambda out, kw: isinstance(out[0], pd.DataFrame)
                              and type(out[1]) is int), also=FIELDS, content=CORPUS_CONTENT),
    Case("inspect_corpus", fn("inspect_corpus"), lambda f: {"paths": f.corpus, "records": 10},
         is_a(ns.CorpusInfo), also=FIELDS, content=CORPUS_CONTENT),
    Case("CorpusReader", lambda f: ns.CorpusReader, lambda f: {"files": [f.corpus], **CORPUS,
         "batch_size": 1, "fields": ()}, check_reader, finish=list, also=FIELDS,
         content=CORPUS_CONTENT),
    Case("CorpusReport.summary", lambda f: _record_of(f).summary, lambda f: {}, is_a(str),
         examples=0),
    Case("CorpusReader.lists", lambda f: ns.iter_corpus(f.corpus, **CORPUS).lists, lambda f: {},
         satisfies(lambda out, kw: len(out) > 0 and all(
             type(ids) is list and type(texts) is list and len(ids) == len(texts)
             and all(type(x) is str for x in ids + texts) for ids, texts in out)),
         finish=list, examples=0),
    # -- Settings, presets, export ----------------------------------------------------------
    Case("Settings", lambda f: ns.Settings, lambda f: f.settings.to_dict(), check_settings,
         also={"bands": ("rows", "num_perm"), "rows": ("bands", "num_perm"),
               "num_perm": ("bands", "rows")}),
    Case("RunSettings.replace", lambda f: f.choice_settings.replace, lambda f: {"num_perm": 32,
         "threshold": 0.7, "bands": 8}, check_settings,
         also={"bands": ("rows", "num_perm"), "num_perm": ("bands", "rows")}),
    Case("RunSettings.to_query", lambda f: f.choice_settings.to_query, lambda f: {}, check_query,
         examples=0),
    Case("RunSettings.to_dict", lambda f: f.choice_settings.to_dict, lambda f: {},
         satisfies(lambda out, kw: ns.Settings(**out) == fx().choice_settings), examples=0),
    Case("RunSettings.shingle_options", lambda f: f.settings.shingle_options, lambda f: {},
         satisfies(lambda out, kw: ns.shingles("abcdef", **out) == ["abcde", "bcdef"]), examples=0),
    Case("RunSettings", lambda f: ns.RunSettings, lambda f: f.settings.run_settings().to_dict(),
         satisfies(lambda out, kw: isinstance(out, ns.RunSettings)
                   and ns.RunSettings.from_query(out.to_query()) == out),
         also={"bands": ("rows", "num_perm"), "rows": ("bands", "num_perm"),
               "num_perm": ("bands", "rows")}),
    Case("RunSettings.run_settings", lambda f: f.choice_settings.run_settings, lambda f: {},
         satisfies(lambda out, kw: type(out) is ns.RunSettings and out.num_perm == 16),
         examples=0),
    Case("RunSettings.from_query", lambda f: ns.Settings.from_query,
         lambda f: {"params": {"num_perm": "64", "threshold": "0.7"}}, check_settings),
    Case("RunSettings.parse_query", lambda f: ns.Settings.parse_query,
         lambda f: {"params": {"num_perm": "64", "threshold": "0.7"}}, check_parse_query),
    Case("preset", fn("preset"), lambda f: {"name": "datatrove"}, is_a(ns.Preset)),
    Case("Preset.apply", lambda f: f.preset.apply, lambda f: {"settings": f.settings},
         check_settings),
    Case("peer_configs", fn("peer_configs"), lambda f: {"settings": f.settings,
         "text_field": "text", "verify": "estimate"},
         satisfies(lambda out, kw: all(isinstance(c, ns.PeerConfig) for c in out.values()))),
    *[
        Case(name, fn(name), lambda f, name=name: {"settings": f.settings, "verify": "estimate"}
             | ({} if name == "datatrove_config" else {"text_field": "text"}),
             satisfies(lambda out, kw: isinstance(out, ns.PeerConfig)
                       and all(isinstance(c, ns.Carry) for c in out.exact + out.differs)))
        for name in ("datatrove_config", "nemo_curator_config", "text_dedup_config",
                     "data_juicer_config")
    ],
    Case("dedup_argv", fn("dedup_argv"), lambda f: {"settings": f.choice_settings,
         "inputs": "corpus/", "out": "out", "text_field": None, "verify": None,
         "use_settings": False, "id_field": None, "group_field": None}, list_of_str),
    Case("dedup_command", fn("dedup_command"), lambda f: {"settings": f.choice_settings,
         "inputs": "corpus/", "out": "out", "text_field": None, "verify": None,
         "use_settings": False}, is_a(str)),
    # -- the persistent index ----------------------------------------------------------------
    Case("Index.open", lambda f: ns.Index.open, lambda f: {"path": f.index_path,
         "settings": f.choice_settings}, is_a(ns.Index), content=INDEX_CONTENT),
    Case("Index.add", lambda f: f.index.add, lambda f: {"texts": f.texts[:3], "ids": None,
         "skip_duplicates": True, "wait": 5.0},
         satisfies(lambda out, kw: isinstance(out, pd.DataFrame)
                   and set(out["row"]) == set(range(len(list(kw["texts"])))))),
    Case("Index.query", lambda f: f.index.query, lambda f: {"texts": f.texts, "ids": None},
         satisfies(lambda out, kw: isinstance(out, pd.DataFrame)
                   and set(out["row"]) == set(range(len(list(kw["texts"])))))),
    Case("Index.matches", lambda f: f.index.matches, lambda f: {"texts": f.texts},
         satisfies(lambda out, kw: isinstance(out, list)
                   and len(out) == len(list(kw["texts"])))),
    Case("Index.compact", lambda f: f.index.compact, lambda f: {"wait": 5.0},
         satisfies(lambda out, kw: out == 0)),
    Case("Index.explain", lambda f: f.index.explain, lambda f: {"text": f.texts[1], "match": 0},
         satisfies(lambda out, kw: 0 <= out.estimate <= 1 and out.band_rows.shape == (4, 4))),
    *[
        Case(f"Index.{name}", lambda f, name=name: getattr(f.index, name),
             lambda f: {"positions": [0, 1]},
             satisfies(lambda out, kw: len(out) == len(np.atleast_1d(kw["positions"]))))
        for name in ("ids", "texts", "signatures", "valid")
    ],
    Case("Index.positions_of", lambda f: f.index.positions_of, lambda f: {"doc_id": "1"},
         satisfies(lambda out, kw: out.tolist() == [1] if kw["doc_id"] in ("1", 1) else True)),
    Case("Index.disk_bytes", lambda f: f.index.disk_bytes, lambda f: {},
         satisfies(lambda out, kw: out > 0), examples=0),
    # -- the stage graph --------------------------------------------------------------------
    Case("pipeline.run", lambda f: ns.pipeline.run, lambda f: {"texts": f.texts,
         "settings": f.choice_settings},
         satisfies(lambda out, kw: out.labels.shape == (len(list(kw["texts"])),)), examples=30),
    Case("pipeline.Runner", lambda f: ns.pipeline.Runner, lambda f: {"texts": f.texts,
         "settings": f.choice_settings, "fetch": None, "digest": None},
         satisfies(lambda out, kw: out.get("clusters").shape == (len(list(kw["texts"])),)),
         examples=30),
]
# fmt: on

RECORDS = {
    "Carry": "a field of PeerConfig (export)",
    "Choice": "returned by tune",
    "KeptCheck": "returned by check_against_kept",
    "CorpusInfo": "returned by inspect_corpus",
    "CsvInfo": "returned by inspect_csv",
    "PeerConfig": "returned by the *_config functions",
    "Prediction": "returned by predict and tune_for",
    "ThresholdChoice": "returned by best_threshold",
    "Throughput": "returned by measure_throughput, read by sizing",
    "TunerComparison": "returned by compare_tuners",
    "TooManyPairsError": "raised by candidate_pairs and hamming_pairs (a ValueError)",
}
"""Result records: frozen data the library builds; their constructors take what it
computed and are not an edge where users' values come in. Each is what a good call of
TABLE returns (``test_every_record_is_a_result``)."""

DATA = {
    "FIELD_SPECS": "a dict of the Settings fields' specifications",
    "LABELS": "the tuple of label names",
    "PRESETS": "a dict of the presets (preset(name) is in TABLE)",
    "pipeline": "a module: its run and Runner are in TABLE",
}

NOT_IN_TABLE = {
    "Index.create": "makes a folder at its path: garbage paths would make folders where the "
    "tests run; its refusals are tested in test_index",
    "Index.sign": "the index's settings applied to texts: sign_batch, whose edge is tested",
    "Index.add_signed": "takes a Signed batch from Index.sign (the command line's path); add is "
    "its edge",
    "Index.query_signed": "takes a Signed batch from Index.sign; query is its edge",
    "Index.match_among": "takes a Signed batch from Index.sign; dedup --against is its edge",
    "Index.close": "no arguments; lets go of the mapped files",
    "Index.settings": "a property",
    "Index.keep_texts": "a property",
    "Index.bucket_limit": "a property",
    "Index.segment_count": "a property",
    "CorpusReader.skipped": "a property",
    "CorpusReader.records": "no arguments; the batches as lists, as CorpusReader.lists (in "
    "TABLE) gives them, with the extra fields",
    "MinHasher.flat_text_signatures": "takes texts laid out by flatten_texts (checked there); "
    "text_signatures is its edge",
    "TokenSets.n": "a property",
}

FIRST_CALL = 120.0
"""Seconds the first good call of a name may take: it may compile numba kernels."""


def _ids(cases: list[Case]) -> list[str]:
    return [c.name for c in cases]


def run_case(case: Case, kwargs: dict, deadline: float = DEADLINE):
    """The call under the deadline (an iterator consumed), and its elapsed time."""
    target = case.target(fx())
    call = target if case.finish is None else (lambda **kw: case.finish(target(**kw)))
    return call_with_deadline(call, kwargs, deadline)


def outcome(case: Case, param: str, make: Callable[[], Any]) -> str | None:
    """None when garbage in ``param`` (``make()``) gave a correct result or a clear error,
    else what went wrong. The check sees a fresh copy of the garbage (a generator the call
    consumed is made again)."""
    kwargs = {**case.good(fx()), param: make()}
    try:
        with limited_memory():
            out, elapsed = run_case(case, kwargs)
    except BaseException as exc:  # a Hang or a MemoryError is a finding too
        return problem_with(exc, (param, *case.also.get(param, ())), case.content)
    if elapsed > DEADLINE:
        return f"took {elapsed:.1f} s"
    try:
        case.check(out, {**kwargs, param: make()})
    except Exception as exc:
        return f"accepted, and returned a wrong result: {exc!r}"[:400]
    return None


def test_table_covers_every_public_name():
    named = {c.name.split(".")[0] for c in TABLE}
    assert not named & set(RECORDS) and not set(RECORDS) & set(DATA)
    assert named | set(RECORDS) | set(DATA) == set(ns.__all__)
    assert len({c.name for c in TABLE}) == len(TABLE), "a name listed twice"


def test_table_covers_every_public_method():
    """Every public method or property of a class in TABLE is in TABLE too, or said why not."""
    listed = {c.name for c in TABLE} | set(NOT_IN_TABLE)
    for cls_name in {c.name.split(".")[0] for c in TABLE}:
        cls = getattr(ns, cls_name)
        if not inspect.isclass(cls):
            continue
        public = [
            attr
            for attr, value in vars(cls).items()
            if not attr.startswith("_")
            and (callable(value) or isinstance(value, property | classmethod | staticmethod))
        ]
        for attr in public:
            assert f"{cls_name}.{attr}" in listed, f"{cls_name}.{attr} is not in TABLE"


def test_every_record_is_a_result():
    """Each record class comes out of some good call (itself, an element or a field)."""
    seen: set[type] = set()
    for case in TABLE:
        out, _ = run_case(case, case.good(fx()), FIRST_CALL)
        values = [out, *(out if isinstance(out, list | tuple) else ())]
        values += list(out.values()) if isinstance(out, dict) else []
        for v in values:
            seen.add(type(v))
            seen.update(type(x) for x in getattr(v, "exact", ()))
    for name in set(RECORDS) - {"TooManyPairsError"}:
        assert getattr(ns, name) in seen, f"{name} is no good call's result"
    assert issubclass(ns.TooManyPairsError, ValueError)


@pytest.mark.parametrize("case", TABLE, ids=_ids(TABLE))
def test_good_call_gives_every_parameter(case):
    params = inspect.signature(case.target(fx())).parameters.values()
    named = {p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    good = set(case.good(fx()))
    assert named <= good, f"not in the good call: {sorted(named - good)}"
    if not any(p.kind == p.VAR_KEYWORD for p in params):
        assert good <= named, f"not parameters: {sorted(good - named)}"


@pytest.mark.parametrize("case", TABLE, ids=_ids(TABLE))
def test_good_call_returns_the_documented_result(case):
    kwargs = case.good(fx())
    out, _ = run_case(case, kwargs, FIRST_CALL)
    case.check(out, kwargs)


FUZZED = [c for c in TABLE if c.examples]


@pytest.fixture(scope="module")
def compiled():
    """Every kernel compiled (or loaded from numba's cache) once, before any deadline."""
    from nearsim.explore import warm_up

    warm_up()


@pytest.mark.parametrize("case", FUZZED, ids=_ids(FUZZED))
def test_garbage_gives_a_correct_result_or_a_clear_error(case, compiled):
    good = case.good(fx())
    run_case(case, good, FIRST_CALL)  # the first call may load compiled code

    @settings(max_examples=case.examples, deadline=None)
    @given(data=st.data())
    def throw(data):
        param = data.draw(st.sampled_from(sorted(good)), label="argument")
        thrown = data.draw(garbage(good[param]), label="garbage")
        assume(case.affordable(param, thrown.make()))
        problem = outcome(case, param, thrown.make)
        assert problem is None, f"{case.name}({param}={thrown.label}): {problem}"

    throw()
