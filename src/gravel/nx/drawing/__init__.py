from . import layout

__all__ = ["layout"]
