"""The GPU's kernels of the per-part programs (:func:`gravel.distributed.programs.kernels`): the
pulls of kernels/neighbor_reduce/part.cu over a part's lists of global ids, launched with the
operators' lanes-per-list rule.
"""

import numpy as np

#: threads per block of the part pulls (kernels/neighbor_reduce/part.cu)
BLOCK = 256


class DeviceKernels:
    """The GPU's kernels of the per-part programs (programs.kernels): the pulls of
    kernels/neighbor_reduce/part.cu over a part's lists of global ids."""

    #: PageRank's contributions travel and are gathered in float32, as the single GPU's are
    contributions_dtype = np.float32

    @staticmethod
    def pagerank(in_arcs):
        """PageRank's kernels, ``contributions(rank, out_weight, contrib)`` (returns the dangling
        rank) and ``pull(offsets, ids, weights, contrib, base, alpha, rank, new_rank)`` (returns the
        L1 change), as static methods of a class.

        Parameters
        ----------
        in_arcs : int
            The part's in-arcs (the host picks its kernels by size; the GPU's serve all).

        Returns
        -------
        type
        """
        return _PageRank

    @staticmethod
    def neighbour_min(offsets, ids, labels, out):
        """``out[v] = min(out[v], smallest label among v's listed neighbours)``, on the GPU.

        Parameters
        ----------
        offsets : cupy.ndarray of int64
            The part's CSR (or CSC) offsets over its local vertices.
        ids : cupy.ndarray of int32
            The lists' global ids.
        labels : cupy.ndarray of int32
            Every vertex's label, by global id.
        out : cupy.ndarray of int32
            The part's labels, lowered in place.
        """
        _launch("gravel_part_min_label", offsets, ids, (offsets, ids, labels, out))


class _PageRank:
    @staticmethod
    def contributions(rank, out_weight, contrib):
        import cupy

        has = out_weight > 0
        contrib[...] = cupy.where(has, rank / cupy.where(has, out_weight, 1), 0.0)
        return float(cupy.where(has, 0.0, rank).sum())

    @staticmethod
    def pull(offsets, ids, weights, contrib, base, alpha, rank, new_rank):
        """new_rank = base + alpha * the (weighted; `weights` None: not) sum of contrib over each
        row's list; returns the L1 change from rank. contrib is float32 (contributions_dtype)."""
        import cupy

        if contrib.dtype != cupy.float32:
            raise TypeError(f"PageRank's contributions must be float32, not {contrib.dtype}")
        err = cupy.zeros(rank.shape[0], cupy.float64)
        w = cupy.zeros(1, cupy.float32) if weights is None else weights
        args = (offsets, ids, w, np.int32(weights is not None), contrib, base, np.float64(alpha))
        _launch("gravel_part_pull_rank", offsets, ids, (*args, rank, new_rank, err))
        return float(err.sum())


def _launch(name, offsets, ids, args):
    """Launch `name` over the rows of (offsets, ids), lanes per row from the mean list (the
    operators' pull rule)."""
    from ..backends.cuda import runtime
    from ..operators.sweeps import lanes_per_item

    rows = offsets.shape[0] - 1
    if rows == 0:
        return
    lanes = lanes_per_item(ids.shape[0] / rows)
    k = runtime.kernel("neighbor_reduce/part.cu", name, templates=(lanes,))
    k(-(-rows * lanes // BLOCK), BLOCK, (*args, np.int64(rows)))
