"""Small builders the saver-specific tests share (the conformance suite has its own, richer ones)."""

from __future__ import annotations

from typing import Any

from engine._internal._ids import checkpoint_id, now_iso
from engine.checkpoint import Checkpoint


def cfg(thread: str = "t1", cid: str | None = None) -> dict[str, Any]:
    """A config naming a thread of the root namespace (and a checkpoint of it)."""
    conf = {"thread_id": thread, "checkpoint_ns": ""}
    return {"configurable": conf if cid is None else {**conf, "checkpoint_id": cid}}


def make_cp(values: dict[str, Any], version: int = 1) -> Checkpoint:
    """A checkpoint holding ``values``, every channel at ``version``."""
    return Checkpoint(v=1, id=checkpoint_id(), ts=now_iso(), channel_values=values,
                      channel_versions={k: version for k in values}, versions_seen={}, updated_channels=None)  # fmt: skip
