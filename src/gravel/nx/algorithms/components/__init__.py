from . import connected, weakly_connected

__all__ = ["connected", "weakly_connected"]
