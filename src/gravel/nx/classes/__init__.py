from . import function

__all__ = ["function"]
