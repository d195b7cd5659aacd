"""The binary cache under hostile conditions (issue 51): its folder and copies are private, a copy
goes only to those who may read its source, and nothing another user planted is read from it.

The tests run as root here, which reads every file and owns them all: where the code asks the
system whether the caller may read a file (os.access) or who it is (os.geteuid), the test answers
for an ordinary user with monkeypatch, and a file "owned by another user" is made with os.chown
(as root) or by making this process look like another user."""

import io
import os
import warnings

import numpy as np
import pytest
from numpy.lib import format as npformat

import gravel
from gravel.io import binary, edgelist

TEXT = "0 1\n1 2\n2 3\n3 4\n"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("GRAVEL_CACHE_DIR", str(d))
    old = os.umask(0o022)
    yield d
    os.umask(old)


@pytest.fixture
def parses(monkeypatch):
    """How many times a text file was parsed (not read from the cache)."""
    calls = []
    read = edgelist.read

    def counting(*args, **kwargs):
        calls.append(1)
        return read(*args, **kwargs)

    monkeypatch.setattr(edgelist, "read", counting)
    return calls


def source(tmp_path, mode=0o644, text=TEXT):
    p = tmp_path / "g.txt"
    p.write_text(text)
    os.chmod(p, mode)
    return p


def copy_of(cache):
    (cached,) = cache.glob("*.gravel")
    return cached


