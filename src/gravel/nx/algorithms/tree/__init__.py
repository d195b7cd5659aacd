from . import mst, recognition

__all__ = ["mst", "recognition"]
