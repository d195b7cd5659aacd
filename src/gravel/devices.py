"""A graph on a device, the body and documentation of :meth:`gravel.Graph.to`: the graph itself
on the CPU; on the GPU its DeviceGraph, built once, where :func:`gravel.placement.plan` places it.
Everything it needs is imported on first use: importing gravel never imports CuPy."""


def to(self, device, *, placement=None, budget=None):
    """This graph on `device`: ``"cpu"`` (itself) or ``"cuda"`` (a DeviceGraph, built once).

    Parameters
    ----------
    device : {"cpu", "cuda"}
    placement : {"auto", "device", "host", "managed", "tiered"}, optional
        Where the arrays of a graph going to the GPU live (:class:`gravel.placement.Plan`);
        default ``gravel.config.placement`` ("auto": device memory where the graph fits,
        else the longest lists there and the rest in pinned host memory). Checked, then
        ignored, for ``"cpu"``.
    budget : int or str, optional
        Device memory the graph may take, such as ``"8GB"``; default
        ``gravel.config.device_memory``, then ``GRAVEL_DEVICE_MEMORY``, then the card's free
        memory. Ignored for ``"cpu"``.

    Returns
    -------
    Graph or gravel.backends.cuda.graph.DeviceGraph
        The graph itself for ``"cpu"``; for ``"cuda"`` its DeviceGraph, built by the first
        call, which decides the placement: later calls return that DeviceGraph whatever their
        `placement` and `budget`.

    Raises
    ------
    UnknownNameError
        An unknown `placement` or `device`.
    DeviceUnavailableError
        ``"cuda"`` where no usable GPU is present (the message says why).
    InvalidArgumentError
        A `budget` that is not a size.
    GraphTooLargeError
        A graph that does not fit its placement, before anything is allocated
        (:func:`gravel.placement.plan`).

    Examples
    --------
    >>> import gravel
    >>> G = gravel.generate.grid(2, 3)
    >>> G.to("cpu") is G
    True
    """
    from . import config
    from .errors import UnknownNameError
    from .placement import PLACEMENTS

    placement = config.placement if placement is None else placement
    if placement not in PLACEMENTS:
        raise UnknownNameError(
            f"unknown placement {placement!r} (expected {', '.join(PLACEMENTS)})"
        )
    if device == "cpu":
        return self
    if device != "cuda":
        raise UnknownNameError(f"unknown device {device!r} (expected cpu or cuda)")
    if self._device is None:
        from .backends import cuda
        from .errors import DeviceUnavailableError

        if not cuda.available():
            raise DeviceUnavailableError(f"Graph.to('cuda'): {cuda.why_unavailable()}")
        from .backends.cuda.graph import DeviceGraph
        from .backends.cuda.runtime import free_bytes
        from .placement import plan, resolve_budget

        budget = resolve_budget(budget)
        layout = plan(self, placement, budget, free_device=free_bytes())
        if layout.placement == "device" and budget is None:
            self._device = DeviceGraph(self)
        else:
            self._device = DeviceGraph(self, plan=layout)
    return self._device
