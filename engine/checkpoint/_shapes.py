"""The shapes a saver stores and returns: checkpoints, their metadata, tuples, special channels.

Kept apart from the contract (:mod:`engine.checkpoint.base`, which
re-exports every name here) so each file stays one job.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, NamedTuple, TypedDict

from engine._internal._ids import checkpoint_id as _new_checkpoint_id
from engine._internal._ids import now_iso as _now_iso
from engine.channels.base import MISSING
from engine.errors import EmptyChannelError

__all__ = [
    "ChannelVersions", "Checkpoint", "CheckpointMetadata", "CheckpointTuple", "ERROR", "INTERRUPT", "PendingWrite",
    "RESUME", "SCHEDULED", "ThreadInfo", "WRITES_IDX_MAP", "copy_checkpoint", "create_checkpoint", "empty_checkpoint",
]  # fmt: skip

ChannelVersions = dict[str, int]


# Special channels used in pending writes.
ERROR = "__error__"
INTERRUPT = "__interrupt__"
RESUME = "__resume__"
SCHEDULED = "__scheduled__"
# Special writes are stored at fixed negative indexes so that a task writing
# them twice replaces, rather than appends (e.g. an updated resume list).
WRITES_IDX_MAP = {ERROR: -1, SCHEDULED: -2, INTERRUPT: -3, RESUME: -4}


class Checkpoint(TypedDict):
    """One version of a thread's state."""

    v: int
    id: str
    ts: str
    channel_values: dict[str, Any]
    channel_versions: ChannelVersions
    versions_seen: dict[str, ChannelVersions]
    updated_channels: list[str] | None


class CheckpointMetadata(TypedDict, total=False):
    """What the loop records beside a checkpoint.

    ``source``: "input" | "loop" | "update" | "fork"; ``step``: -1 for the
    input version, then 0, 1, …; ``parents``: checkpoint ids of parent
    graphs by namespace (empty for a root graph); ``run_id``: the run that
    wrote it. Callers may add their own keys through the config's
    ``metadata``.
    """

    source: str
    step: int
    parents: dict[str, str]
    run_id: str


class PendingWrite(NamedTuple):
    task_id: str
    channel: str
    value: Any


class CheckpointTuple(NamedTuple):
    """A checkpoint as read back: the version, its metadata, and its writes.

    A named tuple, as LangGraph's: it unpacks, and ``_replace`` makes a changed
    copy. graphwire's savers always give ``pending_writes`` (a list, maybe
    empty); another saver may leave it None, as LangGraph's default, so readers
    take ``pending_writes or ()``.
    """

    config: dict[str, Any]
    checkpoint: Checkpoint
    metadata: CheckpointMetadata
    parent_config: dict[str, Any] | None = None
    pending_writes: list[PendingWrite] | None = None


@dataclass(frozen=True, slots=True)
class ThreadInfo:
    """A thread as :meth:`BaseCheckpointSaver.alist_threads` lists it.

    ``checkpoint_id`` and ``updated_at`` are those of the thread's newest
    checkpoint in the root namespace (its id and ``ts``).
    """

    thread_id: str
    checkpoint_id: str
    updated_at: str


def empty_checkpoint() -> Checkpoint:
    return Checkpoint(
        v=2,  # langgraph.checkpoint.base.empty_checkpoint's (its LATEST_VERSION)
        id=_new_checkpoint_id(),
        ts=_now_iso(),
        channel_values={},
        channel_versions={},
        versions_seen={},
        updated_channels=None,
    )


def create_checkpoint(checkpoint: Checkpoint, channels: Mapping[str, Any] | None, step: int, *, id: str | None = None) -> Checkpoint:
    """LangGraph's helper for a checkpoint built by hand (savers' tests, migration tools): ``checkpoint``'s
    versions with ``channels``' stored forms (``checkpoint()``; those with none left out), or its own values
    when ``channels`` is None; a new id (``id`` when given) and time. LangGraph's ids take ``step`` as their
    clock sequence; the engine's ids order by time alone, so it is only checked to be an int."""
    if not isinstance(step, int):
        raise TypeError(f"step must be an int, not {type(step).__name__}")
    if channels is None:
        values = checkpoint["channel_values"]
    else:
        values = {}
        for key, channel in channels.items():
            if key in checkpoint["channel_versions"]:
                try:
                    stored = channel.checkpoint()
                except EmptyChannelError:  # (LangGraph's channels raise it; the engine's answer MISSING)
                    continue
                if stored is not MISSING:
                    values[key] = stored
    return Checkpoint(
        v=2, id=id or _new_checkpoint_id(), ts=_now_iso(), channel_values=values, channel_versions=checkpoint["channel_versions"],
        versions_seen=checkpoint["versions_seen"], pending_sends=checkpoint.get("pending_sends", []), updated_channels=None,
    )  # type: ignore[typeddict-unknown-key]


def copy_checkpoint(c: Checkpoint) -> Checkpoint:
    return Checkpoint(
        v=c["v"],
        id=c["id"],
        ts=c["ts"],
        channel_values=dict(c["channel_values"]),
        channel_versions=dict(c["channel_versions"]),
        versions_seen={k: dict(v) for k, v in c["versions_seen"].items()},
        updated_channels=c.get("updated_channels"),
    )
