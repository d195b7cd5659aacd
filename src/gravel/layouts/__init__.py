"""Data layouts of a graph's edges and ids: pure data, their builders and their geometry.

``orders``: vertex orders (degree, hub sort, hub cluster, DBG, RCM) and the packing factor;
``blocked``: GraphCage's cache-blocked pull and push layouts; ``staged``: the shared-memory staged
pull layout. Layouts never launch operators; the operators choose and run them
(:mod:`gravel.operators.sweep_plan`).
"""

from . import blocked, orders, staged
from .blocked import BlockedPull, BlockedPush, block_width, blocked_pull, blocked_push
from .staged import StagedPull, shared_width, staged_pull

__all__ = [
    "blocked",
    "orders",
    "staged",
    "BlockedPull",
    "BlockedPush",
    "StagedPull",
    "block_width",
    "blocked_pull",
    "blocked_push",
    "shared_width",
    "staged_pull",
]