def cache_warnings(fn):
    """fn's result and the warnings about the cache it raised (every one, not once per place)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [w for w in caught if "binary cache" in str(w.message)]


def mode(path):
    return os.stat(path).st_mode & 0o777


def test_issue_51_the_folder_is_private_and_a_copy_no_more_open_than_its_source(tmp_path, cache):
    p = source(tmp_path, 0o600)
    gravel.load(p)
    assert mode(cache) == 0o700
    assert mode(copy_of(cache)) == 0o600  # was 0o644: a private graph became world-readable
    os.chmod(p, 0o640)  # a new ctime: a new copy, as open as the source
    os.unlink(copy_of(cache))
    gravel.load(p)
    assert mode(copy_of(cache)) == 0o640
    os.chmod(p, 0o444)  # read-only: the copy too, once written
    os.unlink(copy_of(cache))
    assert gravel.load(p) == gravel.load(p)
    assert mode(copy_of(cache)) == 0o444
    # a folder of the user's own made by an older gravel, readable by all, is narrowed
    os.chmod(cache, 0o755)
    gravel.load(p)
    assert mode(cache) == 0o700


def test_issue_51_a_source_the_caller_cannot_read_is_not_read_from_its_cache(
    tmp_path, cache, monkeypatch
):
    p = source(tmp_path, 0o600)
    G = gravel.load(p)
    assert gravel.load(p) == G  # a hit while readable
    # root reads every file, so the test answers os.access as it would for a user who lost the
    # right to read the file (chmod 000, or another user's private file)
    access = os.access
    monkeypatch.setattr(os, "access", lambda f, m, **k: False if f == p else access(f, m, **k))
    with pytest.raises(PermissionError, match="g.txt"):
        gravel.load(p)


@pytest.mark.parametrize("how", ["group_writable", "another_owner"])
def test_issue_51_a_cache_folder_not_the_users_own_is_ignored_with_one_warning(
    tmp_path, cache, parses, monkeypatch, how
):
    p = source(tmp_path)
    G = gravel.load(p)
    cached = copy_of(cache)
    if how == "group_writable":
        os.chmod(cache, 0o777)
        why = "writable by group or others"
    else:  # as if another user made the folder: this process takes another uid
        uid = os.geteuid()
        monkeypatch.setattr(os, "geteuid", lambda: uid + 1)
        why = f"owned by uid {uid}, not by this user"
    cached.unlink()
    H, caught = cache_warnings(lambda: gravel.load(p))
    assert H == G and len(parses) == 2  # parsed, not read from the folder
    assert len(caught) == 1 and f"{cache}: {why}" in str(caught[0].message)
    assert caught[0].filename == __file__  # it names the caller's line
    assert not list(cache.glob("*.gravel"))  # nothing written there either


@pytest.mark.parametrize("how", ["group_writable", "another_owner"])
def test_issue_51_a_copy_not_the_users_own_is_rebuilt_with_one_warning(
    tmp_path, cache, parses, how
):
    p = source(tmp_path, 0o640)
    G = gravel.load(p)
    cached = copy_of(cache)
    if how == "group_writable":
        os.chmod(cached, 0o666)
        why = "writable by group or others"
    else:
        if os.geteuid() != 0:
            pytest.skip("giving a file to another user needs root")
        os.chown(cached, 12345, -1)
        why = "owned by uid 12345"
    H, caught = cache_warnings(lambda: gravel.load(p))
    assert H == G and len(parses) == 2
    assert len(caught) == 1 and f"{cached}: {why}" in str(caught[0].message)
    # replaced by the user's own, as open as the source
    st = os.stat(cached)
    assert st.st_uid == os.geteuid() and st.st_mode & 0o777 == 0o640
    _, caught = cache_warnings(lambda: gravel.load(p))
    assert not caught and len(parses) == 2


def _plain(G):
    """G in the binary format as gravel.save writes it: its CRC-32, no key."""
    f = io.BytesIO()
    binary.write(f, G)
    return f.getvalue()


@pytest.mark.parametrize("planted", ["version_1", "plain_crc", "recomputed_crc"])
def test_issue_51_only_the_current_format_with_its_keyed_checksum_is_read_from_the_cache(
    tmp_path, cache, parses, planted
):
    p = source(tmp_path)
    G = gravel.load(p)
    cached = copy_of(cache)
    other = gravel.Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 3], n=5)  # same sizes, other arcs
    if planted == "version_1":  # checksum-less: was read on the graph's checks alone
        with open(cached, "wb") as f:
            for a in (np.array([binary.MAGIC, 1, 1, 0, 0]), other.offsets, other.indices):
                npformat.write_array(f, a)
        why = "binary format version 1"
    elif planted == "plain_crc":  # a .gravel with a valid CRC-32, as anyone can write
        cached.write_bytes(_plain(other))
        why = "no keyed checksum"
    else:  # the copy edited, its CRC-32 recomputed, the rest (the keyed checksum) kept
        data = cached.read_bytes()
        assert data.startswith(_plain(G))
        cached.write_bytes(_plain(other) + data[len(_plain(G)) :])
        why = "checksum mismatch"
    H, caught = cache_warnings(lambda: gravel.load(p))
    assert H == G and len(parses) == 2
    assert len(caught) == 1 and f"{cached}: {why}" in str(caught[0].message)
    # a user's own .gravel file of version 1 still loads
    old = tmp_path / "old.gravel"
    with open(old, "wb") as f:
        for a in (np.array([binary.MAGIC, 1, 1, 0, 0]), other.offsets, other.indices):
            npformat.write_array(f, a)
    assert gravel.load(old) == other


def test_issue_51_the_cache_key_covers_the_file_s_identity(tmp_path, cache, parses):
    p = source(tmp_path)
    G = gravel.load(p)
    st = os.stat(p)
    # the same size and modification time, another file (a copy kept its time, cp -p)
    new = tmp_path / "new.txt"
    new.write_text(TEXT.replace("3 4", "4 3"))
    os.utime(new, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(new, p)
    assert os.stat(p).st_size == st.st_size and os.stat(p).st_mtime_ns == st.st_mtime_ns
    H = gravel.load(p)
    assert len(parses) == 2 and H != G and H.indices[-1] == 3
    # each set of load options has its own copy
    gravel.load(p, dedupe=False)
    gravel.load(p, weighted=False)
    assert len(parses) == 4 and len(list(cache.glob("*.gravel"))) == 4


def test_issue_51_copy_names_are_not_predictable(tmp_path, cache, monkeypatch):
    p = source(tmp_path)
    gravel.load(p)
    first = copy_of(cache).name
    other = tmp_path / "other-cache"
    monkeypatch.setenv("GRAVEL_CACHE_DIR", str(other))
    gravel.load(p)
    # the same file and options, another user's secret key: another name
    assert copy_of(other).name != first
    for folder in (cache, other):
        assert mode(folder / "key") == 0o600


def test_issue_51_a_key_others_can_read_is_replaced_with_one_warning(tmp_path, cache, parses):
    p = source(tmp_path)
    G = gravel.load(p)
    key = cache / "key"
    old = key.read_bytes()
    os.chmod(key, 0o644)
    H, caught = cache_warnings(lambda: gravel.load(p))
    assert H == G and len(parses) == 2  # the old key's copies are not found
    assert len(caught) == 1 and f"{key}: readable by group or others" in str(caught[0].message)
    assert key.read_bytes() != old and mode(key) == 0o600
