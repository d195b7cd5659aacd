"""The device-memory budget and the placement plan (gravel.placement): GPU-free arithmetic that the
CUDA backend builds device graphs from."""

import dataclasses
import mmap
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gravel
from gravel import config
from gravel.placement import (
    BUDGET_ENV,
    PLACEMENTS,
    STATE_BYTES_PER_VERTEX,
    format_bytes,
    parse_bytes,
    plan,
    render,
    resolve_budget,
)

UNITS = {
    "B": 1,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
    "TiB": 2**40,
}


def graph_of(degrees, weighted=False):
    """A stand-in with the attributes plan() reads, for the given out-degrees (no Numba)."""
    degrees = np.asarray(degrees, dtype=np.int32)
    offsets = np.concatenate([[0], np.cumsum(degrees, dtype=np.int64)])
    nnz = int(offsets[-1])
    return SimpleNamespace(
        n=degrees.size,
        nnz=nnz,
        offsets=offsets,
        indices=np.zeros(nnz, np.int32),
        weights=np.ones(nnz, np.float32) if weighted else None,
        out_degree=degrees,
    )


def room_for(G, arcs):
    """The budget that leaves room for `arcs` hot arcs (ids only) in a tiered plan of G."""
    return 2 * G.offsets.nbytes + G.n * STATE_BYTES_PER_VERTEX + 4 * arcs


@pytest.fixture(autouse=True)
def _no_budget(monkeypatch):
    monkeypatch.delenv(BUDGET_ENV, raising=False)
    monkeypatch.setattr(config, "device_memory", None)


# -- parse_bytes -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text,nbytes",
    [
        ("0", 0),
        ("4096", 4096),
        (4096, 4096),
        (np.int64(7), 7),
        ("8GB", 8 * 10**9),
        ("8gb", 8 * 10**9),
        ("8 GB", 8 * 10**9),
        ("  8Gb ", 8 * 10**9),
        ("1.5GB", 1_500_000_000),
        ("1.5GiB", 3 * 2**29),
        ("512kib", 2**19),
        ("0.5KiB", 512),
        (".5MB", 500_000),
        ("2.TB", 2 * 10**12),
        ("1B", 1),
        ("1.0001KB", 1000),
        ("3 tib", 3 * 2**40),
    ],
)
def test_parse_bytes(text, nbytes):
    assert parse_bytes(text) == nbytes and type(parse_bytes(text)) is int


@given(
    st.integers(0, 10**6),
    st.sampled_from(sorted(UNITS)),
    st.lists(st.booleans(), min_size=3, max_size=3),
    st.sampled_from(["", " "]),
)
def test_parse_bytes_any_number_and_unit_in_any_case(number, unit, upper, space):
    spelled = "".join(c.upper() if u else c.lower() for c, u in zip(unit, upper))
    assert parse_bytes(f"{number}{space}{spelled}") == number * UNITS[unit]


@given(st.integers(0, 10**6), st.integers(1, 6), st.sampled_from(["GB", "GiB", "MiB"]))
def test_parse_bytes_decimals_round_down(number, places, unit):
    text = f"{number / 10**places:.{places}f}{unit}"
    assert parse_bytes(text) == number * UNITS[unit] // 10**places


@pytest.mark.parametrize(
    "size",
    [
        "",
        "GB",
        "abc",
        "8G",  # powers of 1000 or 1024?
        "8XB",
        "-1",
        "-1GB",
        -1,
        "1.5",  # a whole number of bytes without a unit
        "1.5B",
        "1e9",
        "1,000",
        "8 G B",
        "８GB",
        8e9,
        True,
        None,
    ],
)
def test_parse_bytes_refuses(size):
    with pytest.raises(gravel.InvalidArgumentError, match="is not a size") as e:
        parse_bytes(size)
    assert isinstance(e.value, ValueError) and repr(size) in str(e.value)


@given(st.text(max_size=12))
def test_parse_bytes_takes_a_size_or_names_the_text(text):
    try:
        assert parse_bytes(text) >= 0
    except gravel.InvalidArgumentError as e:
        assert repr(text) in str(e)


@pytest.mark.parametrize(
    "nbytes,text",
    [
        (0, "0 B"),
        (1023, "1023 B"),
        (1024, "1.00 KiB"),
        (80 * 2**30, "80.0 GiB"),
        (2**50, "1024 TiB"),
    ],
)
def test_format_bytes(nbytes, text):
    assert format_bytes(nbytes) == text


# -- the budget --------------------------------------------------------------------------------
def test_budget_defaults_to_none():
    assert resolve_budget() is None


def test_budget_from_the_environment(monkeypatch):
    monkeypatch.setenv(BUDGET_ENV, "2GiB")
    assert resolve_budget() == 2 * 2**30
    monkeypatch.setenv(BUDGET_ENV, "")  # empty: unset
    assert resolve_budget() is None


