"""What a run starts from, computed inside the run's slot, given its lease.

A start returns ``(input, config, saved)``: ``saved`` is the CheckpointSaved
event of a version the start itself wrote (a Fork's update), or None.

The RPCs that run a graph (Invoke, Resume, Fork) check their request before
they wait for the thread, and return a :data:`Start`; the run calls it once it
holds the thread (its slot, and its lease when the checkpointer has leases),
so whatever it reads or writes there (a Resume's second check, a Fork's update
version) cannot race another run on the thread. The lease itself is never put
in a config: the start and the run pass it to the engine as ``lease=``.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from engine import events as ev
from engine.checkpoint.base import Lease

__all__ = ["Start", "const"]

Start = Callable[[Lease | None], Awaitable[tuple[Any, dict[str, Any], "ev.CheckpointSaved | None"]]]


def const(inp: Any, config: dict[str, Any]) -> Start:
    """A start that needs nothing from the thread: this input and config."""

    async def start(lease: Lease | None) -> tuple[Any, dict[str, Any], ev.CheckpointSaved | None]:
        return inp, config, None

    return start
