"""NetworkX's dispatch to the backend: ``can_run``'s reasons for refused calls, small graphs and
node-local calls kept on NetworkX, automatic dispatch falling back with the reason, a light
``import networkx``, the XFAIL table marked on NetworkX's own tests, and the
``nx.config.backends.gravel.device`` setting (graphs under the GPU's size run on the CPU)."""

import subprocess
import sys
from pathlib import PurePosixPath

import networkx as nx
import pytest

from gravel.nx._algorithm import GPU_MIN_ARCS
from gravel.nx.interface import SMALL_GRAPH_EDGES, XFAIL, BackendInterface


@pytest.mark.parametrize(
    "name,graph,kwargs,reason",
    [
        ("pagerank", nx.MultiGraph([(0, 1)]), {}, "multigraphs"),
        ("betweenness_centrality", nx.path_graph(3), {"weight": "weight"}, "weighted"),
        ("bfs_edges", nx.path_graph(3), {"source": 0, "sort_neighbors": sorted}, "sort_neighbors"),
        ("generic_bfs_edges", nx.path_graph(3), {"source": 0, "neighbors": len}, "neighbors"),
        ("transitivity", nx.DiGraph([(0, 1), (1, 2), (2, 0)]), {}, "directed"),
        ("shortest_path_length", nx.path_graph(3), {"source": 0, "weight": len}, "weight func"),
        ("pagerank", nx.path_graph(3), {"tol": 0}, "tol=0"),
        ("core_number", nx.algorithms.approximation.kcomponents._AntiGraph(), {}, "adjacency"),
        ("louvain_communities", nx.DiGraph([(0, 1)]), {}, "directed"),
        ("louvain_communities", nx.path_graph(3), {"max_level": 1.5}, "max_level"),
        ("louvain_communities", nx.path_graph(3), {"resolution": -1}, "resolution"),
        ("louvain_communities", nx.path_graph(3), {"threshold": float("nan")}, "threshold"),
        ("louvain_communities", nx.path_graph(3), {"seed": "abc"}, "seed"),
        ("label_propagation_communities", nx.DiGraph([(0, 1)]), {}, "directed"),
        ("greedy_color", nx.DiGraph([(0, 1)]), {}, "directed"),
        ("greedy_color", nx.path_graph(3), {"strategy": "smallest_last"}, "largest_first"),
        (
            "greedy_color",
            nx.path_graph(3),
            {"strategy": nx.coloring.strategy_largest_first},
            "largest_first",
        ),
        ("greedy_color", nx.path_graph(3), {"interchange": True}, "interchange"),
    ],
)
def test_can_run_gives_the_reason(name, graph, kwargs, reason):
    said = BackendInterface.can_run(name, (graph,), kwargs)
    assert isinstance(said, str) and reason in said


def test_small_graphs_stay_on_networkx():
    said = BackendInterface.should_run("pagerank", (nx.path_graph(5),), {})
    assert isinstance(said, str) and "too small" in said
    big = nx.gnm_random_graph(2000, SMALL_GRAPH_EDGES, seed=1)
    assert BackendInterface.should_run("pagerank", (big,), {}) is True


def test_the_edge_count_dispatch_reads_follows_the_graph():
    G = nx.gnm_random_graph(2000, SMALL_GRAPH_EDGES - 1, seed=1)
    assert isinstance(BackendInterface.should_run("pagerank", (G,), {}), str)
    G.add_edge(*next(nx.non_edges(G)))  # NetworkX empties G's cache, the count with it
    assert BackendInterface.should_run("pagerank", (G,), {}) is True
    G.remove_edge(*next(iter(G.edges)))
    assert isinstance(BackendInterface.should_run("pagerank", (G,), {}), str)


def test_node_local_calls_stay_on_networkx_under_auto_dispatch(caplog):
    G = nx.gnm_random_graph(2000, SMALL_GRAPH_EDGES, seed=1)
    G.add_node("alone")
    with nx.config(backend_priority=["gravel"]), caplog.at_level("DEBUG", "networkx"):
        assert nx.is_isolate(G, "alone") and not nx.is_isolate(G, 0)
    assert "one node's adjacency" in caplog.text
    assert nx.is_isolate(G, "alone", backend="gravel")


