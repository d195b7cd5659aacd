from . import connected, strongly_connected, weakly_connected

__all__ = ["connected", "strongly_connected", "weakly_connected"]
