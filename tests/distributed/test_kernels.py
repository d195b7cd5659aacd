"""The part pulls of gravel.distributed on the GPU (kernels/neighbor_reduce/part.cu) against NumPy
on random parts: rows whose lists name global ids beyond the part's rows, every lane width."""

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

#: (rows, mean list length): empty, one row, around a warp and a block, lists of every lane width
SHAPES = [(0, 4), (1, 3), (31, 1), (33, 0.4), (1023, 5), (1025, 40), (3000, 2), (257, 200)]


def _part(rows, mean, n, seed):
    rng = np.random.default_rng(seed)
    lengths = rng.poisson(mean, rows)
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    ids = rng.integers(0, n, offsets[-1]).astype(np.int32)
    weights = rng.uniform(0.5, 4.0, offsets[-1]).astype(np.float32)
    return rng, offsets, ids, weights


@pytest.mark.parametrize(("rows", "mean"), SHAPES)
@pytest.mark.parametrize("weighted", [False, True])
def test_part_pull_rank_against_numpy(rows, mean, weighted):
    import cupy

    from gravel.distributed.device_kernels import DeviceKernels

    n = 3 * rows + 7
    rng, offsets, ids, weights = _part(rows, mean, n, rows)
    contrib = rng.random(n).astype(np.float32)  # DeviceKernels.contributions_dtype
    base, rank = rng.random(rows), rng.random(rows)
    w = weights if weighted else np.ones_like(weights)
    rows_of = np.repeat(np.arange(rows), np.diff(offsets))
    want = base + 0.85 * np.bincount(rows_of, w * contrib[ids].astype(np.float64), minlength=rows)
    k = DeviceKernels.pagerank(ids.size)
    d = cupy.asarray
    new = cupy.empty(rows)
    given = d(weights) if weighted else None
    err = k.pull(d(offsets), d(ids), given, d(contrib), d(base), 0.85, d(rank), new)
    np.testing.assert_allclose(new.get(), want, rtol=1e-12)
    np.testing.assert_allclose(err, np.abs(want - rank).sum(), rtol=1e-9)
    with pytest.raises(TypeError, match="float32"):
        wide = d(contrib.astype(np.float64))
        k.pull(d(offsets), d(ids), given, wide, d(base), 0.85, d(rank), new)


@pytest.mark.parametrize(("rows", "mean"), SHAPES)
def test_part_min_label_against_numpy(rows, mean):
    import cupy

    from gravel.distributed.device_kernels import DeviceKernels

    n = 2 * rows + 5
    rng, offsets, ids, _ = _part(rows, mean, n, rows + 1)
    labels = rng.integers(0, n, n).astype(np.int32)
    out = rng.integers(0, n, rows).astype(np.int32)
    want = out.copy()
    for v in range(rows):
        seen = labels[ids[offsets[v] : offsets[v + 1]]]
        want[v] = min(want[v], seen.min(initial=want[v]))
    got = cupy.asarray(out)
    DeviceKernels.neighbour_min(cupy.asarray(offsets), cupy.asarray(ids), cupy.asarray(labels), got)
    assert np.array_equal(got.get(), want)