def test_budget_precedence(monkeypatch):
    monkeypatch.setenv(BUDGET_ENV, "3GB")
    with config.using(device_memory="2GB"):
        assert resolve_budget() == 2 * 10**9
        assert resolve_budget("1GB") == 10**9
    assert resolve_budget() == 3 * 10**9


@pytest.mark.parametrize(
    "where", [BUDGET_ENV, "gravel.config.device_memory", "budget"], ids=["env", "config", "arg"]
)
def test_a_bad_budget_names_where_it_came_from(where, monkeypatch):
    if where == BUDGET_ENV:
        monkeypatch.setenv(BUDGET_ENV, "lots")
    else:
        monkeypatch.setattr(config, "device_memory", "lots")
    with pytest.raises(gravel.InvalidArgumentError, match=f"^{where}: 'lots' is not a size"):
        resolve_budget("lots" if where == "budget" else None)


def test_config_using_restores_and_checks_names():
    with config.using(device_memory=5, placement="host"):
        assert (config.device_memory, config.placement) == (5, "host")
    assert (config.device_memory, config.placement) == (None, "auto")
    with pytest.raises(gravel.UnknownNameError, match="no setting 'memory'"):
        with config.using(memory=5):
            pass


@pytest.mark.parametrize("placement", ["host", "tiered"])
def test_lists_over_the_bus_are_read_by_the_configured_load_balance(placement):
    from gravel.operators import LoadBalance, choose_load_balance

    assert choose_load_balance(100, 500, placement) is LoadBalance.LINE_BALANCED
    assert choose_load_balance(100, 500, "device") is LoadBalance.MERGE_PATH
    with config.using(bus_load_balance="thread_mapped"):
        assert choose_load_balance(100, 500, placement) is LoadBalance.THREAD_MAPPED
        assert choose_load_balance(100, 500, "device") is LoadBalance.MERGE_PATH
    with config.using(bus_load_balance="lines"), pytest.raises(gravel.UnknownNameError):
        choose_load_balance(100, 500, placement)


# -- plans -----------------------------------------------------------------------------------
def test_a_graph_under_the_budget_goes_on_the_device():
    G = graph_of([3, 1, 0, 2], weighted=True)
    csr = 5 * 8 + 6 * 4 + 6 * 4
    p = plan(G, budget=csr + 4 * STATE_BYTES_PER_VERTEX)
    assert (p.placement, p.requested) == ("device", "auto")
    assert dict(p.device) == {"offsets": 40, "hot_offsets": 0, "indices": 24, "weights": 24}
    assert p.host_total == 0 and p.device_total == csr and p.state == 4 * STATE_BYTES_PER_VERTEX
    assert p.hot is None and p.hot_arcs == 6 and p.bus_bytes == 0


def test_one_byte_short_of_the_graph_is_tiered():
    G = graph_of([3, 1, 0, 2])
    assert plan(G, budget=5 * 8 + 6 * 4 + 4 * STATE_BYTES_PER_VERTEX - 1).placement == "tiered"


def test_without_any_limit_everything_fits():
    G = graph_of([5] * 10)
    assert plan(G).placement == "device" and plan(G).limit is None
    p = plan(G, "tiered")
    assert p.hot.all() and p.hot_arcs == 50 and p.bus_bytes == 0


def test_the_free_device_memory_limits_like_a_budget():
    G = graph_of([5] * 10)
    p = plan(G, free_device=room_for(G, 20))
    assert p.placement == "tiered" and p.hot_arcs == 20 and p.limit == room_for(G, 20)
    assert plan(G, budget="1TB", free_device=room_for(G, 20)).limit == room_for(G, 20)


def test_tiny_budget_puts_the_longest_lists_on_the_device():
    degrees = [1, 7, 0, 3, 7, 2, 5, 3, 1]
    G = graph_of(degrees)
    p = plan(G, "tiered", room_for(G, 7 + 7 + 5 + 3 + 1), tier="degree")  # one list of 3 fits
    assert p.placement == "tiered"
    assert np.flatnonzero(p.hot).tolist() == [1, 3, 4, 6]  # ties: the lowest ids first
    assert p.hot_arcs == 22 and p.hot_vertices == 4 and not p.hot.flags.writeable
    assert p.device["indices"] == 4 * 22 and p.device["hot_offsets"] == G.offsets.nbytes
    assert p.host["indices"] == 4 * G.nnz and p.bus_bytes == 4 * (G.nnz - 22)
    assert p.device_total + p.state <= p.limit


