"""Who to follow: the circle of trust is NetworkX's personalized PageRank's top, and the
recommendations are the top SALSA authorities of the circle's bipartite graph (a power iteration of
the walk here), minus the user and whom the user follows."""

import networkx as nx
import numpy as np
import pytest

import gravel
from gravel.algorithms.who_to_follow import verify_who_to_follow, who_to_follow


def walk_authorities(hubs, heads, n_auth, iterations=4000):
    """SALSA's authority scores on hub -> authority arcs, by iterating the walk."""
    import scipy.sparse as sp

    A = sp.csr_matrix((np.ones(hubs.size), (hubs, heads)), shape=(hubs.max() + 1, n_auth))
    out_deg, in_deg = np.asarray(A.sum(1)).ravel(), np.asarray(A.sum(0)).ravel()
    a = (in_deg > 0) / (in_deg > 0).sum()
    for _ in range(iterations):
        h = A @ np.divide(a, in_deg, out=np.zeros(n_auth), where=in_deg > 0)
        a = A.T @ np.divide(h, out_deg, out=np.zeros(h.size), where=out_deg > 0)
    return a


@pytest.mark.parametrize("reordered", [False, True])
def test_against_networkx_and_the_walk(reordered):
    G = gravel.generate.kronecker(9, 8, seed=3, directed=True)
    user = int(np.argsort(G.out_degree)[-5])
    H = gravel.reorder.reorder(G, "degree") if reordered else G
    r = who_to_follow(H, user, count=15, trust=40, device="cpu")
    assert verify_who_to_follow(G, user, r.score) == []
    ppr = nx.pagerank(G.to_networkx(), personalization={user: 1.0}, tol=1e-12)
    expect = sorted(ppr, key=lambda v: (-ppr[v], v))[:40]
    assert set(r.circle.tolist()) == set(expect)
    # the circle's bipartite graph, its authorities by the walk
    tails, heads = [], []
    for i, c in enumerate(r.circle):
        for v in G.indices[G.offsets[c] : G.offsets[c + 1]]:
            tails.append(i)
            heads.append(v)
    heads = np.array(heads)
    authorities, side = np.unique(heads, return_inverse=True)
    score = walk_authorities(np.array(tails), side, authorities.size)
    followed = set(G.indices[G.offsets[user] : G.offsets[user + 1]].tolist()) | {user}
    ranked = sorted(
        (v for v in range(authorities.size) if authorities[v] not in followed and score[v] > 0),
        key=lambda v: (-score[v], authorities[v]),
    )
    np.testing.assert_allclose(r.scores, score[ranked[:15]], atol=1e-9)
    assert not set(r.recommended.tolist()) & followed
    assert np.all(np.diff(r.scores) <= 1e-12)


def test_bad_input_and_a_friendship_graph():
    r = who_to_follow(gravel.generate.grid(3, 3), 0, trust=3, device="cpu")  # friends' friends
    assert set(r.recommended.tolist()) == {2, 4, 6} and r.recommended[0] == 4
    G = gravel.generate.kronecker(6, 4, directed=True)
    with pytest.raises(gravel.InvalidArgumentError, match="count"):
        who_to_follow(G, 0, count=0, device="cpu")
    with pytest.raises(gravel.VertexNotFoundError):
        who_to_follow(G, G.n, device="cpu")


@pytest.mark.gpu
def test_gpu_pagerank_gives_the_same_recommendations():
    """With the whole graph as the circle of trust the PageRank's precision cannot move anyone in
    or out of it: the GPU's recommendations are the CPU's."""
    G = gravel.generate.kronecker(9, 8, seed=3, directed=True)
    user = int(np.argmax(G.out_degree))
    gpu = who_to_follow(G, user, trust=G.n, count=20, device="cuda")
    cpu = who_to_follow(G, user, trust=G.n, count=20, device="cpu")
    assert gpu.device == "cuda"
    assert gpu.recommended.tolist() == cpu.recommended.tolist()
    np.testing.assert_allclose(gpu.scores, cpu.scores, rtol=1e-12)
    assert verify_who_to_follow(G, user, who_to_follow(G, user, device="cuda").score) == []
