"""gravel's binary format: an uncompressed NumPy .npz of the CSR arrays, loaded at memory speed."""

import zipfile

import numpy as np

from ..errors import GraphFormatError
from ..graph import Graph

VERSION = 1


def read(path):
    try:
        with np.load(path, allow_pickle=False) as z:
            if int(z["gravel_version"]) != VERSION:
                raise GraphFormatError(f"binary format version {int(z['gravel_version'])}, "
                                       f"this gravel reads {VERSION}", path)
            return Graph(z["offsets"], z["indices"], z["weights"] if "weights" in z else None,
                         directed=bool(z["directed"]), labels=z["labels"] if "labels" in z else None,
                         _sorted=True)
    except (KeyError, ValueError, OSError, zipfile.BadZipFile, EOFError) as e:
        if isinstance(e, GraphFormatError):
            raise
        raise GraphFormatError(f"not a gravel binary graph ({e})", path) from None


def write(f, G):
    arrays = {"gravel_version": np.int32(VERSION), "offsets": G.offsets, "indices": G.indices,
              "directed": np.bool_(G.directed)}
    if G.weights is not None:
        arrays["weights"] = G.weights
    if G.labels is not None:
        arrays["labels"] = G.labels
    np.savez(f, **arrays)