@pytest.mark.parametrize("budget", [0, "0GB", 1, 100])
def test_a_budget_below_the_offsets_leaves_every_list_in_host_memory(budget):
    G = graph_of([4, 4, 4], weighted=True)
    p = plan(G, budget=budget)
    assert p.placement == "tiered" and not p.hot.any() and p.hot_arcs == 0
    assert dict(p.device) == {"offsets": 32, "hot_offsets": 0, "indices": 0, "weights": 0}
    assert dict(p.host) == {"indices": 48, "weights": 48} and p.bus_bytes == 96


@given(
    st.lists(st.integers(0, 40), max_size=60),
    st.integers(-20, 600),
    st.booleans(),
)
def test_tiered_takes_the_longest_lists_that_fit(degrees, arcs, weighted):
    G = graph_of(degrees, weighted)
    arc = 8 if weighted else 4
    budget = max(room_for(G, 0) + arc * arcs, 0)
    p = plan(G, "tiered", budget, tier="degree")
    deg, hot = np.asarray(degrees, dtype=int), p.hot
    assert hot.dtype == bool and hot.shape == (G.n,) and not hot[deg == 0].any()
    assert p.hot_arcs == deg[hot].sum() <= max(arcs, 0)
    assert p.device["indices"] == 4 * p.hot_arcs and p.bus_bytes == arc * (G.nnz - p.hot_arcs)
    cold = ~hot & (deg > 0)
    if hot.any() and cold.any():
        assert deg[hot].min() >= deg[cold].max()  # a degree threshold
    if cold.any():  # the next list in line does not fit
        longest = deg[cold].max()
        assert p.hot_arcs + longest > arcs
        ties = np.flatnonzero(hot & (deg == longest))
        assert ties.size == 0 or ties.max() < np.flatnonzero(cold & (deg == longest)).min()
    if hot.any():
        assert p.device_total + p.state <= budget


def test_host_keeps_the_arcs_pinned_and_the_offsets_on_the_device():
    G = graph_of([2, 2, 1], weighted=True)
    p = plan(G, "host")
    assert p.placement == "host" and p.hot is None and p.hot_arcs == 0
    assert dict(p.device) == {"offsets": 32, "hot_offsets": 0, "indices": 0, "weights": 0}
    assert dict(p.host) == {"indices": 20, "weights": 20} and p.bus_bytes == 40


def test_managed_that_fits_counts_as_device_memory():
    G = graph_of([2, 2, 1])
    p = plan(G, "managed", free_device=10**6)
    assert p.placement == "managed" and p.device_total == 32 + 20 and p.host_total == 0


def test_a_real_graph():
    G = gravel.generate.grid(3, 3)
    p = plan(G, "tiered", budget=2 * 80 + 9 * STATE_BYTES_PER_VERTEX + 4 * 4, tier="degree")
    assert np.flatnonzero(p.hot).tolist() == [4]  # the centre, the only vertex of degree 4
    assert p.summary() == {
        "placement": "tiered",
        "requested": "tiered",
        "limit": 464,
        "device": {"offsets": 80, "hot_offsets": 80, "indices": 16, "weights": 0},
        "host": {"indices": 96, "weights": 0},
        "state": 288,
        "hot_vertices": 1,
        "hot_arcs": 4,
        "bus_bytes": 80,
    }


def test_an_empty_graph():
    G = graph_of([])
    for placement in PLACEMENTS:
        p = plan(G, placement, free_device=8)
        assert p.bus_bytes == 0 and p.state == 0 and p.hot_arcs == 0


