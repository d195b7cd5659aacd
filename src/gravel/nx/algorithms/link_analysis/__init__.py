from . import hits_alg, pagerank_alg

__all__ = ["hits_alg", "pagerank_alg"]
