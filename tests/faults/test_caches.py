"""Issue 51: corrupted and foreign binary caches, met by ``gravel info``: the command exits 0 with
the same answer as from the text, says one warning line naming what it rebuilt or replaced, leaves
no temporary, and the next run reads a sound copy without a word.

Fourteen damaged or foreign files: a copy truncated at three points, bit-flipped at three, rewritten
as format version 1, as a plain-CRC file of another graph, or with its CRC recomputed after an
edit; a copy owned by another user or writable by others; a key owned by another user, readable by
others, or of the wrong length."""

import io
import json
import os
import warnings

import numpy as np
import pytest
from numpy.lib import format as npformat

import gravel
from gravel.cli import main
from gravel.io import binary

from .helpers import messages, temporaries

OTHER_UID = 54321


def _plain(G):
    f = io.BytesIO()
    binary.write(f, G)
    return f.getvalue()


def _truncate(at):
    def damage(copy, key, G):
        data = copy.read_bytes()
        copy.write_bytes(data[: int(at * len(data))] if at < 1 else data[:-1])

    return damage


def _flip(at):
    def damage(copy, key, G):
        data = bytearray(copy.read_bytes())
        i = min(int(at * len(data)), len(data) - 1)
        data[i] ^= 0x10
        copy.write_bytes(bytes(data))

    return damage


def _version_1(copy, key, G):  # checksum-less, as gravel once wrote (same sizes, other arcs)
    with open(copy, "wb") as f:
        for a in (np.array([binary.MAGIC, 1, 0, 0, 0]), G.offsets, G.indices[::-1].copy()):
            npformat.write_array(f, a)


def _plain_crc(copy, key, G):  # a valid .gravel of another graph, as anyone can write
    copy.write_bytes(_plain(gravel.Graph.from_edges([0], [1], n=G.n, directed=False)))


def _recomputed_crc(copy, key, G):  # edited, its CRC-32 recomputed, the keyed checksum kept
    data = copy.read_bytes()
    other = gravel.Graph.from_csr(G.offsets, G.indices[::-1].copy(), directed=True)
    copy.write_bytes(_plain(other) + data[len(_plain(G)) :])


def _chown(path):
    os.chown(path, OTHER_UID, OTHER_UID)


DAMAGES = {
    "truncated-empty": (_truncate(0), "copy"),
    "truncated-half": (_truncate(0.5), "copy"),
    "truncated-last-byte": (_truncate(1), "copy"),
    "bit-flip-header": (_flip(0.02), "copy"),
    "bit-flip-middle": (_flip(0.5), "copy"),
    "bit-flip-last-byte": (_flip(1.0), "copy"),
    "format-version-1": (_version_1, "copy"),
    "plain-crc-of-another-graph": (_plain_crc, "copy"),
    "crc-recomputed-after-an-edit": (_recomputed_crc, "copy"),
    "copy-of-another-user": (lambda copy, key, G: _chown(copy), "copy"),
    "copy-writable-by-others": (lambda copy, key, G: os.chmod(copy, 0o666), "copy"),
    "key-of-another-user": (lambda copy, key, G: _chown(key), "key"),
    "key-readable-by-others": (lambda copy, key, G: os.chmod(key, 0o644), "key"),
    "key-of-the-wrong-length": (lambda copy, key, G: key.write_bytes(b"\0" * 7), "key"),
}


@pytest.fixture
def cached(tmp_path, monkeypatch):
    """A text graph, its answer from ``gravel info --json`` and its cache folder's copy and key."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("GRAVEL_CACHE_DIR", str(cache))
    source = tmp_path / "graph.txt"
    G = gravel.generate.kronecker(7, 4, seed=2, device="cpu", progress=False)
    gravel.save(G, source)
    return source, cache, G


def _info(source, capsys):
    status = main(["info", str(source), "--json"])
    out, err = capsys.readouterr()
    answer = json.loads(out) if status == 0 else None
    if answer is not None:
        answer.pop("load_s")  # the answer, not its time
    return status, answer, messages(err)


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_issue_51_a_damaged_or_foreign_cache_is_rebuilt_with_one_warning(damage, cached, capsys):
    source, cache, G = cached
    status, expected, said = _info(source, capsys)  # parses the text, writes the copy
    assert status == 0 and said == []
    (copy,) = cache.glob("*.gravel")
    harm, what = DAMAGES[damage]
    if "another-user" in damage and os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root")
    G = gravel.load(source)  # read from the copy, mapped: copied before the copy is harmed
    G = gravel.Graph.from_csr(G.offsets.copy(), G.indices.copy(), directed=False)
    harm(copy, cache / "key", G)

    status, answer, said = _info(source, capsys)
    assert status == 0 and answer == expected
    assert len(said) == 1 and said[0].startswith("gravel: warning: "), said
    assert ("binary cache of" in said[0]) if what == "copy" else ("cache's key" in said[0])
    assert not temporaries(cache, source.parent)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the next load reads a sound copy, without a word
        assert gravel.load(source) == gravel.load(source)
    status, answer, said = _info(source, capsys)
    assert (status, answer, said) == (0, expected, [])
