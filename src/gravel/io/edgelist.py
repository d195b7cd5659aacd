"""Edge lists as SNAP distributes them: '#' or '%' comments, whitespace or comma separated, an
optional weight column. Ids are kept as written (n = largest id + 1) unless the caller relabels
them."""

from ._files import write_rows


def read(buf, path):
    """Returns (src, dst, weights or None, n or None, directed or None)."""
    from ._parse import parse  # Numba: loaded when a text file is read

    src, dst, w = parse(buf, comments=b"#%", path=path)
    return src, dst, w, None, None


def write(f, G, sep=" "):
    """One line per arc; an undirected graph lists each edge once (u <= v)."""
    src, dst = G.edges()
    if not G.directed:
        keep = src <= dst
        src, dst = src[keep], dst[keep]
    else:
        keep = slice(None)
    f.write(f"# gravel edge list: {G.n} vertices, {'directed' if G.directed else 'undirected'}\n")
    if G.weights is None:
        write_rows(f, [src, dst], f"%d{sep}%d")
    else:
        write_rows(f, [src, dst, G.weights[keep]], f"%d{sep}%d{sep}%.9g")
