"""The per-thread state size limit (``max_state_bytes``) and the metadata limit, in process.

A saver built with ``max_state_bytes`` refuses, before storing anything, a
version whose channels take more bytes than that (their rows, delta chains
included: for a list, its full serialized size to within msgpack headers),
and a pending write larger than it. The limit holds across deltas (only the
appended items are serialized at each put), across channels (an unchanged
big channel still counts), and after a restart (a cold cache measures what
it does not know). The over-the-wire half (RESOURCE_EXHAUSTED) is in
``test_limits.py``.

Metadata over :data:`~engine.checkpoint._helpers.MAX_METADATA_BYTES` is
refused by every saver, PostgreSQL included (the check is in the shared
``dump_metadata``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine._internal._ids import checkpoint_id, now_iso
from engine.checkpoint import BaseCheckpointSaver, Checkpoint, InMemorySaver, SqliteSaver
from engine.checkpoint._helpers import MAX_METADATA_BYTES
from engine.errors import SerializationError
from engine.serde import Serializer, StateTooLargeError
from tests.checkpoint._pg import clean_schema, pg_admin, pg_dsn, pg_schema  # noqa: F401 - fixtures

LIMIT = 20_000
ITEM = "x" * 490  # ~500 bytes serialized
HEADER_SLACK = 16  # msgpack array headers a delta chain repeats


def cp(values: dict[str, Any], versions: dict[str, int]) -> Checkpoint:
    return Checkpoint(
        v=1, id=checkpoint_id(), ts=now_iso(), channel_values=values, channel_versions=versions, versions_seen={}, updated_channels=None
    )


def cfg(thread: str, parent: str | None = None) -> dict[str, Any]:
    conf: dict[str, Any] = {"thread_id": thread, "checkpoint_ns": ""}
    if parent:
        conf["checkpoint_id"] = parent
    return {"configurable": conf}


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def limited(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[..., BaseCheckpointSaver]]:
    """Savers with a state size limit (the same SQLite file / PostgreSQL schema for every one a test opens)."""
    made: list[BaseCheckpointSaver] = []
    schema = None
    if request.param == "postgres":
        schema = request.getfixturevalue("pg_schema")
        clean_schema(request.getfixturevalue("pg_admin"), schema)

    def build(**options: Any) -> BaseCheckpointSaver:
        options.setdefault("max_state_bytes", LIMIT)
        if request.param == "memory":
            saver: BaseCheckpointSaver = InMemorySaver(**options)
        elif request.param == "sqlite":
            saver = SqliteSaver(tmp_path / "limited.db", **options)
        else:
            from engine.checkpoint.postgres import PostgresSaver

            saver = PostgresSaver(request.getfixturevalue("pg_dsn"), schema=schema, max_size=2, **options)
        made.append(saver)
        return saver

    yield build
    for saver in made:
        saver.close()


def grow(saver: BaseCheckpointSaver, thread: str, *, other: Any = None) -> tuple[int, str | None]:
    """Append an item per version until the saver refuses; returns (items stored, head id)."""
    serde = Serializer()
    items: list[str] = []
    parent: str | None = None
    for version in range(1, 1000):
        value = [*items, f"{version:04d}{ITEM}"]
        values: dict[str, Any] = {"xs": value}
        new = {"xs": version}
        versions = {"xs": version}
        if other is not None:
            values["big"] = other
            versions["big"] = 1
            if version == 1:
                new["big"] = 1
        full = len(serde.dumps(value)) + (len(serde.dumps(other)) if other is not None else 0)
        try:
            stored = saver.put(cfg(thread, parent), cp(values, versions), {"source": "loop", "step": version}, new)
        except StateTooLargeError as exc:
            assert full > LIMIT - HEADER_SLACK, f"refused at {full} bytes, under the limit: {exc}"
            assert "max_state_bytes" in str(exc) and repr(thread) in str(exc)
            return len(items), parent
        assert full <= LIMIT + HEADER_SLACK, f"stored {full} bytes, over the limit"
        items = value
        parent = stored["configurable"]["checkpoint_id"]
    raise AssertionError("never refused")


def test_a_list_growing_by_deltas_is_refused_at_the_limit(limited: Callable[..., BaseCheckpointSaver]) -> None:
    saver = limited()
    count, head = grow(saver, "t")
    assert 30 < count < 45  # ~500 bytes each under 20,000: deltas on deltas (fan-out 32) were measured right
    found = saver.get_tuple(cfg("t"))
    assert found is not None and found.checkpoint["id"] == head and len(found.checkpoint["channel_values"]["xs"]) == count
    # Without deltas, the same.
    assert grow(limited(delta_fanout=None), "t-full")[0] == count


def test_an_unchanged_big_channel_counts_even_after_a_restart(limited: Callable[..., BaseCheckpointSaver], tmp_path: Path) -> None:
    big = "b" * (LIMIT // 2)
    count, _ = grow(limited(), "t", other=big)
    assert 10 < count < 25  # half the room was taken by the big channel
    reopened = limited()  # a cold cache: it measures the big channel it did not write
    if isinstance(reopened, InMemorySaver):
        return  # another in-memory saver holds nothing of the first
    head = reopened.get_tuple(cfg("t"))
    assert head is not None
    values = dict(head.checkpoint["channel_values"])
    values["xs"] = [*values["xs"], "one more" + ITEM]
    versions = {**head.checkpoint["channel_versions"], "xs": 999}
    cold = SqliteSaver(tmp_path / "limited.db", max_state_bytes=LIMIT)  # not even a read first
    try:
        for saver in (reopened, cold):
            with pytest.raises(StateTooLargeError):
                saver.put(cfg("t", head.checkpoint["id"]), cp(values, versions), {"source": "loop", "step": 99}, {"xs": 999})
    finally:
        cold.close()


def test_one_write_over_the_limit_is_refused(limited: Callable[..., BaseCheckpointSaver]) -> None:
    saver = limited()
    stored = saver.put(cfg("t"), cp({"n": 1}, {"n": 1}), {"source": "input", "step": -1}, {"n": 1})
    saver.put_writes(stored, [("log", "small")], task_id="task")
    with pytest.raises(StateTooLargeError, match="task 'task2' to channel 'log'"):
        saver.put_writes(stored, [("log", "w" * (LIMIT + 1))], task_id="task2")
    assert [w.channel for w in saver.get_tuple(stored).pending_writes] == ["log"]  # type: ignore[union-attr]


def test_the_limit_must_be_positive() -> None:
    for bad in (0, -1, 1.5, "10"):
        with pytest.raises(ValueError, match="max_state_bytes"):
            InMemorySaver(max_state_bytes=bad)  # type: ignore[arg-type]


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def any_saver(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[BaseCheckpointSaver]:
    if request.param == "memory":
        saver: BaseCheckpointSaver = InMemorySaver()
    elif request.param == "sqlite":
        saver = SqliteSaver(tmp_path / "any.db")
    else:
        from engine.checkpoint.postgres import PostgresSaver

        schema = request.getfixturevalue("pg_schema")
        clean_schema(request.getfixturevalue("pg_admin"), schema)
        saver = PostgresSaver(request.getfixturevalue("pg_dsn"), schema=schema, max_size=2)
    yield saver
    saver.close()


def test_metadata_over_the_limit_is_refused_by_every_saver(any_saver: BaseCheckpointSaver) -> None:
    fits = {"note": "m" * (MAX_METADATA_BYTES - 100)}
    stored = any_saver.put(cfg("t"), cp({"n": 1}, {"n": 1}), fits, {"n": 1})
    with pytest.raises(StateTooLargeError, match="metadata"):
        any_saver.put(cfg("t", stored["configurable"]["checkpoint_id"]), cp({"n": 2}, {"n": 2}), {"note": "m" * MAX_METADATA_BYTES}, {"n": 2})
    assert issubclass(StateTooLargeError, SerializationError)
    assert len(list(any_saver.list(cfg("t")))) == 1
