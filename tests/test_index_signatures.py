"""An index refuses signatures made another way.

An index keeps the signatures it was built with; new documents are signed by the nearsim
that adds them. If a sketch's signatures change between versions (SuperMinHash's did when
it started hashing a shingle's own bytes), comparing old with new would silently miss
matches. The manifest records each sketch's signature version
(``nearsim.index.storage.SIGNATURE_VERSIONS``) and another version is refused. The pins
below make a change of signatures fail here until that number is raised.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import numpy as np
import pytest

import nearsim as ns
from nearsim.index.storage import SIGNATURE_VERSIONS, IndexFolderError

TEXTS = [
    "The council approved the new budget on Monday.",
    "Ünïcode text, café — naïve 😀 façade",
    "",
    "x" * 5000,
    "short",
]
PINNED = {  # (sketch, version) -> {(kind, k): sha256 of the (5, 128) uint32 signatures}
    ("minhash", 1): {("char", 5): "478013cfad01da9e", ("word", 3): "4856498bc590932f"},
    ("superminhash", 2): {("char", 5): "14c082fccf119142", ("word", 3): "782f2b4fd38d8e1b"},
}


@pytest.mark.parametrize("sketch", sorted(SIGNATURE_VERSIONS))
def test_each_sketch_makes_the_signatures_of_its_recorded_version(sketch):
    version = SIGNATURE_VERSIONS[sketch]
    assert (sketch, version) in PINNED, f"pin the signatures of {sketch} version {version}"
    for (kind, k), digest in PINNED[sketch, version].items():
        sig = ns.MinHasher(128, seed=1, sketch=sketch).text_signatures(TEXTS, kind=kind, k=k)
        got = hashlib.sha256(np.ascontiguousarray(sig, dtype=np.uint32).tobytes()).hexdigest()
        assert got[:16] == digest, (
            f"{sketch} signatures ({kind} {k}-grams) changed: raise SIGNATURE_VERSIONS"
            f"[{sketch!r}] in nearsim/index/storage.py and pin the new ones here"
        )


def _built(tmp_path, sketch: str):
    path = tmp_path / "idx"
    idx = ns.Index.create(path, ns.RunSettings(sketch=sketch))
    idx.add(TEXTS[:2] + TEXTS[3:])
    return path


def _rewrite(path, **changes):
    data = json.loads((path / "index.json").read_text())
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    (path / "index.json").write_text(json.dumps(data))


@pytest.mark.parametrize("sketch", ["minhash", "superminhash"])
def test_the_manifest_records_the_signature_version(tmp_path, sketch):
    path = _built(tmp_path, sketch)
    assert json.loads((path / "index.json").read_text())["signatures"] == (
        SIGNATURE_VERSIONS[sketch]
    )
    assert len(ns.Index.open(path)) == 4


def test_an_index_of_older_superminhash_signatures_is_refused(tmp_path):
    path = _built(tmp_path, "superminhash")
    _rewrite(path, signatures=None)  # written before the version was recorded: version 1
    with pytest.raises(IndexFolderError, match=r"superminhash signatures of version 1.*makes "
                       r"version 2.*nearsim index build"):  # fmt: skip
        ns.Index.open(path)
    _rewrite(path, signatures=3)
    with pytest.raises(IndexFolderError, match="version 3"):
        ns.Index.open(path)
    query = tmp_path / "q.jsonl"
    query.write_text(json.dumps({"text": "a text"}) + "\n")
    out = tmp_path / "q.csv"
    proc = subprocess.run(
        [sys.executable, "-m", "nearsim", "index", "query", str(path), str(query), "--out",
         str(out)], capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "version 3" in proc.stderr, proc.stderr
    assert not out.exists()


def test_a_classic_index_from_before_the_version_was_recorded_opens(tmp_path):
    path = _built(tmp_path, "minhash")
    _rewrite(path, signatures=None)
    idx = ns.Index.open(path)
    assert len(idx) == 4
    assert idx.matches([TEXTS[0]])[0]  # the stored copy is found
