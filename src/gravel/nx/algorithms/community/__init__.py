from . import label_propagation, louvain

__all__ = ["label_propagation", "louvain"]
