"""How versions store :class:`~engine.channels.delta.DeltaChannel` keys, and how they are read back.

A run keeps a delta channel's live value in its state like any key's. What a
saver is given differs, as in LangGraph 1.2 (so a program reading stored
versions sees what it sees there):

* a version stores the channel's value only as a
  :class:`~engine.types.DeltaSnapshot`, when :class:`DeltaBook` says so (its
  updates since the last snapshot reached ``snapshot_frequency``, its steps
  :data:`~engine.pregel._checkpoint.DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT`, an ``Overwrite``
  replaced it, or the branch is new); otherwise not at all;
* its metadata's ``counters_since_delta_snapshot`` holds, for each delta
  channel not just snapshotted, ``[updates, steps]`` since its last snapshot;
* the writes it is folded from are the pending writes the versions keep
  anyway (a new input's, stored on the version it continues).

:func:`hydrate` reads a stored version back into the live form: the nearest
snapshot up its parent chain with the writes since folded in (the saver's
``aget_delta_channel_history``, LangGraph's walk).
"""

from __future__ import annotations

import inspect
import uuid
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from engine._internal._ids import next_version
from engine.channels.base import MISSING, BaseChannel
from engine.channels.binop import BinaryOperatorAggregate
from engine.channels.delta import DeltaChannel
from engine.checkpoint.base import BaseCheckpointSaver, Checkpoint, CheckpointTuple
from engine.graph._delta_messages import messages_delta_reducer, with_message_ids
from engine.pregel import _checkpoint
from engine.pregel._spec import NULL_TASK_ID
from engine.types import DeltaSnapshot

__all__ = ["COUNTERS", "DeltaBook", "hydrate", "input_task_id", "stamp_ids", "stored_values", "takes_task_path", "task_path_str"]

#: the metadata key of the counters (LangGraph's)
COUNTERS = "counters_since_delta_snapshot"

_INPUT_NS = uuid.UUID("6f1c3a52-29d1-4a8e-9b0e-5d3f0c2a7e11")


