"""What every saver does the same way: configs, row encoding, metadata filters.

Savers differ in where rows go, not in what a row holds. Keeping the encoding
here makes the in-memory saver fail exactly where the SQL savers would (an
unserializable value, metadata that is not JSON), so tests run on memory catch
what production would.

A checkpoint is stored in three parts: its *meta* (everything but the channel
values, serialized, with its small values: :mod:`engine.checkpoint._inline`),
one *blob* per other ``(channel, version)`` that changed (a full value or a
delta: :mod:`engine.checkpoint._delta`), the *metadata* as JSON text (SQL filters it).

Reading treats every stored row as hostile (see :mod:`engine.serde`): a row
that does not decode, or decodes to the wrong shape, fails with
:class:`~engine.errors.CorruptCheckpointError`, and :func:`reading` makes the
message name the thread and the checkpoint, so an operator can find the row.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from engine.checkpoint._chain import EMPTY
from engine.checkpoint._inline import inline_problem, merge_inline
from engine.checkpoint._json import compact_json, loop_json
from engine.checkpoint._meta_form import LONG, SHORT, unpack
from engine.checkpoint.base import RUN_KEY, Checkpoint, CheckpointMetadata, get_checkpoint_id
from engine.errors import CorruptCheckpointError, SerializationError
from engine.serde import Serializer, StateTooLargeError

__all__ = [
    "EMPTY", "MAX_METADATA_BYTES", "check_list_args", "check_row", "json_equal",
    "check_metadata", "dump_meta", "dump_metadata", "list_keys", "load_checkpoint", "load_meta", "load_metadata",
    "make_config", "metadata_matches", "parse_config", "parse_write_config", "reading", "is_unicode", "storable_text",
    "thread_text",
]  # fmt: skip


# Metadata is copied into every version a run saves and returned by every
# history read; a caller's run metadata (or a filter) larger than this is
# refused at put time instead of multiplying through storage.
MAX_METADATA_BYTES = 64 * 1024


def parse_config(config: Mapping[str, Any]) -> tuple[str, str, str | None]:
    """``(thread_id, checkpoint_ns, checkpoint_id or None)`` of a config.

    Raises:
        ValueError: the config names no thread.
    """
    conf = config.get("configurable") or {}
    thread_id = conf.get("thread_id")
    if type(thread_id) is not str:
        thread_id = thread_text(thread_id)
    return thread_id, conf.get("checkpoint_ns") or "", conf.get("checkpoint_id") or None  # "": none, as LangGraph's


def parse_write_config(config: Mapping[str, Any]) -> tuple[str, str, str]:
    """``(thread_id, checkpoint_ns, checkpoint_id)`` of a put_writes call, which must name a checkpoint."""
    conf = config.get("configurable") or {}  # (parse_config's reading, without its call: every write's)
    thread_id, checkpoint_id = conf.get("thread_id"), conf.get("checkpoint_id")
    if type(thread_id) is not str:
        thread_id = thread_text(thread_id)
    if not checkpoint_id:
        raise ValueError('put_writes needs config["configurable"]["checkpoint_id"]')
    return thread_id, conf.get("checkpoint_ns") or "", checkpoint_id


def thread_text(thread_id: Any) -> str:
    """A config's ``thread_id`` that is not a str, as text (None refused)."""
    if thread_id is None:
        raise ValueError('config["configurable"]["thread_id"] is required')
    return str(thread_id)


def list_keys(config: Mapping[str, Any] | None, before: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """The exact-match keys of a ``list`` call, as ``(kind, value)``.

    ``kind`` is "thread", "ns", "id" or "before" (checkpoint ids older than
    the value); only keys the call gives appear (no namespace: every one).
    SQL savers map each kind to their own parameterised clause.
    """
    conf = (config or {}).get("configurable") or {}
    pairs = (
        ("thread", conf.get("thread_id")),
        ("ns", conf.get("checkpoint_ns")),
        ("id", conf.get("checkpoint_id") or None),
        ("before", get_checkpoint_id(before) if before else None),
    )
    return [(kind, str(value)) for kind, value in pairs if value is not None]


def make_config(thread_id: str, checkpoint_ns: str, checkpoint_id: str) -> dict[str, Any]:
    """The config naming one stored checkpoint."""
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns, "checkpoint_id": checkpoint_id}}


