from . import ego

__all__ = ["ego"]
