"""Hostile storage: rows crafted in the database to run code when read.

Each case writes bytes into one table of a real server's database (SQLite
file, PostgreSQL schema), the way someone with write access to the database
but not to the server would: a msgpack ext naming ``os:system`` or
``builtins:eval``, a pickle under a ``pickle`` tag or a ``msgpack`` one, a
JSON constructor payload (LangGraph's ``{"lc": 1, "type": "constructor"}``), an
unknown tag or ext code. Every payload would create a sentinel file if
anything ran it (the serializer's unit tests prove the pickle one is live:
``tests/engine/test_serde.py::test_the_sentinel_payloads_are_live``).

Then every RPC that reads the thread (GetState, ListHistory, Resume, Invoke
continuing it) must fail with DATA_LOSS naming the checkpoint, the sentinel
must stay absent, another thread must read as before, and the server must
stay healthy. Metadata is JSON data and never revived: a constructor payload
there comes back as the plain object it is.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from graphwire import DataLoss, FinishReason, GraphwireError
from grpc_health.v1 import health_pb2

from tests.engine.test_serde import OpenOnUnpickle, ext, registered
from tests.hardening.conftest import Hardened

SERVING = health_pb2.HealthCheckResponse.SERVING
ASK = {"messages": [{"role": "user", "content": "remind me to call mom at 5pm"}]}


def constructor(path: str) -> bytes:
    """LangGraph's serialized-constructor JSON, naming a callable that would create ``path``."""
    return json.dumps(
        {"lc": 1, "type": "constructor", "id": ["os", "system"], "kwargs": {"command": f"touch {path}"}}
    ).encode()


# (case id, where, (sentinel path -> (type tag, bytes)))
Payload = Callable[[str], tuple[str, bytes]]
PAYLOADS: dict[str, Payload] = {
    "ext os:system": lambda p: ("msgpack", registered("os:system", f"touch {p}")),
    "ext os.system": lambda p: ("msgpack", registered("os.system", f"touch {p}")),
    "ext builtins:eval": lambda p: ("msgpack", registered("builtins:eval", f"open({p!r}, 'w')")),
    "ext inside a list": lambda p: ("msgpack", b"\x92\xa2ok" + registered("subprocess:run", ["touch", p])),
    "unknown ext code": lambda p: ("msgpack", ext(99, p.encode())),
    "pickle tag": lambda p: ("pickle", pickle.dumps(OpenOnUnpickle(p))),
    "pickle under msgpack": lambda p: ("msgpack", pickle.dumps(OpenOnUnpickle(p))),
    "json constructor": lambda p: ("json", constructor(p)),
    "unknown tag": lambda p: ("msgpack+evil", msgpack.packb(["os:system", p])),
    # LangChain's message classes are allowlisted by name; hostile fields must not get far.
    "langchain message, dunder field": lambda p: (
        "msgpack", registered("langchain:AIMessage", {"content": "x", "__class__": "os:system", "__init__": p})
    ),
    "langchain message, constructor as a field": lambda p: (
        "msgpack", registered("langchain:ToolMessage", {"content": "x", "tool_call_id": json.loads(constructor(p))})
    ),
    "langchain message, wrong type": lambda p: (
        "msgpack", registered("langchain:AIMessage", {"content": "x", "type": "constructor", "id": ["os", "system"]})
    ),
    "langchain module path": lambda p: ("msgpack", registered("langchain_core.messages.ai:AIMessage", {"content": p})),
    "langchain loader": lambda p: ("msgpack", registered("langchain_core.load:loads", constructor(p).decode())),
    "langchain base class": lambda p: ("msgpack", registered("langchain:BaseMessage", {"content": p, "type": "x"})),
}
CASES = [(f"{where}: {name}", where, name) for where in ("blob",) for name in PAYLOADS] + [
    ("meta: pickle tag", "meta", "pickle tag"),
    ("meta: ext os:system", "meta", "ext os:system"),
    ("meta: json constructor", "meta", "json constructor"),
    ("write: pickle tag", "write", "pickle tag"),
    ("write: ext builtins:eval", "write", "ext builtins:eval"),
]


