"""The registry of backend functions and their ``can_run`` conditions."""

import inspect

import networkx as nx

# name -> function, filled by @algorithm as the algorithm modules load
ALGORITHMS = {}


def algorithm(func=None, *, can_run=None, reads_attributes=False):
    """Register `func` under its (NetworkX) name.

    `can_run`, if given, is called with the arguments NetworkX received (the graph still a NetworkX
    graph), bound to `func`'s signature with defaults applied; it returns True, or a string saying
    why gravel cannot run the call (NetworkX logs it and runs its own code). `reads_attributes`:
    where NetworkX keeps every edge attribute for the call, the function reads the one it needs
    from the caller's graph (:func:`gravel.nx.convert.with_attribute`).
    """
    if func is None:
        return lambda f: algorithm(f, can_run=can_run, reads_attributes=reads_attributes)
    func.can_run = can_run
    func.reads_attributes = reads_attributes
    func.signature = inspect.signature(func)
    ALGORITHMS[func.__name__] = func
    return func


def device():
    """Where gravel runs the call: ``nx.config.backends.gravel.device``, "auto" (the GPU where
    gravel's CUDA path is available), "cpu" or "cuda"."""
    return nx.config.backends.gravel.device


def bound(func, args, kwargs):
    """`args` and `kwargs` as a dict of `func`'s parameters, defaults filled in."""
    b = func.signature.bind(*args, **kwargs)
    b.apply_defaults()
    return b.arguments


def single_node(G, nodes):
    """True when `nodes` names one node of G (NetworkX then returns one value, not a dict)."""
    try:
        return nodes in G
    except TypeError:  # unhashable: a list of nodes
        return False


def node_not_found(node):
    """NetworkX's error for a missing traversal source."""
    return nx.NetworkXError(f"The node {node} is not in the graph.")


def start_values_ok(G, nstart):
    """True when `nstart` is None or gives every node of G (a NetworkX graph, or a converted one)
    a non-negative number, and no other key: the starts gravel's power iterations take."""
    if nstart is None:
        return True
    try:
        return set(nstart) == set(G) and all(v >= 0 for v in nstart.values())
    except TypeError:  # not a dict of numbers
        return False
