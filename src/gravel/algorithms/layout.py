"""ForceAtlas2 layout, as ``networkx.forceatlas2_layout`` (Jacomy et al., PLoS ONE 2014).

Each iteration moves every vertex along the sum of three forces: attraction along its out-arcs
(linear in the distance, or logarithmic with `linlog`), repulsion from every other vertex (the
product of the masses over the distance) and gravity toward the centre; the step is scaled by a
global speed that ForceAtlas2 adapts to the layout's swing (oscillation) and traction, and each
vertex's own swing damps its step. The iteration is NetworkX's, step for step, in float64:
backends/cpu/layout.py computes the forces on the CPU, kernels/layout/forceatlas2.cu on the GPU
(exact repulsion in shared-memory tiles: O(n^2) an iteration, for graphs one draws), and the
speed and the step are the same array code on either device.
"""

import math
from dataclasses import dataclass

import numpy as np

from .. import seeds
from ..arguments import is_integer, is_real
from ..arrays import xp
from ..backends.cpu import layout as _k
from ..dispatch import choose_device, takes_graph, to_caller
from ..errors import InvalidArgumentError
from ..results import Result, Timer
from ..transform import check_weights
from .mis import to_caller_order

#: the step below which (summed over the vertices) the iteration stops, as NetworkX's
STILL = 1e-10


@dataclass
class LayoutResult(Result):
    """Vertex positions, as :func:`forceatlas2_layout` returns them.

    Attributes
    ----------
    pos : numpy.ndarray or cupy.ndarray
        float64, shape (n, dim), over the caller's ids: each vertex's position (a CuPy array from
        the GPU path).
    x, y : numpy.ndarray or cupy.ndarray
        The first two coordinates (y zero where dim is 1): the per-vertex arrays the command line
        writes.
    """

    pos: np.ndarray = None

    vertex_arrays = ("x", "y")
    x: np.ndarray = None
    y: np.ndarray = None


def degree_mass(G):
    """Each vertex's default ForceAtlas2 mass: its degree plus 1, the degree as NetworkX counts it
    (in and out for a directed graph; a self loop twice).

    Parameters
    ----------
    G : Graph

    Returns
    -------
    numpy.ndarray
        float64 per vertex, over the caller's ids.

    Examples
    --------
    >>> import gravel
    >>> from gravel.algorithms.layout import degree_mass
    >>> degree_mass(gravel.Graph.from_edges([0, 1, 2], [1, 2, 2], directed=False)).tolist()
    [2.0, 3.0, 4.0]
    """
    degree = np.diff(G.offsets).astype(np.float64)
    if G.directed:
        degree += np.bincount(G.indices, minlength=G.n)
    else:
        rows = np.repeat(np.arange(G.n), np.diff(G.offsets))
        degree += np.bincount(rows[rows == G.indices], minlength=G.n)  # a loop's second end
    return to_caller(G, degree + 1.0)


