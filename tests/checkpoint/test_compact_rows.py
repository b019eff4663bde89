"""How the savers keep a chat's rows few and small: packed writes, compressed K-step rows, inline values.

Each test reads back through the saver's public reads (what a user sees) and
looks at the stored rows only to check the shape the storage figure depends on.
"""

from __future__ import annotations

import operator
import sqlite3
from pathlib import Path
from typing import Annotated, Any, TypedDict

import psycopg
import pytest

from engine import START, StateGraph
from engine.checkpoint._chain import ZLIB
from engine.checkpoint._writes import PACK
from engine.checkpoint.base import BaseCheckpointSaver
from engine.checkpoint.memory import InMemorySaver
from engine.checkpoint.postgres import PostgresSaver
from engine.checkpoint.sqlite import SqliteSaver
from engine.errors import CorruptCheckpointError
from engine.types import Command, interrupt
from tests.checkpoint.test_conformance import async_test, cfg, put


def _rows(saver: BaseCheckpointSaver, table: str, columns: str) -> list[tuple[Any, ...]]:
    """A table's rows of thread t1 (SQL savers)."""
    if isinstance(saver, SqliteSaver):
        return saver._conn.execute(f"SELECT {columns} FROM {table} WHERE thread_id = 't1'").fetchall()  # noqa: S608
    assert isinstance(saver, PostgresSaver)
    with psycopg.connect(saver._dsn) as conn:
        query = f"SELECT {columns} FROM {saver._q.tables[table]} WHERE thread_id = 't1'"  # noqa: S608
        return conn.execute(query).fetchall()  # type: ignore[arg-type]


def _spoil(saver: BaseCheckpointSaver, table: str, where: str) -> None:
    """Overwrite the data of the rows of ``table`` that ``where`` selects with bytes that decode to nothing."""
    if isinstance(saver, SqliteSaver):
        saver._conn.execute(f"UPDATE {table} SET data = x'c1c1c1' WHERE {where}")  # noqa: S608
        saver._conn.commit()
        return
    assert isinstance(saver, PostgresSaver)
    with psycopg.connect(saver._dsn, autocommit=True) as conn:
        conn.execute(f"UPDATE {saver._q.tables[table]} SET data = '\\xc1c1c1'::bytea WHERE {where}")  # type: ignore[arg-type] # noqa: S608


@async_test
async def test_a_tasks_regular_writes_are_one_row_and_read_back_in_order(saver: BaseCheckpointSaver) -> None:
    c1, _ = await put(saver, cfg(), {"a": [1]}, {"a": 1})
    writes = [("messages", [{"id": "m1", "text": "hi"}]), ("branch:to:model", None), ("n", 7), ("flag", True)]
    await saver.aput_writes(c1, writes, task_id="t", task_path="~p, a")
    await saver.aput_writes(c1, [("one", 1)], task_id="u", task_path="~p, b")
    await saver.aput_writes(c1, writes[:2], task_id="t", task_path="~p, a")  # a retried task: the first copy stays
    got = await saver.aget_tuple(c1)
    assert got is not None
    assert [(w[0], w[1], w[2]) for w in got.pending_writes] == [("t", ch, v) for ch, v in writes] + [("u", "one", 1)]
    assert [type(w[2]) for w in got.pending_writes[:4]] == [list, type(None), int, bool]
    listed = [t async for t in saver.alist(cfg())]
    assert listed[0].pending_writes == got.pending_writes
    if not isinstance(saver, InMemorySaver):
        stored = sorted(_rows(saver, "writes", "task_id, idx, type"))
        assert [(t, i) for t, i, _ in stored] == [("t", 0), ("u", 0)] and stored[0][2] == PACK


@async_test
async def test_a_task_run_again_that_writes_more_keeps_its_first_writes_and_adds_the_rest(saver: BaseCheckpointSaver) -> None:
    # As LangGraph's savers: a regular write's (task, index) keeps its first copy, and an index not
    # stored yet is stored. A task run again at a version the thread moved past (a resume
    # addressed to it) may write more than its first run: the extra writes must not be lost.
    c1, _ = await put(saver, cfg(), {"a": [1]}, {"a": 1})
    await saver.aput_writes(c1, [("log", "first"), ("branch:to:b", None)], task_id="t")
    await saver.aput_writes(c1, [("log", "again"), ("branch:to:b", None), ("extra", ["new"])], task_id="t")
    await saver.aput_writes(c1, [("log", "third"), ("branch:to:b", 0), ("extra", ["no"]), ("more", 4)], task_id="t")
    await saver.aput_writes(c1, [("log", "once")], task_id="u")
    await saver.aput_writes(c1, [("log", "twice"), ("extra", 2)], task_id="u")  # one row first, a pack after
    got = await saver.aget_tuple(c1)
    assert got is not None
    assert [(w[0], w[1], w[2]) for w in got.pending_writes] == [
        ("t", "log", "first"), ("t", "branch:to:b", None), ("t", "extra", ["new"]), ("t", "more", 4),
        ("u", "log", "once"), ("u", "extra", 2),
    ]  # fmt: skip
    listed = [t async for t in saver.alist(cfg())]
    assert listed[0].pending_writes == got.pending_writes


