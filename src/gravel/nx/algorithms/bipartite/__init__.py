from . import centrality

__all__ = ["centrality"]