@takes_graph
def forceatlas2_layout(
    G,
    pos=None,
    *,
    max_iter=100,
    jitter_tolerance=1.0,
    scaling_ratio=2.0,
    gravity=1.0,
    distributed_action=False,
    strong_gravity=False,
    node_mass=None,
    node_size=None,
    weight=True,
    linlog=False,
    seed=None,
    dim=2,
    device="auto",
):
    """Positions of G's vertices by ForceAtlas2, a force-directed layout.

    Vertices attract along arcs, repel each other in proportion to their masses and fall toward
    the centre under gravity; an adaptive speed damps oscillations.

    Parameters
    ----------
    G : Graph
        Directed (a vertex is pulled along its out-arcs, as NetworkX's adjacency matrix pulls it)
        or undirected.
    pos : array_like, optional
        Start positions, shape (n, dim) over the caller's ids; `dim` is then its second size.
        None draws them uniformly in the unit cube from `seed`.
    max_iter : int, default 100
        Most iterations (>= 0).
    jitter_tolerance : float, default 1.0
        How much swing the speed tolerates (>= 0).
    scaling_ratio : float, default 2.0
        Strength of repulsion (>= 0).
    gravity : float, default 1.0
        Strength of the pull toward the centre (>= 0).
    distributed_action : bool, default False
        Divide each vertex's attraction by its mass.
    strong_gravity : bool, default False
        Gravity grows with the distance from the centre.
    node_mass : array_like, optional
        Positive mass per vertex (caller ids); default its degree + 1 (:func:`degree_mass`).
    node_size : array_like, optional
        Size per vertex (caller ids): repulsion then acts between the vertices' rims, and the
        step is capped. None adjusts nothing.
    weight : bool, default True
        Attraction is weighed by G's weights where it has them (finite); else each arc weighs 1.
    linlog : bool, default False
        Logarithmic attraction, ``log(1 + d)`` instead of ``d``.
    seed : int, sequence of ints or numpy.random.Generator, optional
        Seeds the start positions when `pos` is None.
    dim : int, default 2
        Dimensions of the layout (>= 1), when `pos` is None.
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where to run: "auto" is the GPU where one is usable, else the CPU.

    Returns
    -------
    LayoutResult
        ``pos`` (float64, shape (n, dim), caller ids; a CuPy array on the GPU), ``x`` and ``y``
        (its first two columns) and ``iterations``: the iterations run.

    Raises
    ------
    InvalidArgumentError
        `max_iter` or `dim` is not an integer in range, a real parameter is not finite or out of
        range, `pos`, `node_mass` or `node_size` has the wrong shape or a non-finite entry, a
        mass is not positive, or `seed` is not a valid seed.
    InvalidWeightError
        A weight is NaN or infinite (weights in use).
    UnknownNameError
        `device` is not "auto", "cpu" or "cuda".
    DeviceUnavailableError
        ``device="cuda"`` where no GPU is usable.
    TypeError
        G is not a :class:`gravel.Graph` (a NetworkX graph, say).

    See Also
    --------
    networkx.forceatlas2_layout

    Notes
    -----
    Jacomy, Venturini, Heymann and Bastian, PLoS ONE 9(6), 2014, as NetworkX 3.6 iterates it (its
    swing and traction included): the same start positions give the same layout up to rounding.
    Repulsion is exact, O(n^2) an iteration. Two vertices at one point exert no force on each
    other (NetworkX's arithmetic gives NaN there).

    Examples
    --------
    >>> import numpy as np
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 1, 2], [1, 2, 3], directed=False)
    >>> r = gravel.forceatlas2_layout(G, seed=1, device="cpu")
    >>> r.pos.shape, bool(np.isfinite(r.pos).all())
    ((4, 2), True)
    """
    name = "forceatlas2_layout"
    n = G.n
    for what, x, low in (("max_iter", max_iter, 0), ("dim", dim, 1)):
        if not is_integer(x) or x < low:
            raise InvalidArgumentError(f"{name}: {what} must be an integer >= {low}, not {x!r}")
    for what, x in (
        ("jitter_tolerance", jitter_tolerance),
        ("scaling_ratio", scaling_ratio),
        ("gravity", gravity),
    ):
        if not is_real(x) or not math.isfinite(x) or x < 0:
            raise InvalidArgumentError(f"{name}: {what} must be a finite number >= 0, not {x!r}")
    if pos is None:
        start = seeds.rng(seed).random((n, int(dim)))
    else:
        start = _vertex_values(G, pos, "pos", 2)
    mass = degree_mass(G) if node_mass is None else _vertex_values(G, node_mass, "node_mass", 1)
    if np.any(mass <= 0):
        raise InvalidArgumentError(f"{name}: node_mass must be positive")
    size = None if node_size is None else _vertex_values(G, node_size, "node_size", 1)
    weighted = bool(weight) and G.weighted
    if weighted:
        check_weights(G, negative=True, name=name)
    w = G.weights.astype(np.float64) if weighted else np.ones(G.nnz)
    flags = np.array([linlog, distributed_action, strong_gravity, size is not None], np.int64)
    dev = choose_device(device, IMPLEMENTATIONS, name)
    inputs = (
        to_caller_order(G, start),
        to_caller_order(G, mass),
        to_caller_order(G, np.zeros(n) if size is None else size),
    )
    params = (float(jitter_tolerance), float(scaling_ratio), float(gravity), flags, int(max_iter))
    res = IMPLEMENTATIONS[dev](G, w, *inputs, *params)
    res.pos = to_caller(G, res.pos)
    res.x = res.pos[:, 0].copy()
    res.y = res.pos[:, 1].copy() if res.pos.shape[1] > 1 else xp(res.pos).zeros(n)
    return res


