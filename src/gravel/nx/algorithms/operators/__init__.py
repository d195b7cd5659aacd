from . import unary

__all__ = ["unary"]
