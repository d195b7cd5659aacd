from . import generic, unweighted, weighted

__all__ = ["generic", "unweighted", "weighted"]