@async_test
async def test_writes_stored_apart_after_a_pack_do_not_repeat_its_indexes(saver: BaseCheckpointSaver) -> None:
    # A special write keeps a call's writes rows of their own (see packed): after a pack of
    # three, such a call's regular writes at indexes 1 and 2 are the pack's already.
    c1, _ = await put(saver, cfg(), {"a": [1]}, {"a": 1})
    await saver.aput_writes(c1, [("log", "a"), ("log", "b"), ("log", "c")], task_id="t")
    await saver.aput_writes(c1, [("__error__", "boom"), ("log", "B"), ("log", "C"), ("log", "D")], task_id="t")
    got = await saver.aget_tuple(c1)
    assert got is not None
    assert sorted((w[1], w[2]) for w in got.pending_writes) == [("__error__", "boom"), ("log", "D"), ("log", "a"), ("log", "b"), ("log", "c")]
    assert [w[2] for w in got.pending_writes if w[1] == "log"] == ["a", "b", "c", "D"]


@async_test
async def test_special_writes_stay_rows_of_their_own(saver: BaseCheckpointSaver) -> None:
    c1, _ = await put(saver, cfg(), {"a": [1]}, {"a": 1})
    await saver.aput_writes(c1, [("__error__", "boom"), ("x", 1)], task_id="t")
    await saver.aput_writes(c1, [("__error__", "again")], task_id="t")  # a special write replaces its row
    got = await saver.aget_tuple(c1)
    assert got is not None and sorted((w[1], w[2]) for w in got.pending_writes) == [("__error__", "again"), ("x", 1)]


@async_test
async def test_a_spoiled_pack_fails_the_read_naming_the_task(saver: BaseCheckpointSaver) -> None:
    if isinstance(saver, InMemorySaver):
        pytest.skip("the in-memory saver keeps no packed rows")
    c1, _ = await put(saver, cfg(), {"a": [1]}, {"a": 1})
    await saver.aput_writes(c1, [("x", 1), ("y", 2)], task_id="t")
    _spoil(saver, "writes", f"type = '{PACK}'")
    with pytest.raises(CorruptCheckpointError, match="pending writes of task 't'"):
        await saver.aget_tuple(c1)


@async_test
async def test_k_step_rows_are_compressed_and_every_version_reads_back(new_saver: Any) -> None:
    saver = new_saver(delta_fanout=4)
    config, made, items = cfg(), [], []
    for v in range(1, 18):  # seq 4, 8, 12, 16: rows holding 4 steps' items
        items = items + [f"message {v} " + "words that repeat like a chat does " * 40]
        config, cp = await put(saver, config, {"messages": items}, {"messages": v})
        made.append((cp, list(items)))
    for cp, want in made:
        got = await saver.aget_tuple(cfg(cid=cp["id"]))
        assert got is not None and got.checkpoint["channel_values"] == {"messages": want}
    assert [t.checkpoint["channel_values"]["messages"] async for t in saver.alist(cfg())] == [w for _, w in reversed(made)]
    if isinstance(saver, InMemorySaver):
        kinds = [blob[0] for blob in saver._threads["t1"].blobs.values()]
    else:
        kinds = [t for (t,) in _rows(saver, "blobs", "type")]
    # The SQL savers store every row of STORE_MIN bytes or more compressed (each step's item is one here);
    # the in-memory saver only the K-step rows.
    assert kinds.count(ZLIB + "msgpack") == (4 if isinstance(saver, InMemorySaver) else 17) and len(kinds) == 17


@async_test
async def test_sql_savers_store_rows_and_writes_of_store_min_bytes_compressed(saver: BaseCheckpointSaver) -> None:
    text = "a chat's message is text, and text compresses " * 12  # ~560 bytes
    c1, _ = await put(saver, cfg(), {"messages": [text], "short": "x" * 100}, {"messages": 1, "short": 1})
    await saver.aput_writes(c1, [("messages", [text]), ("branch:to:post", None)], task_id="t", task_path="~p, a")
    await saver.aput_writes(c1, [("short", "y" * 100)], task_id="u", task_path="~p, b")
    got = await saver.aget_tuple(c1)
    assert got is not None and got.checkpoint["channel_values"] == {"messages": [text], "short": "x" * 100}
    assert [(w[0], w[1], w[2]) for w in got.pending_writes] == [
        ("t", "messages", [text]), ("t", "branch:to:post", None), ("u", "short", "y" * 100)]  # fmt: skip
    assert [t.pending_writes async for t in saver.alist(cfg())] == [got.pending_writes]
    if isinstance(saver, InMemorySaver):
        return
    blobs = {ch: (t, len(d)) for ch, t, d in _rows(saver, "blobs", "channel, type, data")}
    assert blobs["messages"][0] == ZLIB + "msgpack" and blobs["messages"][1] < len(text) // 2
    assert blobs["short"][0] == "msgpack"  # under STORE_MIN: as it is
    writes = {task: (t, len(d)) for task, t, d in _rows(saver, "writes", "task_id, type, data")}
    assert writes["t"][0] == ZLIB + PACK and writes["t"][1] < len(text) // 2
    assert writes["u"][0] == "msgpack"
    _spoil(saver, "writes", "task_id = 't'")
    with pytest.raises(CorruptCheckpointError, match="do not decompress"):
        await saver.aget_tuple(c1)


