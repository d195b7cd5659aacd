from . import breadth_first_search

__all__ = ["breadth_first_search"]