@pytest.fixture
def sentinel(tmp_path: Path) -> Any:
    path = tmp_path / "sentinel"
    yield path
    assert not path.exists(), "reading stored bytes ran code"


def asking_thread(h: Hardened, thread: str) -> str:
    """A reminders thread waiting at its question; returns its newest checkpoint id."""
    with h.client() as client:
        assert client.invoke("reminders", thread, ASK, timeout=30).interrupted
    return h.storage.head(f"reminders:{thread}")


def corrupt(h: Hardened, thread: str, where: str, tag: str, data: bytes) -> str:
    """Write a payload into the thread's newest version; returns that version's id."""
    key = f"reminders:{thread}"
    cid = h.storage.head(key)
    if where == "blob":
        h.storage.set_blob(key, "messages", h.storage.versions(key, cid)["messages"], tag, data)
    elif where == "meta":
        h.storage.set_meta(key, cid, tag, data)
    else:
        assert h.storage.set_writes(key, cid, tag, data) >= 1  # the interrupt is a pending write
    return cid


def every_read_fails(h: Hardened, thread: str, cid: str) -> list[str]:
    """Each RPC that reads the thread fails with DATA_LOSS; returns the messages."""
    messages = []
    with h.client() as client:
        calls: list[Callable[[], Any]] = [
            lambda: client.get_state("reminders", thread, timeout=10),
            lambda: client.get_state("reminders", thread, cid, timeout=10),
            lambda: client.history("reminders", thread, timeout=10),
            lambda: client.resume("reminders", thread, "yes", timeout=10),
            lambda: client.invoke("reminders", thread, {"messages": [{"role": "user", "content": "hi"}]}, timeout=10),
            lambda: client.invoke("reminders", thread, None, checkpoint_id=cid, timeout=10),
        ]
        for call in calls:
            with pytest.raises(DataLoss) as lost:
                call()
            messages.append(lost.value.message)
    return messages


def bystander(h: Hardened, thread: str) -> tuple[Any, int]:
    with h.client() as client:
        state = client.get_state("reminders", thread, timeout=10)
        return state.values, len(client.history("reminders", thread, timeout=10))


