"""The arithmetic of a hybrid run's edge split (gravel.programs.split): the rows each share takes,
the bus rows' offsets, the arcs a push's senders read in each share, the room a budget leaves,
and the share at which both sides finish together."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gravel.programs import split


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 9), max_size=30), st.floats(0, 1))
def test_rows_for_takes_the_most_rows_within_the_share(degrees, share):
    offsets = np.r_[0, np.cumsum(degrees)].astype(np.int64)
    k = split.rows_for(offsets, share)
    assert 0 <= k <= len(degrees)
    assert offsets[k] <= share * offsets[-1] + 1e-9
    if k < len(degrees):
        assert offsets[k + 1] > share * offsets[-1] + 1e-9
    clipped = split.share_offsets(offsets, k)
    assert clipped[-1] == offsets[k] and (np.diff(clipped) >= 0).all()
    np.testing.assert_array_equal(clipped[: k + 1], offsets[: k + 1])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=30), st.data())
def test_push_arcs_split_the_senders_lists(degrees, data):
    offsets = np.r_[0, np.cumsum(degrees)].astype(np.int64)
    n = len(degrees)
    ids = np.array(sorted(data.draw(st.sets(st.integers(0, n - 1)))), np.int32)
    k = data.draw(st.integers(0, n))
    j = data.draw(st.integers(k, n))
    deg = np.asarray(degrees, np.int64)
    gpu, cpu = split.push_arcs(offsets, ids, k)
    assert gpu == deg[ids[ids < k]].sum() and cpu == deg[ids[ids >= k]].sum()
    device, bus, rest = split.push_arcs(offsets, ids, k, j)
    assert device == gpu and device + bus + rest == deg[ids].sum()
    assert bus == deg[ids[(ids >= k) & (ids < j)]].sum()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=30), st.data())
def test_bus_offsets_hold_the_bus_rows_alone(degrees, data):
    offsets = np.r_[0, np.cumsum(degrees)].astype(np.int64)
    n = len(degrees)
    k = data.draw(st.integers(0, n))
    j = data.draw(st.integers(k, n))
    got = split.bus_offsets(offsets, k, j)
    assert got.shape == offsets.shape and got[0] == 0
    assert got[-1] == offsets[j] - offsets[k]
    deg = np.diff(got)
    np.testing.assert_array_equal(deg[k:j], np.asarray(degrees)[k:j])
    assert not deg[:k].any() and not deg[j:].any()


def test_room_and_cap():
    assert split.room_arcs(None, 10, 32, 2, 4) is None
    assert split.room_arcs(100, 10, 32, 1, 4) == 0  # the vertex arrays alone are over
    room = split.room_arcs(1_000_000, 1000, 40, 2, 8)
    assert room == (1_000_000 - 40_000 - 2 * 8 * 1001) // 8
    assert split.cap_share(room, 2 * room) == 0.5 and split.cap_share(room, room) == 1.0


def test_rates_and_resplit():
    assert split.rate(100, 2.0) == 50.0
    assert split.rate(0, 1.0) is None and split.rate(100, 0.0) is None
    assert split.next_share(0.5, 0.52) == 0.5  # the CPU's time cut by 4 %: not worth a copy
    assert split.next_share(0.5, 0.48) == 0.5
    assert split.next_share(0.9, 0.2) == 0.2
    assert split.next_share(0.9, 0.94) == 0.94  # the CPU's 10 % of the arcs cut to 6 %
    assert split.next_share(0.99, 0.997) == 0.99  # too few arcs moved to pay for the copy
    assert split.next_share(0.9, None) == 0.9


RATES = st.floats(1.0, 1e9, allow_nan=False)


@given(RATES, RATES, RATES, st.floats(0.0, 1.0), st.floats(0.0, 1e-6), st.sampled_from([0.5, 1.0]))
def test_the_gpu_takes_every_arc_where_a_split_costs_more(device, bus, cpu, cap, serial, current):
    """With `serial` seconds per arc that a split adds, the share is 1.0 where the GPU's time over
    every arc beats its time over the balance's share plus them by RESPLIT_GAIN, the balance where
    the split wins by that much, and otherwise whichever of the two `current` is."""
    balance = split.split_share(cap, device, bus, cpu)
    share = split.split_share(cap, device, bus, cpu, serial, current)

    def gpu(s):  # seconds per arc: the device rows, then the bus rows
        return min(s, cap) / device + max(s - cap, 0.0) / bus

    if serial == 0 or balance == 1.0:
        assert share == balance
        return
    alone, split_time, keep = gpu(1.0), gpu(balance) + serial, 1 - split.RESPLIT_GAIN
    assume(min(abs(alone - split_time * keep), abs(split_time - alone * keep)) > 1e-9 * alone)
    if alone < split_time * keep:
        assert share == 1.0
    elif split_time < alone * keep:
        assert share == balance
    else:
        assert share == (1.0 if current == 1.0 else balance)


@given(st.floats(0.01, 0.99), st.floats(0.01, 0.99), RATES)
def test_resplit_only_where_it_saves_time(current, measured, gpu_rate):
    """Rates at which `measured` is the balance: the move is taken exactly where it moves the share
    by more than RESPLIT_ABOVE and an iteration at it (both sides finishing together) is shorter
    than one at `current` by more than RESPLIT_GAIN."""
    cpu_rate = gpu_rate * (1 - measured) / measured
    now = max(current / gpu_rate, (1 - current) / cpu_rate)
    saved = 1 - (measured / gpu_rate) / now
    far = abs(measured - current)
    assume(abs(saved - split.RESPLIT_GAIN) > 1e-9 and abs(far - split.RESPLIT_ABOVE) > 1e-9)
    moved = split.next_share(current, measured) != current
    assert moved == (saved > split.RESPLIT_GAIN and far > split.RESPLIT_ABOVE)


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 1), RATES, RATES, RATES)
def test_split_share_finishes_both_sides_together(cap, device, bus, cpu):
    """Within the cap, the device rows and the CPU balance; past it, the device rows, then the
    bus rows, take as long as the CPU's rest, unless the device rows alone outlast it."""
    share = split.split_share(cap, device, bus, cpu)
    assert 0 <= share <= 1
    balance = device / (device + cpu)
    if cap > 0 and balance <= cap:
        assert share == pytest.approx(balance)
        return
    assert share >= cap
    gpu_s = (cap / device if cap > 0 else 0.0) + (share - cap) / bus
    cpu_s = (1 - share) / cpu
    if share == cap:  # the device rows alone take as long as the CPU's rest, or longer
        assert gpu_s >= cpu_s * (1 - 1e-9)
    elif share < 1:
        assert gpu_s == pytest.approx(cpu_s, rel=1e-6)
    else:  # every row on the GPU, and it still finishes first
        assert gpu_s <= 1 / cpu * (1 + 1e-9)


def test_split_share_needs_its_rates():
    assert split.split_share(0.5, 100.0, 100.0, None) is None
    assert split.split_share(0.5, None, 100.0, 100.0) is None  # the device rows unmeasured
    assert split.split_share(0.0, None, 100.0, 100.0) == 0.5  # no device rows: none needed
    assert split.split_share(0.5, 300.0, None, 100.0) is None  # past the cap: the bus's needed
    assert split.split_share(0.9, 300.0, None, 100.0) == 0.75  # within it: not
