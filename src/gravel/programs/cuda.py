"""A program's GPU phases on the operators, with its expressions written in CUDA C++.

``compute`` runs init, start, send and apply over every vertex (send over the senders' frontier);
``neighbor_reduce`` runs the SpMV (pull over every vertex, the non-senders masked to the identity)
or the SpMSpV (push from the senders' frontier, atomics: named reductions only), once per message
field and way, and once more (a max of 1s) to mark the vertices that received. Bool and 8-bit
messages reduce as int32 (the atomics' width); or and and reduce as max and min.
"""

import numpy as np

from ..operators._functor import CTYPES

#: the operator reduction for each named one
_REDUCE = {"sum": "sum", "min": "min", "max": "max", "or": "max", "and": "min"}
#: the C++ of the names every kernel holds alike (n and iteration are the parameters gn and giter)
_BASE = {"v": "v", "u": "u", "n": "gn", "iteration": "giter", "weight": "weight"} | {
    "a": "a",
    "b": "b",
    "out_degree": "odeg[v]",
    "in_degree": "ideg[v]",
}


#: common(a, b) of process: the out-neighbours two vertices share, by a merge of sorted lists
_COMMON = """
__device__ long long gravel_common(const long long *off, const int *idx, long long a, long long b) {
    long long i = off[a], j = off[b], c = 0;
    while (i < off[a + 1] && j < off[b + 1]) {
        const int x = idx[i], y = idx[j];
        i += x <= y;
        j += y <= x;
        c += x == y;
    }
    return c;
}
"""


def _wide(dt):
    """The dtype a message field reduces in on the GPU."""
    return np.dtype(np.int32) if dt.itemsize < 4 else dt


class CudaEngine:
    """The phases of :func:`gravel.programs.run` on the GPU, over CuPy arrays."""

    def __init__(self, G, program, values):
        import cupy

        dg = G.to("cuda")
        n = G.n
        self.program, self.n = program, n
        self.can_push = isinstance(program.reduce, str)
        ways = {"out": [dg], "in": [dg.reverse()], "both": [dg, dg.reverse()]}
        self.ways = ways[program.direction][: 2 if G.directed else 1]
        self.st = [cupy.zeros(n, f.dtype) for f in program.state]
        self.ms = [cupy.zeros(n, f.dtype) for f in program.message]
        self.tt = [cupy.zeros(n, _wide(f.dtype)) for f in program.message]
        self.active = cupy.zeros(n, cupy.uint8)
        self.received = cupy.zeros(n, cupy.int32)
        self.arrays = {f"st{i}": a for i, a in enumerate(self.st)}
        self.arrays |= {f"ms{i}": a for i, a in enumerate(self.ms)}
        self.arrays |= {f"tt{i}": a for i, a in enumerate(self.tt)}
        self.arrays |= {"active": self.active, "received": self.received}
        self.arrays |= {
            "odeg": cupy.diff(dg.offsets).astype(cupy.int32),
            "ideg": cupy.diff(dg.csc()[0]).astype(cupy.int32),
            "gn": np.int32(n),
            "g_off": dg.offsets,
            "g_idx": dg.indices,
        }
        self.arrays |= {f"p_{k}": x for k, x in values.items()}

    def _compute(self, frontier, statement, iteration, extra=None):
        from ..operators import compute

        params = self.arrays | {"giter": np.int32(iteration)} | (extra or {})
        compute(frontier, statement, params=params, n=self.n)

    def init(self, state):
        import cupy

        at_v = self.program.code(_BASE, state="st{i}[v]")
        p = self.program
        self._compute(
            None,
            " ".join(
                f"st{i}[v] = ({CTYPES[f.dtype]})({e.cuda(at_v)});"
                for i, (f, e) in enumerate(zip(p.state, p.init, strict=True))
            ),
            0,
        )
        for mine, given in zip(self.st, state or (), strict=False):
            mine[:] = cupy.asarray(given)
        self._compute(None, f"active[v] = ({p.start.cuda(at_v)}) ? 1 : 0", 0)

    def active_ids(self):
        import cupy

        return cupy.flatnonzero(self.active).astype(cupy.int32)

    def step(self, active, iteration, direction):
        """One iteration from the active vertices `active` (device ids): send, SpMV, apply."""
        import cupy

        from ..frontier import Frontier
        from ..operators import neighbor_reduce

        p = self.program
        senders = None if p.senders == "all" else Frontier.from_ids(self.n, active)
        at_v = self.program.code(_BASE, state="st{i}[v]")
        self._compute(
            senders,
            " ".join(
                f"ms{i}[v] = ({CTYPES[f.dtype]})({e.cuda(at_v)});"
                for i, (f, e) in enumerate(zip(p.message, p.send, strict=True))
            ),
            iteration,
        )
        push = direction == "push"
        guard = "" if push or p.senders == "all" else "active[u] == 0 ? gnone : "
        edge = self.program.code(_BASE, state="st{i}[v]", message="ms{i}[u]")
        self.received.fill(0)
        for way, graph in enumerate(self.ways):
            for i, (f, e) in enumerate(zip(p.message, p.process, strict=True)):
                wide = _wide(f.dtype)
                identity = wide.type(p.identity[i])
                named = isinstance(p.reduce, str)
                part = neighbor_reduce(
                    graph,
                    senders if push else None,
                    f"{guard}({CTYPES[wide]})({e.cuda(edge)})",
                    _REDUCE[p.reduce] if named else p.reduce.cuda({"a": "a", "b": "b"}),
                    dtype=wide,
                    identity=None if named else identity,
                    direction=direction,
                    params=self.arrays | {"gnone": identity},
                    preamble=_COMMON,
                )
                if way == 0:
                    self.tt[i][:] = part
                else:
                    self._fold(i, part)
            got = "1" if push or p.senders == "all" else "active[u] != 0 ? 1 : 0"
            mark = neighbor_reduce(
                graph,
                senders if push else None,
                got,
                "max",
                dtype=np.int32,
                direction=direction,
                params=self.arrays,
            )
            cupy.maximum(self.received, mark, out=self.received)  # unreached: INT_MIN
        self._apply(iteration)

    def _fold(self, i, part):
        """tt{i} folded with `part`, a second way's reduction, vertex by vertex."""
        import cupy

        p = self.program
        if isinstance(p.reduce, str):
            fold = {"sum": cupy.add, "min": cupy.minimum, "max": cupy.maximum}
            fold[_REDUCE[p.reduce]](self.tt[i], part, out=self.tt[i])
        else:
            code = p.reduce.cuda({"a": f"tt{i}[v]", "b": "gpart[v]"})
            self._compute(None, f"tt{i}[v] = {code}", 0, {"gpart": part})

    def _apply(self, iteration):
        p = self.program
        old = self.program.code(_BASE, state="o{i}", total="tt{i}[v]")
        new = self.program.code(_BASE, state="n{i}", old="o{i}", total="tt{i}[v]")
        body = [f"{CTYPES[f.dtype]} o{i} = st{i}[v];" for i, f in enumerate(p.state)]
        body += [
            f"{CTYPES[f.dtype]} n{i} = ({CTYPES[f.dtype]})({e.cuda(old)});"
            for i, (f, e) in enumerate(zip(p.state, p.apply, strict=True))
        ]
        body += [f"st{i}[v] = n{i};" for i in range(len(p.state))]
        body.append(f"active[v] = ({p.active.cuda(new)}) ? 1 : 0;")
        self._compute(
            None, f"if (received[v]) {{ {' '.join(body)} }} else {{ active[v] = 0; }}", iteration
        )

    def state(self):
        return [a.get() for a in self.st]