def _vertex_values(G, values, what, ndim):
    """`values` as a float64 array of one row (ndim 2) or one value (ndim 1) per vertex."""
    a = np.asarray(values, np.float64) if np.size(values) else np.zeros((G.n, 1)[:ndim])
    if a.ndim != ndim or a.shape[0] != G.n or (ndim == 2 and a.shape[1] < 1):
        shape = "(n, dim)" if ndim == 2 else "(n,)"
        raise InvalidArgumentError(f"forceatlas2_layout: {what} must have shape {shape}, n={G.n}")
    if not np.isfinite(a).all():
        raise InvalidArgumentError(f"forceatlas2_layout: {what} holds a non-finite value")
    return a


def speed_step(n, swing, traction, speed, efficiency, jitter_tolerance):
    """ForceAtlas2's adaptive speed, as NetworkX's ``estimate_factor``: the new speed and speed
    efficiency from the layout's swing and traction (summed over the iterations so far).

    Parameters
    ----------
    n : int
        Number of vertices.
    swing, traction : float
        The summed swing and traction.
    speed, efficiency : float
        The current speed and speed efficiency.
    jitter_tolerance : float
        How much swing the speed tolerates.

    Returns
    -------
    tuple of float
        The new speed and speed efficiency.
    """
    opt_jitter = 0.05 * math.sqrt(n)
    jitter = jitter_tolerance * max(math.sqrt(opt_jitter), min(10.0, opt_jitter * traction / n**2))
    least = 0.05
    if swing / traction > 2.0:
        if efficiency > least:
            efficiency *= 0.5
        jitter = max(jitter, jitter_tolerance)
    target = math.inf if swing == 0 else jitter * efficiency * traction / swing
    if swing > jitter * traction:
        if efficiency > least:
            efficiency *= 0.7
    elif speed < 1000:
        efficiency *= 1.3
    return speed + min(target - speed, 0.5 * speed), efficiency


def iterate(xp, forces, pos, mass, jitter_tolerance, max_iter, adjust):
    """ForceAtlas2's iterations over the array module `xp`: `forces(pos, center, update)` fills
    `update` with the vertices' forces; the speed adapts and each vertex steps, until `max_iter`
    iterations or a step summing under STILL. `pos` (n x dim, float64) moves in place.

    Parameters
    ----------
    xp : module
        ``numpy`` or ``cupy``: where `pos` and `mass` live.
    forces : callable
        Fills its third argument with the forces at `pos` (its first) about the centre (second).
    pos : numpy.ndarray or cupy.ndarray
        Start positions, moved in place.
    mass : numpy.ndarray or cupy.ndarray
        Each vertex's mass.
    jitter_tolerance : float
        How much swing the speed tolerates.
    max_iter : int
        Most iterations.
    adjust : bool
        Whether sizes are adjusted (the step is then capped at 10).

    Returns
    -------
    int
        The iterations run.
    """
    n = pos.shape[0]
    if n == 0:
        return 0
    speed = efficiency = swing = traction = 1.0
    update = xp.empty_like(pos)
    done = 0
    for _ in range(max_iter):
        forces(pos, pos.mean(axis=0), update)
        done += 1
        swing += float((mass * xp.linalg.norm(pos - update, axis=1)).sum())
        traction += float((0.5 * mass * xp.linalg.norm(pos + update, axis=1)).sum())
        speed, efficiency = speed_step(n, swing, traction, speed, efficiency, jitter_tolerance)
        force = xp.linalg.norm(update, axis=1)
        factor = speed / (1.0 + xp.sqrt(speed * mass * force))
        if adjust:
            factor = xp.where(
                force > 0, xp.minimum(0.1 * factor * force, 10.0) / xp.maximum(force, 1e-300), 0.0
            )
        step = update * factor[:, None]
        pos += step
        if float(xp.abs(step).sum()) < STILL:
            break
    return done