@pytest.mark.parametrize(("where", "name"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_crafted_rows_run_nothing_and_fail_with_data_loss(
    hardened: Hardened, tid: str, sentinel: Path, where: str, name: str
) -> None:
    other = f"{tid}-bystander"
    asking_thread(hardened, other)
    before = bystander(hardened, other)
    asking_thread(hardened, tid)
    tag, data = PAYLOADS[name](str(sentinel))
    cid = corrupt(hardened, tid, where, tag, data)

    messages = every_read_fails(hardened, tid, cid)

    assert not sentinel.exists()
    for message in messages:
        assert cid in message and f"reminders:{tid}" in message, message
    assert bystander(hardened, other) == before
    assert hardened.server.health() == SERVING


def test_a_value_row_gone_is_data_loss_not_a_thread_without_it(hardened: Hardened, tid: str) -> None:
    # Reading a version whose messages row is missing must not answer with the
    # other channels only, as if the conversation were empty.
    cid = asking_thread(hardened, tid)
    key = f"reminders:{tid}"
    hardened.storage.drop_blob(key, "messages", hardened.storage.versions(key, cid)["messages"])
    for message in every_read_fails(hardened, tid, cid):
        assert cid in message and "'messages'" in message and "no row holds its value" in message, message
    assert hardened.server.health() == SERVING


def test_metadata_is_data_never_revived(hardened: Hardened, tid: str, sentinel: Path) -> None:
    cid = asking_thread(hardened, tid)
    evil = json.loads(constructor(str(sentinel)))
    hardened.storage.set_metadata(f"reminders:{tid}", cid, json.dumps({**evil, "source": "loop", "step": 1}))
    with hardened.client() as client:
        state = client.get_state("reminders", tid, timeout=10)
        assert state.metadata["type"] == "constructor" and state.metadata["id"] == ["os", "system"]
        assert client.history("reminders", tid, timeout=10)[0].metadata.get("lc") == 1
        # The thread goes on: the crafted metadata was inert data.
        assert client.resume("reminders", tid, "yes", timeout=10).reason is FinishReason.END
    assert not sentinel.exists()


@pytest.mark.parametrize(
    "text",
    ['{"source": "loop", "step": ', '[1, 2]', '{"source": "loop", "step": "1; DROP TABLE checkpoints"}'],
    ids=["not JSON", "not an object", "step not an integer"],
)
def test_malformed_metadata_is_data_loss(hardened: Hardened, tid: str, text: str) -> None:
    if hardened.kind == "postgres" and not text.endswith(("]", "}")):
        pytest.skip("PostgreSQL's jsonb column refuses text that is not JSON")
    cid = asking_thread(hardened, tid)
    hardened.storage.set_metadata(f"reminders:{tid}", cid, text)
    for message in every_read_fails(hardened, tid, cid):
        assert cid in message and "metadata" in message, message


# -- every column of every table: out of range, NULL, the wrong type ------------------------
# (table, column, what, SQL on SQLite, SQL on PostgreSQL (None: the column type cannot hold it,
# or the saver has no such column), expect). SQLite's TEXT columns turn a number into text, and
# any column holds bytes; its INTEGER columns hold text that is not a number.
# expect: "lost" - every read is DATA_LOSS naming the thread; "refused" - the schema refuses the
# value (a NULL in a NOT NULL column); "moved" - the row now belongs elsewhere (another thread,
# namespace or version), the database is consistent again, and reads answer what it holds;
# "lost/fk" - "lost", where PostgreSQL's foreign key (a delta's base) does not refuse the move first.
# Key columns (thread, namespace, checkpoint id, channel, version) moved make "moved" rows.
SQLITE_ONLY = None
COLUMN_CASES: list[tuple[str, str, str, str, str | None, str]] = [
    # checkpoints
    ("checkpoints", "thread_id", "another thread", "thread_id || '-moved'", "thread_id || '-moved'", "moved"),
    ("checkpoints", "checkpoint_ns", "another namespace", "'elsewhere'", "'elsewhere'", "moved"),
    ("checkpoints", "checkpoint_id", "bytes", "X'00ff'", SQLITE_ONLY, "lost"),
    ("checkpoints", "checkpoint_id", "empty", "''", "''", "moved"),
    ("checkpoints", "checkpoint_id", "another id", "'7'", "'7'", "moved"),
    ("checkpoints", "parent_checkpoint_id", "NULL", "NULL", "NULL", "moved"),
    ("checkpoints", "parent_checkpoint_id", "another checkpoint", "'nope'", "'nope'", "moved"),
    ("checkpoints", "parent_checkpoint_id", "bytes", "X'00ff'", SQLITE_ONLY, "lost"),
    ("checkpoints", "ts", "not a time", "'yesterday'", "'yesterday'", "lost"),
    ("checkpoints", "ts", "a number", "7", "'7'", "lost"),
    ("checkpoints", "ts", "bytes", "X'00ff'", SQLITE_ONLY, "lost"),
    ("checkpoints", "type", "another tag", "'7'", "'7'", "lost"),
    ("checkpoints", "type", "bytes", "X'00ff'", SQLITE_ONLY, "lost"),
    ("checkpoints", "checkpoint", "text", "'hello'", SQLITE_ONLY, "lost"),
    ("checkpoints", "checkpoint", "an integer", "7", SQLITE_ONLY, "lost"),
    ("checkpoints", "checkpoint", "empty", "X''", "''::bytea", "lost"),
    ("checkpoints", "metadata", "an integer", "7", "'7'::jsonb", "lost"),
    ("checkpoints", "metadata", "bytes", "X'00ff'", SQLITE_ONLY, "lost"),
    ("checkpoints", "metadata", "a string", "'\"loop\"'", "'\"loop\"'::jsonb", "lost"),
    ("checkpoints", "versions", "an array", SQLITE_ONLY, "'[1, 2]'::json", "lost"),
    ("checkpoints", "versions", "a version as text", SQLITE_ONLY, "'{\"messages\": \"abc\"}'::json", "lost"),
    ("checkpoints", "versions", "a fractional version", SQLITE_ONLY, "'{\"messages\": 1.5}'::json", "lost"),
    ("checkpoints", "versions", "a version past bigint", SQLITE_ONLY, "'{\"messages\": 1e30}'::json", "lost"),
    ("checkpoints", "versions", "a channel with no row", SQLITE_ONLY, "'{\"messages\": 1, \"nope\": 2}'::json", "lost"),
    # blobs (the newest checkpoint's messages value)
    ("blobs", "thread_id", "another thread", "thread_id || '-moved'", "thread_id || '-moved'", "lost/fk"),
    ("blobs", "checkpoint_ns", "another namespace", "'elsewhere'", "'elsewhere'", "lost/fk"),
    ("blobs", "channel", "another channel", "'other'", "'other'", "lost/fk"),
    ("blobs", "version", "negative", "-1", "-1", "lost"),
    ("blobs", "version", "text", "'abc'", SQLITE_ONLY, "lost"),
    ("blobs", "version", "fractional", "version + 0.5", SQLITE_ONLY, "lost"),
    ("blobs", "type", "another tag", "'7'", "'7'", "lost"),
    ("blobs", "type", "bytes", "X'00ff'", SQLITE_ONLY, "lost"),
    ("blobs", "data", "text", "'hello'", SQLITE_ONLY, "lost"),
    ("blobs", "data", "an integer", "7", SQLITE_ONLY, "lost"),
    ("blobs", "data", "empty", "X''", "''::bytea", "lost"),
    ("blobs", "base_version", "NULL (a delta made full)", "NULL", "NULL", "lost"),
    ("blobs", "base_version", "itself", "version", "version", "lost"),
    ("blobs", "base_version", "newer than itself", "version + 1", SQLITE_ONLY, "lost"),
    ("blobs", "base_version", "negative", "-1", SQLITE_ONLY, "lost"),
    ("blobs", "base_version", "text", "'abc'", SQLITE_ONLY, "lost"),
    ("blobs", "base_version", "fractional", "base_version + 0.5", SQLITE_ONLY, "lost"),
    ("blobs", "seq", "-1", "-1", "-1", "lost"),
    ("blobs", "seq", "0 on a delta", "0", "0", "lost"),
    ("blobs", "seq", "text", "'abc'", SQLITE_ONLY, "lost"),
    ("blobs", "seq", "fractional", "seq + 0.5", SQLITE_ONLY, "lost"),
    ("blobs", "seq", "past the largest", "2147483648", SQLITE_ONLY, "lost"),
    # refs (a row extending another namespace's list): on a delta, a ref is a second base
    ("blobs", "ref_version", "a ref on a delta", "version", "version", "lost"),
    ("blobs", "ref_key", "a dict ref's key on a delta", "'messages'", "'messages'", "lost"),
    ("blobs", "ref_ns", "bytes", "X'00ff'", SQLITE_ONLY, "lost"),
    ("blobs", "ref_version", "text", "'abc'", SQLITE_ONLY, "lost"),
    # writes (the newest checkpoint's pending writes: its interrupt)
    ("writes", "thread_id", "another thread", "thread_id || '-moved'", "thread_id || '-moved'", "moved"),
    ("writes", "checkpoint_id", "another checkpoint", "'nope'", "'nope'", "moved"),
    ("writes", "task_id", "another task", "'nope'", "'nope'", "moved"),
    ("writes", "task_id", "bytes", "X'00ff'", SQLITE_ONLY, "lost"),
    ("writes", "idx", "text", "'abc'", SQLITE_ONLY, "moved"),
    ("writes", "channel", "a channel the graph lacks", "'nope'", "'nope'", "moved"),
    ("writes", "channel", "bytes", "X'00ff'", SQLITE_ONLY, "lost"),
    ("writes", "type", "another tag", "'7'", "'7'", "lost"),
    ("writes", "data", "text", "'hello'", SQLITE_ONLY, "lost"),
    ("writes", "data", "empty", "X''", "''::bytea", "lost"),
    ("writes", "task_path", "bytes", "X'00ff'", SQLITE_ONLY, "moved"),
    ("writes", "ref_version", "a ref naming no namespace", "12345", "12345", "lost"),
    ("writes", "ref_ns", "a ref naming no version", "''", "''", "lost"),
    ("writes", "ref_ns", "bytes", "X'00ff'", SQLITE_ONLY, "lost"),
]
NOT_NULL = {
    "checkpoints": ("thread_id", "checkpoint_ns", "checkpoint_id", "ts", "type", "checkpoint", "metadata", "versions"),
    "blobs": ("thread_id", "checkpoint_ns", "channel", "version", "type", "data", "seq"),
    "writes": ("thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx", "channel", "type", "data", "task_path"),
}
COLUMN_CASES += [
    (table, column, "NULL", SQLITE_ONLY if column == "versions" else "NULL", "NULL", "refused")
    for table, cols in NOT_NULL.items()
    for column in cols
]
# What a read may answer about a database made consistent again by a moved row: its state, or
# that it has no such checkpoint / no pending interrupt. Never the caller's fault, never a stall.
MOVED_OK = {"NOT_FOUND", "FAILED_PRECONDITION", "DATA_LOSS"}


def each_read(h: Hardened, thread: str, cid: str) -> list[tuple[str, str]]:
    """Every RPC that reads the thread, each bounded by its deadline: ``(status name, message)`` per call."""
    out = []
    with h.client() as client:
        for call in (
            lambda: client.get_state("reminders", thread, timeout=10),
            lambda: client.get_state("reminders", thread, cid, timeout=10),
            lambda: client.history("reminders", thread, timeout=10),
            lambda: client.resume("reminders", thread, "yes", timeout=10),
            lambda: client.invoke("reminders", thread, {"messages": [{"role": "user", "content": "hi"}]}, timeout=10),
            lambda: client.invoke("reminders", thread, None, checkpoint_id=cid, timeout=10),
        ):
            try:
                call()
                out.append(("OK", ""))
            except GraphwireError as exc:
                out.append((exc.code.name, exc.message))
    return out


@pytest.fixture(scope="module")
def bystanders() -> dict[str, tuple[str, Any]]:
    return {}


@pytest.mark.parametrize(
    ("table", "column", "sqlite_sql", "pg_sql", "expect"),
    [c[:2] + c[3:] for c in COLUMN_CASES],
    ids=[f"{c[0]}.{c[1]}: {c[2]}" for c in COLUMN_CASES],
)
def test_a_column_out_of_range_is_data_loss_for_its_thread_alone(
    hardened: Hardened,
    tid: str,
    bystanders: dict[str, tuple[str, Any]],
    table: str,
    column: str,
    sqlite_sql: str | None,
    pg_sql: str | None,
    expect: str,
) -> None:
    value_sql = sqlite_sql if hardened.kind == "sqlite" else pg_sql
    if value_sql is None:
        pytest.skip(f"{hardened.kind}'s {table}.{column} cannot hold such a value (its column type refuses it)")
    if hardened.kind not in bystanders:
        other = f"{tid}-bystander"
        asking_thread(hardened, other)
        bystanders[hardened.kind] = (other, bystander(hardened, other))
    other, before = bystanders[hardened.kind]
    key = f"reminders:{tid}"
    cid = asking_thread(hardened, tid)
    _, base, seq = hardened.storage.blob_row(key)
    assert base is not None and seq > 0, "the newest messages row is a delta (the base/seq cases need one)"

    if expect == "refused" or (expect == "lost/fk" and hardened.kind == "postgres"):
        with pytest.raises(Exception, match="(?i)not.null|null value|foreign key"):
            hardened.storage.set_column(key, table, column, value_sql)
        return
    hardened.storage.set_column(key, table, column, value_sql)
    answers = each_read(hardened, tid, cid)

    if expect.startswith("lost"):
        for i, (code, message) in enumerate(answers):
            if column == "checkpoint_id" and i in (1, 5) and code == "NOT_FOUND":
                continue  # the calls naming the old id: it is gone (the newest version now has the bad one)
            assert code == "DATA_LOSS" and key in message, answers
    else:
        assert all(code == "OK" or code in MOVED_OK for code, _ in answers), answers
    assert bystander(hardened, other) == before
    assert hardened.server.health() == SERVING
