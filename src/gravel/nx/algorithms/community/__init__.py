from . import label_propagation, leiden, louvain

__all__ = ["label_propagation", "leiden", "louvain"]