def _result(device, seconds, iterations, pos, adjust):
    return LayoutResult(
        "forceatlas2_layout",
        device,
        seconds,
        iterations,
        "forceatlas2" + (", sizes adjusted" if adjust else ""),
        pos=pos,
    )


def _fa2_cpu(G, w, pos, mass, size, jitter_tolerance, scaling, gravity, flags, max_iter):
    pos = pos.copy()

    def forces(pos, center, update):
        _k.forces(pos, mass, size, G.offsets, G.indices, w, center, scaling, gravity, flags, update)

    with Timer() as t:
        done = iterate(np, forces, pos, mass, jitter_tolerance, max_iter, bool(flags[3]))
    return _result("cpu", t.seconds, done, pos, bool(flags[3]))


def _fa2_cuda(G, w, pos, mass, size, jitter_tolerance, scaling, gravity, flags, max_iter):
    """The forces by gravel_forceatlas2_forces<dim> (a thread per vertex, repulsion in tiles of
    the block's size staged in shared memory); the rest is :func:`iterate` on CuPy arrays."""
    import cupy

    from ..backends.cuda import runtime

    n, dim = pos.shape
    pos = cupy.asarray(pos)
    mass, size = cupy.asarray(mass), cupy.asarray(size)
    offsets = cupy.asarray(G.offsets, dtype=cupy.int64)
    indices = cupy.asarray(G.indices, dtype=cupy.int32)
    w = cupy.asarray(w, dtype=cupy.float64)
    bits = int(flags[0]) | int(flags[1]) << 1 | int(flags[2]) << 2 | int(flags[3]) << 3
    k = runtime.kernel("layout/forceatlas2.cu", "gravel_forceatlas2_forces", templates=(dim,))
    # a tile of the block's vertices: dim positions, a mass and a size each, in 48 KB
    block = max(32, min(256, 48 * 1024 // (8 * (dim + 2)) // 32 * 32))
    grid = runtime.blocks_for(n, block)

    def forces(pos, center, update):
        args = (pos, mass, size, offsets, indices, w, cupy.ascontiguousarray(center))
        scalars = (np.int32(n), np.float64(scaling), np.float64(gravity), np.int32(bits))
        k(grid, block, (*args, *scalars, update), shared_mem=8 * block * (dim + 2))

    with Timer("cuda") as t:
        done = iterate(cupy, forces, pos, mass, jitter_tolerance, max_iter, bool(flags[3]))
    return _result("cuda", t.seconds, done, pos, bool(flags[3]))


def verify_layout(G, x, y=None, *, pos=None):
    """Check a layout: finite positions, and arcs (self loops aside) no longer on average than
    the distance between two vertices drawn at random (all pairs up to PAIRS_EXACT vertices,
    else a fixed sample of pairs), to a 10 % margin.

    Parameters
    ----------
    G : Graph
    x : array_like
        Each vertex's first coordinate, over the caller's ids, on the host.
    y : array_like, optional
        The second coordinate, if the layout has one.
    pos : array_like, optional
        The whole positions, shape (n, dim); used instead of `x` and `y` when given.

    Returns
    -------
    list of str
        The problems found, each a sentence; empty if the layout passes.
    """
    n = G.n
    if pos is None:
        pos = np.column_stack([x] if y is None else [x, y]).astype(np.float64)
    pos = np.asarray(pos, np.float64).reshape(n, -1)
    if not np.isfinite(pos).all():
        return ["a position is not finite"]
    src, dst = G.edges()
    arc = src != dst
    if n < 3 or not arc.any():
        return []
    p = to_caller_order(G, pos)
    edge = float(np.linalg.norm(p[src[arc]] - p[dst[arc]], axis=1).mean())
    if n <= PAIRS_EXACT:
        i, j = np.triu_indices(n, 1)
    else:
        rng = np.random.default_rng(0)
        i, j = rng.integers(0, n, (2, 4 * PAIRS_EXACT))
    pair = float(np.linalg.norm(p[i] - p[j], axis=1).mean())
    if edge > 1.1 * pair:
        return [f"arcs average {edge:.4g} long, random pairs {pair:.4g}: no better than random"]
    return []


#: vertices up to which verify_layout averages over every pair
PAIRS_EXACT = 2_000

#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _fa2_cpu, "cuda": _fa2_cuda}
