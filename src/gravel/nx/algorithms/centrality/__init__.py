from . import betweenness

__all__ = ["betweenness"]
