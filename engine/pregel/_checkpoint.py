"""LangGraph's private ``langgraph.pregel._checkpoint`` names a DeltaChannel program may reach for.

``DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT``: the steps after which a delta channel
snapshots, written or not (read at each version, so patching it here takes
effect); :func:`delta_channels_to_snapshot`: which channels snapshot for given
counters. The engine's own bookkeeping is :mod:`engine.pregel._delta`. And
:func:`copy_checkpoint` / :func:`empty_checkpoint`, the public ones of
``engine.checkpoint.base``, which LangGraph's and LangChain's test savers
import from here (``MemorySaverAssertImmutable``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.channels.delta import MAX_STEPS_WITHOUT_SNAPSHOT
from engine.checkpoint.base import copy_checkpoint, empty_checkpoint

__all__ = ["DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT", "copy_checkpoint", "delta_channels_to_snapshot", "empty_checkpoint"]

DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT = MAX_STEPS_WITHOUT_SNAPSHOT


def delta_channels_to_snapshot(
    channels: Mapping[str, Any], counters: Mapping[str, tuple[int, int]], channel_versions: Mapping[str, Any]
) -> set[str]:
    """The delta channels that snapshot at a version with these ``(updates, steps)`` counters:
    those written on the branch (a version) whose updates reached their ``snapshot_frequency``
    or whose steps reached :data:`DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT`."""
    out = set()
    for name, ch in channels.items():
        if not getattr(ch, "delta", False) or not ch.is_available() or name not in channel_versions:
            continue
        updates, steps = counters.get(name, (0, 0))
        if updates >= ch.snapshot_frequency or steps >= DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT:
            out.add(name)
    return out
