"""Every function with a `seed` takes None, an integer >= 0 or a NumPy generator, and names the
argument where it gets anything else (NumPy's own error names neither the argument nor gravel)."""

import re

import numpy as np
import pytest

import gravel

G = gravel.generate.kronecker(8, 4, seed=1)  # many ties of degree: the seed shows
CALLS = {
    "maximal_independent_set": lambda s: gravel.maximal_independent_set(G, seed=s, device="cpu"),
    "betweenness_centrality": lambda s: gravel.betweenness_centrality(G, k=2, seed=s, device="cpu"),
    "greedy_color": lambda s: gravel.greedy_color(G, seed=s, device="cpu"),
    "louvain_communities": lambda s: gravel.louvain_communities(G, seed=s, device="cpu"),
    "leiden_communities": lambda s: gravel.leiden_communities(G, seed=s, device="cpu"),
    "add_random_weights": lambda s: gravel.transform.add_random_weights(G, seed=s),
}


@pytest.mark.parametrize("seed", [-1, "x", 1.5, True, [1, -2], (), 2**63, [7, 2**70]])
@pytest.mark.parametrize("name", list(CALLS))
def test_a_bad_seed_is_named(name, seed):
    with pytest.raises(gravel.InvalidArgumentError, match=re.escape(f"not {seed!r}")):
        CALLS[name](seed)


@pytest.mark.parametrize("name", list(CALLS))
def test_a_generator_is_the_same_as_its_seed(name):
    def result(seed):
        r = CALLS[name](seed)
        return r.weights if isinstance(r, gravel.Graph) else r.columns()

    def same(a, b):
        if isinstance(a, dict):
            return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
        return np.array_equal(a, b)

    assert same(result(7), result(np.random.default_rng(7)))
    assert same(result([7, 1]), result(np.random.default_rng([7, 1])))
    assert not same(result(7), result(8))  # the seed is used


def test_issue_51_seeds_are_63_bits():
    from gravel.seeds import check, rng

    assert check(2**63 - 1) == 2**63 - 1 and rng([2**63 - 1, 0]) is not None
    with pytest.raises(gravel.InvalidArgumentError, match=r"--seed must be .* < 2\*\*63"):
        check(2**63, "--seed")
