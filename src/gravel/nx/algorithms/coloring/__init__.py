from . import greedy_coloring

__all__ = ["greedy_coloring"]