# -- checkpoints -------------------------------------------------------------------
def dump_meta(
    serde: Serializer, checkpoint: Checkpoint, *, versions: Mapping[str, int] | None = None, inline: Mapping[str, Any] | None = None,
    compact: bool = False,
) -> tuple[str, bytes]:
    """Serialize a checkpoint without its values (they go to blobs, or ``inline``: see _inline.py), id and ts (columns).

    ``versions``: the ``channel_versions`` to store (the blob rows'); None leaves them out, for a
    saver that keeps them in a column of their own (and passes them back to :func:`load_meta`).
    ``compact``: under one-letter keys (_meta_form.py: the SQL savers' rows; the in-memory saver's cost no disk).
    """
    k = SHORT if compact else LONG  # the keys' names
    meta: dict[str, Any] = {"v": checkpoint["v"], k[0]: checkpoint["versions_seen"], k[1]: checkpoint.get("updated_channels")}
    if inline:
        meta[k[2]] = inline
    if versions is not None:
        meta[k[3]] = versions
    return serde.dumps_typed(meta, path_prefix="checkpoint")


def load_meta(
    serde: Serializer, checkpoint_id: str, typed: tuple[str, bytes], channel_versions: dict[str, int] | None = None
) -> dict[str, Any]:
    """Decode and check a checkpoint's stored meta (read first: it names the blob versions).

    ``channel_versions``: the versions, for a saver that stores them outside the meta.

    Raises:
        CorruptCheckpointError: the meta does not decode, or is not shaped like
            one (the message names ``checkpoint_id``).
    """
    try:
        meta = serde.loads_typed(typed)
    except CorruptCheckpointError as exc:
        raise CorruptCheckpointError(f"checkpoint {checkpoint_id!r}: {exc}") from exc
    if type(meta) is dict:  # under one-letter keys, or long ones (_meta_form.py)
        try:
            meta = unpack(meta)
        except ValueError as exc:
            raise CorruptCheckpointError(f"checkpoint {checkpoint_id!r}: stored meta is not a checkpoint ({exc})") from None
    if type(meta) is dict and channel_versions is not None:
        meta["channel_versions"] = channel_versions
    problem = _meta_problem(meta) or inline_problem(meta)
    if problem is not None:
        raise CorruptCheckpointError(f"checkpoint {checkpoint_id!r}: stored meta is not a checkpoint ({problem})")
    merge_inline(meta)
    return meta


def _meta_problem(meta: Any) -> str | None:
    """What is wrong with a decoded meta's shape (None: nothing): the engine indexes it blindly."""
    if type(meta) is not dict:
        return f"a {type(meta).__name__}, not a map"
    versions = meta.get("channel_versions")
    if type(versions) is not dict or not all(type(k) is str and type(v) is int for k, v in versions.items()):
        return "channel_versions is not a map of channel names to integers"
    seen = meta.get("versions_seen", {})  # (its versions as put: engine.checkpoint._versions.check_versions)
    if type(seen) is not dict or not all(
        type(k) is str and type(v) is dict and all(type(c) is str for c in v) for k, v in seen.items()
    ):
        return "versions_seen is not a map of node names to channel versions"
    updated = meta.get("updated_channels")
    if updated is not None and (type(updated) is not list or not all(type(c) is str for c in updated)):
        return "updated_channels is not a list of channel names"
    return None


@contextmanager
def reading(thread_id: str, checkpoint_id: str) -> Iterator[None]:
    """Make a decode failure inside the block name the thread and checkpoint it was reading.

    Raises:
        CorruptCheckpointError: re-raised with ``thread ... checkpoint ...:`` in
            front of its message (the original is its ``__cause__``).
    """
    try:
        yield
    except CorruptCheckpointError as exc:
        detail = str(exc).removeprefix(f"checkpoint {checkpoint_id!r}: ")
        raise CorruptCheckpointError(f"thread {thread_id!r} checkpoint {checkpoint_id!r}: {detail}") from exc


