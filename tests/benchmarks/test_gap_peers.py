"""benchmarks/gap_peers.py: the peers' cells of gap.py's table are checked and timed, and a
checked run of LONG_RUN_S or more is not run again."""

import numpy as np
import pytest

import gravel
from gravel.cli import open_graph

from .helpers import script

pytest.importorskip("networkit")
pytest.importorskip("igraph")
gap_peers = script("gap_peers")


@pytest.fixture(scope="module")
def pair():
    G = open_graph("kron:9")[0].simple_undirected()
    return G, gravel.transform.add_random_weights(G, 1, 255, seed=1)


@pytest.mark.parametrize("long_run", [np.inf, 0.0])
def test_cells_are_checked_and_timed_once_more_unless_long(monkeypatch, pair, long_run):
    G, W = pair
    sources = np.argsort(G.out_degree)[-2:].tolist()
    timed = []
    interleaved = gap_peers.interleaved

    def counted(calls, repeat, warm_up=True):
        timed.extend(calls)
        return interleaved(calls, repeat, warm_up)

    monkeypatch.setattr(gap_peers, "interleaved", counted)
    monkeypatch.setattr(gap_peers, "LONG_RUN_S", long_run)
    cells = gap_peers.peer_cells(G, W, sources, 1, 2)
    assert set(cells) == set(gap_peers.GAP_PRIMITIVES)
    for name, cell in cells.items():
        assert cell["peer_problems"] == []
        assert cell["networkit_s"] > 0 and cell["igraph_s"] > 0, name
    # BFS and SSSP from both sources, CC and TC from one: each peer's checked run, then one more
    # timed run each where the checked one was short, none where it was long
    expect = 2 * (2 + 2 + 1 + 1) if long_run == np.inf else 0
    assert len(timed) == expect
