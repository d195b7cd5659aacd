"""The registry of backend functions and their ``can_run`` conditions."""

import functools
import inspect

import networkx as nx

from gravel.interop import collector_paused

# name -> function, filled by @algorithm as the algorithm modules load
ALGORITHMS = {}


def algorithm(func=None, *, can_run=None, reads_attributes=False, large_items=False):
    """Register `func` under its (NetworkX) name.

    `can_run`, if given, is called with the arguments NetworkX received (the graph still a NetworkX
    graph), bound to `func`'s signature with defaults applied; it returns True, or a string saying
    why gravel cannot run the call (NetworkX logs it and runs its own code). `reads_attributes`:
    where NetworkX keeps every edge attribute for the call, the function reads the one it needs
    from the caller's graph (:func:`gravel.nx.convert.with_attribute`). `large_items`: the function
    returns a generator whose every item is a large structure (a source's paths, a partition).
    Registered, and returned, as :func:`collector_paused_calls` wraps it.
    """
    if func is None:
        return lambda f: algorithm(
            f, can_run=can_run, reads_attributes=reads_attributes, large_items=large_items
        )
    call = collector_paused_calls(func, large_items)
    call.can_run = can_run
    call.reads_attributes = reads_attributes
    call.signature = inspect.signature(func)
    ALGORITHMS[func.__name__] = call
    return call


def collector_paused_calls(func, large_items=False):
    """`func` run with Python's garbage collector paused (:func:`gravel.interop.collector_paused`),
    and, with `large_items`, each item of the generator it returns made so too: the results hold
    up to millions of new containers (paths, edge tuples, sets), and the collector's passes over
    the caller's graph that they would set off cost more than building them. A generator of small
    items (nodes, edges) runs as it is: a pause per item would cost more than the item."""

    @functools.wraps(func)
    def call(*args, **kwargs):
        with collector_paused():
            out = func(*args, **kwargs)
        return paused_items(out) if large_items and inspect.isgenerator(out) else out

    return call


def paused_items(generator):
    """The items of `generator`, each made with the collector paused; its return value too."""
    while True:
        with collector_paused():
            try:
                item = next(generator)
            except StopIteration as stop:
                return stop.value
        yield item


#: under the device "auto", graphs of fewer stored arcs run on the CPU: copying one to the GPU and
#: launching its kernels costs more than the CPU's whole call (docs/tuning.md, GPU_MIN_ARCS)
GPU_MIN_ARCS = 65_536


def device(graph):
    """Where gravel runs a call on `graph`.

    Parameters
    ----------
    graph : gravel.Graph
        The graph the call's algorithm reads.

    Returns
    -------
    str
        ``nx.config.backends.gravel.device``: "cpu", "cuda", or "auto" (the GPU where gravel's CUDA
        path is available), which is "cpu" for a graph of fewer than :data:`GPU_MIN_ARCS` arcs.
    """
    wanted = nx.config.backends.gravel.device
    return "cpu" if wanted == "auto" and graph.nnz < GPU_MIN_ARCS else wanted


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
