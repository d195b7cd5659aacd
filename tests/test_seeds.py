"""Every function with a `seed` takes None, an integer >= 0 or a NumPy generator, and names the
argument where it gets anything else (NumPy's own error names neither the argument nor gravel)."""

import numpy as np
import pytest

import gravel

G = gravel.generate.grid(3, 3)
CALLS = {
    "maximal_independent_set": lambda s: gravel.maximal_independent_set(G, seed=s, device="cpu"),
    "betweenness_centrality": lambda s: gravel.betweenness_centrality(G, k=2, seed=s, device="cpu"),
    "greedy_color": lambda s: gravel.greedy_color(G, seed=s, device="cpu"),
    "louvain_communities": lambda s: gravel.louvain_communities(G, seed=s, device="cpu"),
    "add_random_weights": lambda s: gravel.transform.add_random_weights(G, seed=s),
}


@pytest.mark.parametrize("seed", [-1, "x", 1.5, True])
@pytest.mark.parametrize("name", list(CALLS))
def test_a_bad_seed_is_named(name, seed):
    with pytest.raises(gravel.InvalidArgumentError, match=f"seed must be None.*not {seed!r}"):
        CALLS[name](seed)


@pytest.mark.parametrize("name", list(CALLS))
def test_a_generator_is_the_same_as_its_seed(name):
    def result(seed):
        r = CALLS[name](seed)
        return r.weights if isinstance(r, gravel.Graph) else r.columns()

    by_int, by_generator = result(7), result(np.random.default_rng(7))
    if isinstance(by_int, dict):
        assert by_int.keys() == by_generator.keys()
        for k in by_int:
            np.testing.assert_array_equal(by_int[k], by_generator[k])
    else:
        np.testing.assert_array_equal(by_int, by_generator)
