"""Issue 51: the GPU's memory running out in the middle of a run. With the graph already on the
device, CuPy's allocator is held to a budget smaller than the algorithm's state: the call fails
with a MemoryError that says so, frees what it took, and the next call, the budget lifted, gives
the CPU's answer. The command says it in one line (exit 2)."""

import gc

import numpy as np
import pytest

import gravel
from gravel.arrays import host

from .helpers import gravel as run_gravel
from .helpers import one_line


@pytest.mark.gpu
@pytest.mark.parametrize("algorithm", ["pagerank", "bfs"])
def test_issue_51_gpu_memory_running_out_mid_run_is_clear_leaks_nothing_and_passes(algorithm):
    import cupy

    G = gravel.generate.kronecker(14, seed=1, device="cpu", progress=False)
    call = {
        "pagerank": lambda device: gravel.pagerank(G, device=device).rank,
        "bfs": lambda device: gravel.bfs(G, 0, device=device).depth,
    }[algorithm]
    expected = call("cpu")
    G.to("cuda")  # the graph on the device first: what runs out is the algorithm's state
    default = cupy.get_default_memory_pool()
    gc.collect()  # earlier tests' garbage would be freed during the call and read as a change
    before = default.used_bytes()
    # A pool of its own, held to one byte: free fragments of the default pool's chunks could
    # otherwise serve a small state, whatever the default pool's limit.
    pool = cupy.cuda.MemoryPool()
    pool.set_limit(size=1)
    previous = cupy.cuda.get_allocator()
    cupy.cuda.set_allocator(pool.malloc)
    try:
        with pytest.raises(MemoryError) as caught:
            call("cuda")
        message = str(caught.value)
        del caught  # its traceback holds the call's frames, and their arrays
    finally:
        cupy.cuda.set_allocator(previous)
    gc.collect()
    assert "memory" in message.lower() and "\n" not in message.strip()
    assert pool.used_bytes() == 0 and default.used_bytes() == before  # nothing leaked
    got = host(call("cuda"))
    if algorithm == "pagerank":
        assert np.abs(got - expected).sum() < 1e-5
    else:
        assert (got == expected).all()


@pytest.mark.gpu
def test_issue_51_gpu_memory_running_out_in_the_command_is_one_line(tmp_path):
    status, _, err = run_gravel(
        ["run", "pagerank", "kron:14", "--device", "cuda", "-o", tmp_path / "rank.npy"],
        env={"CUPY_GPU_MEMORY_LIMIT": str(1 << 20)},  # CuPy's pool: 1 MiB
    )
    assert status == 2, err
    one_line(err, "gravel: error: ")
    assert "memory" in err.lower() and list(tmp_path.iterdir()) == []
