"""The shapes a saver stores and returns: checkpoints, their metadata, tuples, special channels.

Kept apart from the contract (:mod:`engine.checkpoint.base`, which
re-exports every name here) so each file stays one job.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, NamedTuple, TypedDict

from typing_extensions import NotRequired

from engine._internal._ids import checkpoint_id as _new_checkpoint_id
from engine._internal._ids import now_iso as _now_iso
from engine.channels.base import MISSING
from engine.errors import EmptyChannelError

__all__ = [
    "ChannelVersions", "Checkpoint", "CheckpointMetadata", "CheckpointTuple", "DeltaChannelHistory", "ERROR",
    "EXCLUDED_METADATA_KEYS", "INTERRUPT", "LATEST_VERSION", "PendingWrite", "get_checkpoint_metadata",
    "get_serializable_checkpoint_metadata", "writes_sort_key",
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
#: the ``v`` of a checkpoint made by :func:`empty_checkpoint` or :func:`create_checkpoint` (LangGraph's name)
LATEST_VERSION = 2
#: configurable keys a version's metadata never takes from its put's config (LangGraph's set, its name)
EXCLUDED_METADATA_KEYS = {
    "thread_id", "checkpoint_id", "checkpoint_ns", "checkpoint_map", "langgraph_step", "langgraph_node",
    "langgraph_triggers", "langgraph_path", "langgraph_checkpoint_ns",
}  # fmt: skip


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
        v=LATEST_VERSION,  # langgraph.checkpoint.base.empty_checkpoint's
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
        v=LATEST_VERSION, id=id or _new_checkpoint_id(), ts=_now_iso(), channel_values=values, channel_versions=checkpoint["channel_versions"],
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


# -- LangGraph's helpers for savers written against its base (``langgraph.checkpoint.base``) ----------
class DeltaChannelHistory(TypedDict):
    """One channel's entry of ``get_delta_channel_history``: its writes along the ancestors, oldest
    first (each step's in :func:`writes_sort_key` order), and ``seed``, the value stored at the
    nearest ancestor that holds one (absent when none does)."""

    writes: list[PendingWrite]
    seed: NotRequired[Any]


def writes_sort_key(task_path: str, task_id: str = "", idx: int = 0) -> tuple[str, str, int]:
    """The order a step's writes are applied in (its tasks' paths, then ids, then indexes)."""
    return (task_path, task_id, idx)


def get_checkpoint_metadata(config: Mapping[str, Any], metadata: Mapping[str, Any]) -> CheckpointMetadata:
    """The metadata a saver written against LangGraph's base stores for a put: ``metadata``'s with
    NUL characters dropped from its text values, then the text (NULs dropped) and numbers of the
    config's ``metadata`` and ``configurable`` for keys it lacks, neither private (``__``) nor
    one of :data:`EXCLUDED_METADATA_KEYS` (LangGraph's behaviour, for such savers run here)."""
    out: dict[str, Any] = {k: v.replace("\x00", "") if isinstance(v, str) else v for k, v in metadata.items()}
    for given in (config.get("metadata"), config.get("configurable")):
        for key, value in (given or {}).items():
            if key in out or key in EXCLUDED_METADATA_KEYS or key.startswith("__"):
                continue
            if isinstance(value, str):
                out[key] = value.replace("\x00", "")
            elif isinstance(value, (int, bool, float)):
                out[key] = value
    return out  # type: ignore[return-value]


def get_serializable_checkpoint_metadata(config: Mapping[str, Any], metadata: Mapping[str, Any]) -> CheckpointMetadata:
    """:func:`get_checkpoint_metadata` without an old LangGraph's ``writes`` key."""
    out = get_checkpoint_metadata(config, metadata)
    out.pop("writes", None)  # type: ignore[typeddict-item]
    return out
