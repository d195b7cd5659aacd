"""A placement plan as text for people (:mod:`gravel.placement`; ``gravel info`` prints it)."""

from .budget import format_bytes


def render(plan):
    """A plan as a short table for people.

    Parameters
    ----------
    plan : Plan
        What :func:`gravel.placement.plan` returned.

    Returns
    -------
    str
        The bytes of each array on the device and in pinned host memory, then the vertex state
        set aside and what a sweep reads over the bus, a line each.

    Examples
    --------
    >>> import gravel
    >>> from gravel.placement import plan, render
    >>> print(render(plan(gravel.generate.grid(3, 3), "host")))
    placement host (asked: host), no device limit known
    array               device   host (pinned)
    offsets               80 B             0 B
    indices                0 B            96 B
    total                 80 B            96 B
    vertex state: 288 B set aside on the device
    lists on the device: none; a sweep reads 96 B over the bus
    """
    limit = "no device limit known" if plan.limit is None else "device limit "
    if plan.limit is not None:
        limit += format_bytes(plan.limit)
    rows = [(name, plan.device[name], plan.host.get(name, 0)) for name in plan.device]
    rows = [r for r in rows if r[0] == "offsets" or r[1] or r[2]]
    rows.append(("total", plan.device_total, plan.host_total))
    lines = [
        f"placement {plan.placement} (asked: {plan.requested}), {limit}",
        f"{'array':<12}{'device':>14}{'host (pinned)':>16}",
    ]
    lines += [f"{a:<12}{format_bytes(d):>14}{format_bytes(h):>16}" for a, d, h in rows]
    lines.append(f"vertex state: {format_bytes(plan.state)} set aside on the device")
    if plan.hot_arcs == plan.nnz:
        lists = "all"
    elif plan.hot_arcs == 0:
        lists = "none"
    else:
        lists = (
            f"{plan.hot_vertices:,} vertices', {plan.hot_arcs:,} of {plan.nnz:,} arcs "
            f"({plan.hot_arcs / plan.nnz:.0%})"
        )
    lines.append(
        f"lists on the device: {lists}; a sweep reads {format_bytes(plan.bus_bytes)} over the bus"
    )
    return "\n".join(lines)
