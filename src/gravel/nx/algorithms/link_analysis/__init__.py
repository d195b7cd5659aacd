from . import pagerank_alg

__all__ = ["pagerank_alg"]