def test_a_plan_is_frozen():
    p = plan(graph_of([1, 2]), "tiered", budget=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.placement = "device"
    with pytest.raises(TypeError):
        p.device["offsets"] = 0
    with pytest.raises(ValueError):
        p.hot[0] = True


# -- errors ------------------------------------------------------------------------------------
def test_unknown_placement():
    with pytest.raises(gravel.UnknownNameError, match="unknown placement 'gpu'.*tiered"):
        plan(graph_of([1]), "gpu")


def test_device_beyond_the_budget_is_too_large():
    G = graph_of([1000] * 1000)  # 4 MB of ids
    with pytest.raises(gravel.GraphTooLargeError, match="'device'.* 3.82 MiB .*budget is 977 KiB"):
        plan(G, "device", "1MB")
    with pytest.raises(MemoryError, match=r"7.81 KiB are free on the device"):
        plan(G, "device", free_device=8000)


def test_managed_never_asks_for_more_than_the_card_has_free():
    G = graph_of([1000] * 1000)
    with pytest.raises(gravel.GraphTooLargeError, match="'managed'.*free on the device.*tiered"):
        plan(G, "managed", free_device=2 * 10**6)
    with pytest.raises(gravel.GraphTooLargeError, match="budget is"):
        plan(G, "managed", "1MB", free_device=10**9)


def test_too_little_device_memory_even_for_the_offsets_fits_nowhere():
    G = graph_of([10] * 1000)
    with pytest.raises(gravel.GraphTooLargeError, match="fits nowhere.*alone need 39.1 KiB") as e:
        plan(G, free_device=10_000)
    assert "CSR needs 46.9 KiB" in str(e.value) and "9.77 KiB are free" in str(e.value)
    for placement in ("host", "tiered"):
        with pytest.raises(gravel.GraphTooLargeError, match=f"placement '{placement}'"):
            plan(G, placement, free_device=10_000)


def test_too_little_host_memory_fits_nowhere():
    G = graph_of([10] * 1000, weighted=True)
    with pytest.raises(gravel.GraphTooLargeError, match="fits nowhere") as e:
        plan(G, budget="10KB", free_host=50_000)
    assert "budget is 9.77 KiB" in str(e.value) and "arcs need 78.1 KiB" in str(e.value)
    with pytest.raises(gravel.GraphTooLargeError, match="'host': its arcs need 78.1 KiB"):
        plan(G, "host", free_host=50_000)
    assert plan(G, "host").placement == "host"  # its own arrays are pinned where they are


def test_a_bad_budget_is_refused_before_planning():
    with pytest.raises(ValueError, match="budget: '8 bytes' is not a size"):
        plan(graph_of([1]), budget="8 bytes")


# -- rendering ---------------------------------------------------------------------------------
def test_render_says_how_many_bytes_go_where():
    G = graph_of([1, 7, 0, 3, 7, 2, 5, 3, 1], weighted=True)
    text = render(plan(G, "tiered", room_for(G, 2 * 22), tier="degree"))
    lines = text.splitlines()
    assert lines[0] == "placement tiered (asked: tiered), device limit 624 B"
    assert lines[2].split() == ["offsets", "80", "B", "0", "B"]
    assert lines[3].split() == ["hot_offsets", "80", "B", "0", "B"]
    assert lines[4].split() == ["indices", "88", "B", "116", "B"]
    assert lines[5].split() == ["weights", "88", "B", "116", "B"]
    assert lines[6].split() == ["total", "336", "B", "232", "B"]
    assert "vertex state: 288 B" in text
    assert "4 vertices', 22 of 29 arcs (76%); a sweep reads 56 B over the bus" in text


def test_render_a_device_plan():
    text = render(plan(graph_of([2, 2])))
    assert "no device limit known" in text and "lists on the device: all" in text
    assert "weights" not in text and "hot_offsets" not in text


@given(st.lists(st.integers(0, 80), max_size=80), st.integers(-20, 2000))
def test_tiered_by_lines_takes_the_lists_that_spare_the_most_lines(degrees, arcs):
    G = graph_of(degrees)
    p = plan(G, "tiered", max(room_for(G, 0) + 4 * arcs, 0))
    deg = np.asarray(degrees, dtype=int)
    first = G.offsets[:-1] // 32 * 32
    lines = (G.offsets[1:] - first + 31) // 32
    ratio = np.where(deg > 0, lines / np.maximum(deg, 1), 0)
    order = [v for v in np.lexsort((np.arange(G.n), -ratio)) if deg[v] > 0]
    k = int(p.hot.sum())
    assert sorted(order[:k]) == np.flatnonzero(p.hot).tolist()  # a prefix of the ranking
    assert p.hot_arcs == deg[p.hot].sum() <= max(arcs, 0)
    assert k == len(order) or p.hot_arcs + deg[order[k]] > arcs  # the next one does not fit


def test_short_lists_spare_more_lines_than_long_ones():
    # one list of 64 ids (two lines) and eight of 2 (a line each for 2 ids)
    G = graph_of([64] + [2] * 8)
    lines = plan(G, "tiered", room_for(G, 16))
    assert np.flatnonzero(lines.hot).tolist() == list(range(1, 9))
    assert not plan(G, "tiered", room_for(G, 16), tier="degree").hot.any()


def test_an_unknown_tier_is_refused():
    with pytest.raises(gravel.UnknownNameError, match="tier 'fastest'"):
        plan(graph_of([1, 1]), "tiered", 0, tier="fastest")


@given(st.lists(st.integers(-(2**31), 2**31 - 1), max_size=3000), st.booleans())
def test_own_pages_copies_into_pages_no_other_array_shares(values, writeable):
    from gravel.backends.cuda.pinned import own_pages

    array = np.array(values, np.int32)
    array.flags.writeable = writeable
    copy = own_pages(array)
    assert np.array_equal(copy, array) and copy.dtype == array.dtype
    assert copy.flags.writeable == writeable
    assert copy.ctypes.data % mmap.PAGESIZE == 0 and not np.shares_memory(copy, array)
