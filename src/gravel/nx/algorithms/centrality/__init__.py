from . import betweenness, closeness, degree_alg, eigenvector, katz

__all__ = ["betweenness", "closeness", "degree_alg", "eigenvector", "katz"]