def stamp_ids(channels: Mapping[str, BaseChannel], writes: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """``writes`` (changed in place) with ids given to the messages written to delta channels.

    A delta channel's value is folded again from its stored writes on every
    read, so a message must have its id before it is stored, or each read
    would give it another (and nothing could name it to replace or remove it).
    As LangGraph: in a channel reduced by ``_messages_delta_reducer`` every
    message-like becomes a message with an id; in another only messages do.
    """
    for i, (c, v) in enumerate(writes):
        ch = channels.get(c)
        if ch is not None and ch.delta:
            new = with_message_ids(v, messages_reducer=ch.reducer is messages_delta_reducer)  # type: ignore[attr-defined]
            if new is not v:
                writes[i] = (c, new)
    return writes


_TAKES_PATH: dict[type, bool] = {}


def takes_task_path(saver: Any) -> bool:
    """Whether ``saver.aput_writes`` takes a ``task_path`` (savers written before it existed do not); known per class."""
    cls = type(saver)
    found = _TAKES_PATH.get(cls)
    if found is None:
        found = _TAKES_PATH[cls] = "task_path" in inspect.signature(saver.aput_writes).parameters
    return found


_SYNC_HISTORY: dict[type, bool] = {}


async def _history(saver: Any, config: Any, channels: list[str]) -> Mapping[str, Any]:
    """The saver's walk of ``channels``' history: through ``get_delta_channel_history`` when a
    subclass of an engine saver overrides that (LangGraph's in-memory saver calls it from the
    async one too, so such a subclass sees every walk), else ``aget_delta_channel_history``."""
    cls = type(saver)
    found = _SYNC_HISTORY.get(cls)
    if found is None:
        found = _SYNC_HISTORY[cls] = (
            isinstance(saver, BaseCheckpointSaver)
            and cls.get_delta_channel_history is not BaseCheckpointSaver.get_delta_channel_history
        )
    if found:
        return saver.get_delta_channel_history(config=config, channels=channels)  # type: ignore[no-any-return]
    return await saver.aget_delta_channel_history(config=config, channels=channels)  # type: ignore[no-any-return]


def task_path_str(path: Any) -> str:
    """A task's path as savers order writes by (LangGraph's form): ``~__pregel_pull, node`` sorts a
    step's node tasks by name before its Sends, by index, the order the step applies them in."""
    if isinstance(path, (tuple, list)):
        return "~" + ", ".join(task_path_str(p) for p in path)
    if isinstance(path, int) and not isinstance(path, bool):
        return f"{path:010d}"
    return str(path)


def input_task_id(checkpoint_id: str) -> str:
    """The task id a new input's delta writes are stored under, on the version the input continues."""
    try:
        return str(uuid.uuid5(uuid.UUID(checkpoint_id), "__input__"))
    except ValueError:
        return str(uuid.uuid5(_INPUT_NS, f"{checkpoint_id}:__input__"))


class DeltaBook:
    """One run's bookkeeping of its delta channels: the counters, and what must snapshot next."""

    __slots__ = ("names", "counters", "forced")

    def __init__(self, names: tuple[str, ...], metadata: Mapping[str, Any] | None = None) -> None:
        self.names = names
        stored = (metadata or {}).get(COUNTERS) or {}
        self.counters: dict[str, tuple[int, int]] = {k: (int(v[0]), int(v[1])) for k, v in stored.items() if k in names}
        #: channels the next stored version snapshots whatever their counters say
        self.forced: set[str] = set()

    def force_pending(self, pending_writes: Iterable[Any]) -> None:
        """A new branch starts at a version with these pending writes: the channels they
        touch snapshot, so reading the branch never folds the other branch's writes."""
        names = self.names
        self.forced.update(w[1] for w in pending_writes if w[1] in names)

    def force_unclaimed(self, loaded: Iterable[Any], claimed: set[str]) -> None:
        """A continued version's first step: its loaded task writes that no task of the step
        claims (``claimed``: the ids of those that do) belong to no child: their channels snapshot."""
        self.force_pending(w for w in loaded if w[0] != NULL_TASK_ID and w[0] not in claimed)

    def store(
        self,
        ck: Checkpoint,
        channels: Mapping[str, BaseChannel],
        dirty: dict[str, Any],
        *,
        fresh: bool = False,
        fork: bool = False,
        triggers: Mapping[str, Sequence[str]] | None = None,
        tentative: Collection[str] | None = None,
    ) -> tuple[set[str], dict[str, list[int]]]:
        """Decide what the next version (of ``ck``, about to be copied and stored) keeps of each
        delta channel: returns (the channels it snapshots, the counters for its metadata).

        ``dirty``: the channels whose version moved since the last stored version
        (what the saver stores anew). A channel that must snapshot without having
        moved gets a new version (as LangGraph's bump), which every node that had
        seen the old one is moved on to, so it triggers nothing. ``fresh``: an update of a new thread: every channel written snapshots.
        ``fork``: a copy of a stored version, whose versions are that one's: what snapshots gets a new version.
        A channel never written on the branch that must snapshot (a fork from before its first
        write, with the other branch's writes pending) gets a version too, and its snapshot (empty)
        stops the walk there; ``triggers`` (channel -> nodes) names who is moved on to it.

        ``tentative`` (durability "exit": only the run's last version is stored): the channels
        the step updated; ``ck`` is then a copy of the run's version, which only the last
        is: nothing snapshots for the book (its counters go on, what it must snapshot stays).
        """
        versions = ck["channel_versions"]
        snap: set[str] = set()
        counters: dict[str, tuple[int, int]] = {}
        raw: dict[str, tuple[int, int]] = {}
        for k in self.names:
            ch = channels.get(k)
            if ch is None:
                continue
            replaced = ch.replaced  # type: ignore[attr-defined]
            if tentative is None:
                ch.replaced = False  # type: ignore[attr-defined]
            u, s = self.counters.get(k, (0, 0))
            s += 1
            if k in (dirty if tentative is None else tentative):
                u += 1
            raw[k] = (u, s)
            if not ch.is_available() or (k not in versions and not (replaced or k in self.forced)):
                counters[k] = (u, s)  # never written on this branch: nothing to store
                continue
            freq = ch.snapshot_frequency  # type: ignore[attr-defined]
            if (
                replaced or k in self.forced or u >= freq or s >= _checkpoint.DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT
                or fresh
            ):  # fmt: skip
                snap.add(k)
                counters[k] = (0, 0)
            else:
                counters[k] = (u, s)
        bump = [k for k in snap if fork or k not in dirty]
        if bump:
            _bump(ck, channels, bump, dirty, triggers)
        if tentative is None:
            self.forced -= snap
            self.counters = counters
        else:
            self.counters = raw
        return snap, {k: [u, s] for k, (u, s) in counters.items() if (u, s) != (0, 0)}


def _bump(
    ck: Checkpoint, channels: Mapping[str, BaseChannel], names: list[str], dirty: dict[str, Any],
    triggers: Mapping[str, Sequence[str]] | None,
) -> None:  # fmt: skip
    """New versions for ``names``, written by nobody: whoever had seen the old one is moved on to it."""
    versions, seen_all, values = ck["channel_versions"], ck["versions_seen"], ck["channel_values"]
    new = next_version(max(versions.values(), default=0))
    for k in names:
        old = versions.get(k)
        if old is None:
            values[k] = channels[k].get()
            for node in (triggers or {}).get(k, ()):
                seen_all.setdefault(node, {})
        versions[k] = dirty[k] = new
        for node, seen in list(seen_all.items()):
            if seen.get(k) == old:
                seen_all[node] = {**seen, k: new}


def stored_values(values: Mapping[str, Any], names: tuple[str, ...], snap: set[str]) -> dict[str, Any]:
    """A version's ``values`` as a saver keeps them (a new dict): delta channels as snapshots, or not at all."""
    out = dict(values)
    for k in names:
        if k in snap and k in out:
            out[k] = DeltaSnapshot(out[k])
        else:
            out.pop(k, None)
    return out


async def hydrate(saver: Any, saved: CheckpointTuple, specs: Mapping[str, BaseChannel]) -> CheckpointTuple:
    """``saved`` with its delta channels' values as a run holds them (a copy; ``saved`` is left as read)."""
    values = saved.checkpoint["channel_values"]
    versions = saved.checkpoint["channel_versions"]
    replay: list[str] = []
    unwrap = False
    for k, spec in specs.items():
        v = values.get(k, MISSING)
        if isinstance(v, DeltaSnapshot):
            unwrap = True
        elif v is MISSING and k in versions and (spec.delta or isinstance(spec, BinaryOperatorAggregate)):
            # A plain reducer key with nothing stored was a delta channel when that version was written.
            replay.append(k)
    if not unwrap and not replay:
        return saved
    live = {k: (v.value if isinstance(v, DeltaSnapshot) else v) for k, v in values.items()}
    if replay:
        histories = await _history(saver, saved.config, replay)
        for k in replay:
            history = histories.get(k) or {"writes": []}
            seed = history.get("seed", MISSING)
            if isinstance(seed, DeltaSnapshot) and not specs[k].delta:  # a key that is a plain reducer key now
                seed = seed.value
            ch = specs[k].from_checkpoint(seed)
            if isinstance(ch, DeltaChannel):
                ch.replay_writes(history["writes"])
            else:
                for w in history["writes"]:  # one write at a time: the writes span many steps
                    ch.update([w[2]])
            if ch.is_available():
                live[k] = ch.get()
    return saved._replace(checkpoint={**saved.checkpoint, "channel_values": live})  # type: ignore[typeddict-item]
