"""A run's final values kept once: in the version they are, not again in the run's record.

A run's RunFinished carries the state's values as JSON, and its record keeps
its RunFinished (for GetRun, ListRuns, a retried call and JoinRun once its
events expired), as its event log keeps it (for JoinRun): two more copies of
the whole state per run, beside the version that holds it already. On a chat
thread that is the whole conversation again at every turn: a 150-turn chat's
SQLite file held 0.5 MB of versions and 19.6 MB of run records and events
(the state's JSON, ~65 KB a run on average, twice), growing with the square
of the thread's length (the file is 1.2 MB now), and each run's end wrote it
twice more.

So when a run's final values are exactly the values of the version it ended
on (the version its RunFinished names, whose CheckpointSaved carried values
equal to the run's: a graph whose output is its state), the RunFinished is
stored with :func:`marker` in place of the values, and whoever sends a
stored RunFinished (JoinRun, GetRun, ListRuns, the HTTP face's join and
thread stream) reads them back from that version (:func:`values_at`) and
writes them as the live caller got them. A graph with an output schema (its
values are a part of the state), a run whose values were too large to send,
or one whose last version is not the one it ended on keep their values in the
record, as before. A version gone since (a prune keeping fewer versions
than runs: a run makes several; rows deleted by hand) has no values left to
give: the RunFinished is sent without them, as one too large to send is.

A run that keeps its events (for JoinRun) kept more copies still when its
caller streamed them: each step's values event and each task's input are
the whole state on a chat (four 100-turn threads streamed: 128 MB of
events). The same rule holds for them (:func:`stored_event`,
:func:`stored_values`): a task's input equal to the values of the version
its step started from, and a step's values event equal to the values of
the version that step saved (its CheckpointSaved, the event right after it:
the values event waits for it, within the log's batching of ~20 ms), are
stored as the same :func:`marker`, and a join reads them back (each
version once per join). The live caller gets every event as before.
"""

from __future__ import annotations

import logging

from engine import events as ev
from graphwire_proto.v1 import graphwire_pb2 as pb
from server._convert import sendable
from server._registry import GraphEntry
from server._requests import config

__all__ = ["AT_VERSION", "marker", "named", "stored_event", "stored_final", "stored_values", "values_at", "with_values"]

log = logging.getLogger("graphwire.records")

#: how a stored event's JSON field begins when it names a version instead (no JSON text is this: NUL is no JSON)
AT_VERSION = "\x00graphwire:values-at-version"
#: the event kinds whose JSON field may name a version: kind -> that field
_NAMING_FIELDS = {"run_finished": "values_json", "values": "values_json", "task_started": "input_json"}


def marker(checkpoint_id: str) -> str:
    """What a stored event holds in place of the values of version ``checkpoint_id``."""
    return f"{AT_VERSION}:{checkpoint_id}"


def named(text: str) -> str | None:
    """The version a stored event's JSON field names (:func:`marker`), or None: the field is JSON."""
    return text[len(AT_VERSION) + 1 :] if text.startswith(AT_VERSION + ":") else None


def stored_final(final: pb.RunEvent, item: ev.RunFinished, last_saved: ev.CheckpointSaved | None) -> pb.RunEvent:
    """``final`` as a record keeps it: with a :func:`marker` for values that are the version's it ends on."""
    f = final.run_finished
    if not f.values_json or last_saved is None or item.values is None or last_saved.checkpoint_id != f.checkpoint.checkpoint_id:
        return final
    return _naming(final, "run_finished", item.values, last_saved) or final


def stored_event(msg: pb.RunEvent, item: ev.Event, last_saved: ev.CheckpointSaved | None) -> tuple[bytes, str] | None:
    """The bytes an event log keeps for ``msg`` when they are not its own, and the version they name:
    a task's input that is the values of the version its step started from names that version
    (:func:`marker`); else None. The log stores them once that version is stored
    (:class:`server._eventlog.EventLog`): a joiner reads the version as soon as it reads the event."""
    if type(item) is not ev.TaskStarted or last_saved is None or not msg.task_started.input_json:
        return None
    found = _naming(msg, "task_started", item.input, last_saved)
    return None if found is None else (found.SerializeToString(), last_saved.checkpoint_id)


def stored_values(msg: pb.RunEvent, item: ev.ValuesEvent, after: object) -> tuple[bytes, str] | None:
    """As :func:`stored_event`, for a step's values event given the event that came after it: the step's
    version (its CheckpointSaved) when the values are that version's; else None."""
    if type(after) is not ev.CheckpointSaved or after.ns or not msg.values.values_json:
        return None
    found = _naming(msg, "values", item.values, after)
    return None if found is None else (found.SerializeToString(), after.checkpoint_id)


def _naming(msg: pb.RunEvent, kind: str, values: object, saved: ev.CheckpointSaved) -> pb.RunEvent | None:
    """A copy of ``msg`` whose ``kind`` event's JSON field names ``saved``, when ``values`` are exactly ``saved``'s; else None."""
    try:
        same = type(values) is dict and values == saved.values
    except Exception:  # noqa: BLE001 - a value whose comparison fails: kept whole
        same = False
    if not same:
        return None
    stored = pb.RunEvent()
    stored.CopyFrom(msg)
    setattr(getattr(stored, kind), _NAMING_FIELDS[kind], marker(saved.checkpoint_id))
    return stored


async def values_at(entry: GraphEntry | None, thread_id: str, checkpoint_id: str) -> str:
    """The JSON of the values of ``thread_id``'s version ``checkpoint_id``, as a RunFinished carries
    them; "" when the version is gone or its graph is no longer served."""
    if entry is None:
        log.warning("a stored event of a graph no longer served names version %s: sent without its values", checkpoint_id)
        return ""
    state = await entry.graph.aget_state(config(thread_id, checkpoint_id))
    if state is None or state.created_at is None:  # no such version: an empty snapshot (as LangGraph's)
        log.warning("a stored event of a run on thread %r names version %s, gone since (pruned or deleted): sent without its values",
                    thread_id, checkpoint_id)  # fmt: skip
        return ""
    return sendable(state.values, "final values")


async def with_values(
    msg: pb.RunEvent, entry: GraphEntry | None, thread_id: str, limit: int, read: dict[str, str] | None = None
) -> pb.RunEvent:
    """``msg`` as it is sent (changed in place): a stored RunFinished's or values event's values, or a task's
    input, read back from the version it names, left out past ``limit`` bytes as the live call leaves them out.
    ``read``: versions' values already read for this caller (checkpoint id -> JSON), added to."""
    kind = msg.WhichOneof("event")
    name = _NAMING_FIELDS.get(kind or "")
    if name is None:
        return msg
    field = getattr(msg, kind or "")
    version = named(getattr(field, name))
    if version is None:
        return msg
    read = {} if read is None else read
    if version not in read:
        read[version] = await values_at(entry, thread_id, version)
    setattr(field, name, read[version])
    if msg.ByteSize() > limit:
        field.ClearField(name)
    return msg