def test_auto_dispatch_falls_back_with_the_reason(caplog):
    G = nx.path_graph(5)
    with nx.config(backend_priority=["gravel"]), caplog.at_level("DEBUG", "networkx"):
        assert nx.pagerank(G) == pytest.approx(nx.pagerank(G, backend="networkx"))
    assert "too small" in caplog.text


def test_auto_dispatch_sends_refused_calls_back(caplog, monkeypatch):
    from gravel.nx import interface

    monkeypatch.setattr(interface, "SMALL_GRAPH_EDGES", 0)
    G = nx.karate_club_graph()
    with nx.config(backend_priority=["gravel"]), caplog.at_level("DEBUG", "networkx"):
        assert nx.greedy_color(G, "smallest_last") == nx.greedy_color(G, "smallest_last")
        assert "largest_first" in caplog.text
        parts = nx.community.louvain_communities(G, resolution=-0.5, seed=1)
        assert parts == nx.community.louvain_communities(
            G, resolution=-0.5, seed=1, backend="networkx"
        )
        assert "resolution" in caplog.text
        G.add_edge(0, 1, weight=-1)
        parts = nx.community.louvain_communities(G, seed=1)
        assert parts == nx.community.louvain_communities(G, seed=1, backend="networkx")
        assert "non-negative" in caplog.text


def test_import_networkx_stays_light():
    code = (
        "import sys, networkx\n"
        "assert 'gravel' in networkx.utils.backends.backend_info\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('cupy', 'numba')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_on_start_tests_marks_the_xfail_table():
    class Item:  # a pytest item of a file outside the rootdir: its node id names no path
        def __init__(self, path, name):
            self.path, self.name, self.nodeid, self.markers = path, name, f"::T::{name}", []

        def add_marker(self, marker):
            self.markers.append(marker)

    site = PurePosixPath("/venv/site-packages/networkx/algorithms")
    items = [Item(site / path, test) for path, test in XFAIL]
    items.append(Item(site / "tests/test_core.py", "test_other"))
    BackendInterface.on_start_tests(items)
    assert [len(item.markers) for item in items] == [1] * len(XFAIL) + [0]


def test_device_config_chooses_gravel_s_device():
    from gravel.backends import cuda
    from gravel.errors import DeviceUnavailableError

    G = nx.karate_club_graph()
    assert nx.config.backends.gravel.device == "auto"
    with nx.config.backends.gravel(device="cpu"):
        got = nx.pagerank(G, backend="gravel")
    assert got == pytest.approx(nx.pagerank(G), abs=1e-9)
    if not cuda.available():
        with nx.config.backends.gravel(device="cuda"), pytest.raises(DeviceUnavailableError):
            nx.pagerank(G, backend="gravel")


@pytest.mark.parametrize(
    "config,edges,expect",
    [
        ("auto", GPU_MIN_ARCS // 2 - 1, "cpu"),
        ("auto", GPU_MIN_ARCS // 2, "auto"),
        ("cuda", 10, "cuda"),
        ("cpu", GPU_MIN_ARCS, "cpu"),
    ],
)
def test_auto_runs_graphs_under_the_gpu_s_size_on_the_cpu(monkeypatch, config, edges, expect):
    """Under "auto" a graph of fewer than GPU_MIN_ARCS arcs goes to gravel's CPU path; a device
    named in the config is passed on as it is."""
    from gravel.nx.algorithms.link_analysis import pagerank_alg

    asked = []

    class Asked(Exception):
        """The device is all this test reads: the call stops there."""

    def spy(*args, device, **kwargs):
        asked.append(device)
        raise Asked

    monkeypatch.setattr(pagerank_alg, "gravel_pagerank", spy)
    G = nx.gnm_random_graph(2 * edges // 3 + 2, edges, seed=1)  # no self loops: 2 arcs an edge
    with nx.config.backends.gravel(device=config), pytest.raises(Asked):
        nx.pagerank(G, backend="gravel")
    assert asked == [expect]