def check_row(checkpoint_id: Any, parent_id: Any, ts: Any) -> None:
    """Refuse a stored checkpoint row whose id, parent id or time is out of range (SQLite stores any type anywhere).

    Raises:
        CorruptCheckpointError: an id that is not text, or a time that is not ISO 8601.
    """
    if type(checkpoint_id) is not str or not checkpoint_id:
        raise CorruptCheckpointError(f"stored checkpoint id {checkpoint_id!r:.60} is not text")
    if parent_id is not None and type(parent_id) is not str:
        raise CorruptCheckpointError(f"stored parent checkpoint id {parent_id!r:.60} is not text")
    if type(ts) is not str:
        raise CorruptCheckpointError(f"stored checkpoint time {ts!r:.60} is not text")
    try:
        datetime.fromisoformat(ts)
    except ValueError:
        raise CorruptCheckpointError(f"stored checkpoint time {ts!r:.60} is not ISO 8601") from None


def load_checkpoint(checkpoint_id: str, ts: str, meta: Mapping[str, Any], values: Mapping[str, Any]) -> Checkpoint:
    """Rebuild a checkpoint from its decoded meta and its channel values.

    ``values`` maps channel -> value at this checkpoint's versions (see
    :meth:`engine.checkpoint._chain.ChainReader.values`); a channel without
    one has no value.
    """
    return Checkpoint(
        v=meta.get("v", 1),
        id=checkpoint_id,
        ts=ts,
        channel_values=dict(values),
        channel_versions=meta["channel_versions"],
        versions_seen=meta.get("versions_seen") or {},
        updated_channels=meta.get("updated_channels"),
    )


# -- metadata ------------------------------------------------------------------------
def dump_metadata(metadata: CheckpointMetadata | Mapping[str, Any]) -> str:
    """Metadata as JSON text: SQL savers filter it (SQLite's ``json_extract``, PostgreSQL's jsonb).

    Metadata is plain data (JSON: tuples come back as lists). Its strings
    (keys and values) must be valid Unicode without NUL characters: what
    PostgreSQL's jsonb can hold; a top-level value's NULs are dropped, as
    LangGraph's savers drop them. Every saver refuses the same metadata, so
    tests on the in-memory saver fail where production would.

    Raises:
        SerializationError: a value JSON cannot hold (or NaN / infinity), or
            a string with NUL or a lone surrogate.
        StateTooLargeError: the JSON is over :data:`MAX_METADATA_BYTES`.
    """
    text = loop_json(metadata)  # a loop's own: its text known, nothing in it to refuse
    if text is not None:
        return text
    try:
        text = compact_json(metadata, _refuse)  # json.dumps(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except SerializationError:
        raise
    except (TypeError, ValueError, RecursionError) as exc:
        raise SerializationError(f"checkpoint metadata: {exc}") from exc
    plain = text.isascii()
    size = len(text) if plain else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_METADATA_BYTES:
        raise StateTooLargeError(
            f"checkpoint metadata: {size} bytes of JSON, over the limit of {MAX_METADATA_BYTES} "
            "(metadata is copied into every version a run saves: keep it small)"
        )
    # JSON escapes NUL as \u0000 and, with ensure_ascii off, keeps a lone
    # surrogate as it is: text without either holds no string to refuse, so
    # the walk that finds which one it is runs only when there is one.
    bad = _bad_text(metadata) if "\\u0000" in text or not (plain or is_unicode(text)) else None
    if bad is not None and any(type(v) is str and "\x00" in v for v in metadata.values()):
        return dump_metadata({k: v.replace("\x00", "") if type(v) is str else v for k, v in metadata.items()})
    if bad is not None:
        raise SerializationError(
            f"checkpoint metadata: cannot store the string {bad!r} (NUL characters and lone surrogates "
            "are not text PostgreSQL can hold)"
        )
    return text


def is_unicode(s: str) -> bool:
    """Whether ``s`` is Unicode text: no lone surrogate (JSON's ``\\ud800`` escapes can make one)."""
    if s.isascii():
        return True
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def storable_text(s: str) -> bool:
    """Whether a string is text every saver can store: valid Unicode (no lone surrogate), no NUL."""
    return "\x00" not in s and is_unicode(s)