@async_test
async def test_a_compressed_row_that_does_not_decompress_fails_the_read(new_saver: Any) -> None:
    saver = new_saver(delta_fanout=2)
    config = cfg()
    items: list[str] = []
    for v in range(1, 4):
        items = items + ["x" * 2000]
        config, _ = await put(saver, config, {"messages": items}, {"messages": v})
    if isinstance(saver, InMemorySaver):
        thread = saver._threads["t1"]
        key = next(k for k, b in thread.blobs.items() if b[0].startswith(ZLIB))
        thread.blobs[key] = (thread.blobs[key][0], b"\xc1\xc1", *thread.blobs[key][2:])
    else:
        _spoil(saver, "blobs", f"type LIKE '{ZLIB}%'")
    with pytest.raises(CorruptCheckpointError, match="does not decompress"):
        await saver.aget_tuple(config)


def test_an_old_sqlite_file_with_one_row_per_value_and_write_reads_as_before(tmp_path: Path) -> None:
    """Rows as the savers wrote them before: EMPTY and scalar blob rows, one row per write, plain tags."""
    path = tmp_path / "old.db"
    with SqliteSaver.from_conn_string(str(path)) as saver:
        c1 = saver.put(cfg(), _cp({"a": [1], "n": {"v": 1}}, {"a": 1, "n": 1}), {"source": "input", "step": -1}, {"a": 1, "n": 1})
    from engine.serde import Serializer

    serde = Serializer()
    conn = sqlite3.connect(path)
    cid = c1["configurable"]["checkpoint_id"]
    for channel, version, value in (("n", 2, 5), ("gone", 2, None)):  # the old shape of a scalar and of a cleared channel
        tag, data = ("empty", b"") if value is None else serde.dumps_typed(value)
        conn.execute("INSERT INTO blobs (thread_id, checkpoint_ns, channel, version, type, data) VALUES ('t1', '', ?, ?, ?, ?)",
                     (channel, version, tag, data))  # fmt: skip
    for idx, (channel, value) in enumerate((("x", 1), ("y", [2]))):
        tag, data = serde.dumps_typed(value)
        conn.execute("INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, data) "
                     "VALUES ('t1', '', ?, 't', ?, ?, ?, ?)", (cid, idx, channel, tag, data))  # fmt: skip
    conn.commit()
    conn.close()
    with SqliteSaver.from_conn_string(str(path)) as saver:
        c2 = saver.put(c1, _cp({"a": [1], "n": 5}, {"a": 1, "n": 2, "gone": 2}), {"source": "loop", "step": 0}, {})
        got = saver.get_tuple(c2)
        assert got is not None and got.checkpoint["channel_values"] == {"a": [1], "n": 5}
        assert got.checkpoint["channel_versions"] == {"a": 1, "n": 2, "gone": 2}
        first = saver.get_tuple(c1)
        assert first is not None and [(w[1], w[2]) for w in first.pending_writes] == [("x", 1), ("y", [2])]


def _cp(values: dict[str, Any], versions: dict[str, int]) -> Any:
    from tests.checkpoint.test_conformance import make_cp

    return make_cp(values, versions)


class _Flagged(TypedDict, total=False):
    log: Annotated[list, operator.add]
    extra: Annotated[list, operator.add]
    flag: bool


def test_a_resume_addressed_to_a_version_the_thread_moved_past_keeps_what_its_rerun_adds(saver: BaseCheckpointSaver) -> None:
    # The twin of tests/sidebyside/rerun_writes_more.py, on every saver: `done` runs again with the
    # Command's update and writes `extra`, which its first run did not.
    def done(state: _Flagged) -> dict[str, Any]:
        return {"log": ["done"], **({"extra": ["new"]} if state.get("flag") else {})}

    def ask(state: _Flagged) -> dict[str, Any]:
        return {"log": [interrupt("approve?")]}

    app = StateGraph(_Flagged).add_node("done", done).add_node("ask", ask).add_edge(START, "done").add_edge(START, "ask").compile(checkpointer=saver)
    config: Any = {"configurable": {"thread_id": "rerun"}}
    app.invoke({"log": ["in"]}, config)
    paused = app.get_state(config).config
    app.update_state(config, None)
    assert app.invoke(Command(resume="yes", update={"flag": True}), paused)["extra"] == ["new"]
    resumed = [s for s in app.get_state_history(config) if s.metadata["step"] == 0][0]  # the version it answered
    assert [t.result for t in resumed.tasks if t.name == "done"] == [{"log": ["done"], "extra": ["new"]}]