def _bad_text(obj: Any) -> str | None:
    """The first string in JSON-like data that :func:`storable_text` refuses, or None."""
    if type(obj) is str:
        return None if storable_text(obj) else obj
    if isinstance(obj, Mapping):
        for k, v in obj.items():
            if type(k) is str and not storable_text(k):
                return k
            found = _bad_text(v)
            if found is not None:
                return found
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            found = _bad_text(v)
            if found is not None:
                return found
    return None


def _refuse(obj: Any) -> Any:
    raise SerializationError(
        f"checkpoint metadata: cannot store a value of type {type(obj).__qualname__} "
        "(metadata is JSON: strings, numbers, booleans, None, lists and dicts)"
    )


def load_metadata(text: str, *, keep_run: bool = False) -> CheckpointMetadata:
    """Parse stored metadata JSON: plain data, never revived into objects; ``keep_run``: see :func:`check_metadata`.

    Raises:
        CorruptCheckpointError: not JSON, or not metadata (see :func:`check_metadata`).
    """
    try:
        md = json.loads(text)
    except (ValueError, TypeError, RecursionError) as exc:
        raise CorruptCheckpointError(f"stored metadata is not JSON: {exc}") from exc
    return check_metadata(md, keep_run=keep_run)


def check_metadata(md: Any, *, keep_run: bool = False) -> CheckpointMetadata:
    """``md``, decoded stored metadata, if it is shaped like metadata (for a saver whose driver decodes JSON).

    The run that wrote the version (:data:`~engine.checkpoint.base.RUN_KEY`) is taken out
    unless ``keep_run`` (a saver read by a host: ``keeps_run_ids``; a filter's match).

    Raises:
        CorruptCheckpointError: not an object, or a ``step`` / ``source`` of
            the wrong type (the engine reads both).
    """
    if type(md) is not dict:
        raise CorruptCheckpointError("stored metadata is not a JSON object")
    if "step" in md and type(md["step"]) is not int:
        raise CorruptCheckpointError(f"stored metadata has a step that is not an integer: {md['step']!r:.40}")
    if "source" in md and type(md["source"]) is not str:
        raise CorruptCheckpointError(f"stored metadata has a source that is not a string: {md['source']!r:.40}")
    if not keep_run:
        md.pop(RUN_KEY, None)
    return md  # type: ignore[return-value]


def metadata_matches(metadata: Mapping[str, Any], filter: Mapping[str, Any]) -> bool:
    """Exact equality of every filtered key, JSON types and all; a key missing matches only None, as in
    LangGraph's filters (``metadata.get(key) == value``).

    As PostgreSQL's jsonb compares: ``false`` is not ``0`` nor ``true`` ``1``
    (Python's ``==`` would say they are), while the numbers 1 and 1.0 are equal.
    """
    return all(
        metadata.get(key) is None if value is None else key in metadata and json_equal(metadata[key], value)
        for key, value in filter.items()
    )


def json_equal(a: Any, b: Any) -> bool:
    """Equality of two JSON values by JSON's types (booleans are not numbers)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def check_list_args(filter: Mapping[str, Any] | None, limit: int | None) -> dict[str, Any] | None:
    """Validate ``alist`` arguments the same way for every saver; return the filter as JSON data.

    The filter goes through JSON like the stored metadata, so ``(1, 2)``
    matches a stored ``[1, 2]``. Returns None when the filter can match
    nothing, because it names a string no saver stores (NUL, a lone
    surrogate): the saver lists nothing, without asking its storage.

    Raises:
        ValueError: a non-string filter key, a value JSON cannot hold, or a
            negative limit.
    """
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    if not filter:
        return {}
    for key in filter:
        if type(key) is not str:
            raise ValueError(f"metadata filter keys must be strings, got {key!r}")
    if _bad_text(filter) is not None:
        return None
    try:
        return json.loads(dump_metadata(filter))
    except SerializationError as exc:
        raise ValueError(f"metadata filter: {exc}") from exc
